import { HintgateError } from '../core/errors.js';
import type { Migration } from './migrations/index.js';
import { MIGRATIONS } from './migrations/index.js';
import type { Sql, SqlDriver } from './sql.js';

/** The table recording which migrations a store has applied. */
export const SCHEMA_TABLE = 'hintgate_schema';

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

// Any constant works: it only has to be the same for every hintgate sharing a database.
const MIGRATION_LOCK_KEY = 0x68_67_73_63;

/** What opening a store did to its schema. */
export interface MigrationOutcome {
  /** The version found (0 for an empty database). */
  readonly from: number;
  /** The version now. */
  readonly to: number;
}

/**
 * Brings a store's schema up to date in one transaction: every migration the store has not
 * recorded is applied and recorded, in version order, or none is. Versions are not assumed
 * to be contiguous: migrations written side by side may arrive in any order, and one that
 * arrives after a higher one is still applied. Concurrent openers (several replicas starting
 * at once) wait for each other on an advisory lock. A store whose recorded version is newer
 * than this code knows is refused with `STORE_VERSION` before anything is written.
 */
export async function migrate(
  driver: SqlDriver,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationOutcome> {
  return driver.transaction(async (sql) => {
    await sql.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))', [
      MIGRATION_LOCK_KEY,
    ]);
    const applied = await appliedVersions(sql);
    const from = Math.max(0, ...applied);
    const known = migrations.at(-1)?.version ?? 0;
    if (from > known) {
      throw new HintgateError(
        'STORE_VERSION',
        `store at ${driver.location} was written by a newer hintgate (schema ${from}, this version knows up to ${known}); upgrade hintgate`,
        { location: driver.location, found: from, known },
      );
    }
    const pending = migrations.filter((migration) => !applied.has(migration.version));
    if (pending.length === 0) return { from, to: known };
    await sql.exec(
      `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    for (const migration of pending) {
      await sql.exec(migration.sql);
      await sql.query(`INSERT INTO ${SCHEMA_TABLE} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    return { from, to: known };
  });
}

/** The schema versions a store records (none for an empty database). */
export async function appliedVersions(sql: Sql): Promise<ReadonlySet<number>> {
  const [exists] = await sql.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [SCHEMA_TABLE],
  );
  if (exists?.present !== true) return new Set();
  const rows = await sql.query<{ version: number }>(`SELECT version FROM ${SCHEMA_TABLE}`);
  return new Set(rows.map((row) => Number(row.version)));
}
