import { HintgateError } from '../core/errors.js';
import type { Migration } from './migrations/index.js';
import { MIGRATIONS } from './migrations/index.js';
import type { Sql, SqlDriver } from './sql.js';

/** The table recording which migrations a store has applied. */
export const SCHEMA_TABLE = 'hintgate_schema';

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

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
 * Brings a store's schema up to date in one transaction: every pending migration is
 * applied and recorded, or none is. Concurrent openers (several replicas starting at once)
 * wait for each other on an advisory lock. A store whose recorded version is newer than this
 * code knows is refused with `STORE_VERSION` before anything is written.
 */
export async function migrate(
  driver: SqlDriver,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationOutcome> {
  return driver.transaction(async (sql) => {
    await sql.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))', [
      MIGRATION_LOCK_KEY,
    ]);
    const from = await currentVersion(sql);
    const known = migrations.length;
    if (from > known) {
      throw new HintgateError(
        'STORE_VERSION',
        `store at ${driver.location} was written by a newer hintgate (schema ${from}, this version knows up to ${known}); upgrade hintgate`,
        { location: driver.location, found: from, known },
      );
    }
    if (from === known) return { from, to: known };
    await sql.exec(
      `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    for (const migration of migrations.slice(from)) {
      await sql.exec(migration.sql);
      await sql.query(`INSERT INTO ${SCHEMA_TABLE} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    return { from, to: known };
  });
}

/** The schema version a store records, 0 when it records none. */
export async function currentVersion(sql: Sql): Promise<number> {
  const [exists] = await sql.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [SCHEMA_TABLE],
  );
  if (exists?.present !== true) return 0;
  const [row] = await sql.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${SCHEMA_TABLE}`,
  );
  return row?.version ?? 0;
}
