import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { readLock } from '../../src/store/lock.js';
import { SCHEMA_TABLE, SCHEMA_VERSION, migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { PGLITE_DATABASE_DIR, loadPGlite } from '../../src/store/pglite.js';
import { pgliteDriver } from '../../src/store/pglite-driver.js';
import { postgresDriver } from '../../src/store/postgres.js';
import { openStore } from '../../src/store/store.js';
import type { StoreHarness } from './helpers/harness.js';
import {
  STORE_KINDS,
  createHarness,
  removeTempDirs,
  requirePgUrl,
  tempDir,
} from './helpers/harness.js';

const harnesses: StoreHarness[] = [];
afterAll(async () => {
  for (const harness of harnesses) await harness.cleanup();
  removeTempDirs();
});

async function fresh(kind: (typeof STORE_KINDS)[number]): Promise<StoreHarness> {
  const harness = await createHarness(kind);
  harnesses.push(harness);
  return harness;
}

const BROKEN = [
  ...MIGRATIONS,
  {
    version: SCHEMA_VERSION + 1,
    name: 'broken',
    sql: 'CREATE TABLE half_done (id int); SELECT no_such_column FROM half_done;',
  },
];

describe('migrations', () => {
  it('initialize an empty data directory from nothing', async () => {
    const dataDir = tempDir();
    const store = await openStore({ kind: 'pglite', dataDir });
    await store.createToolset({ name: 'first' });
    await store.close();
    const db = await (await loadPGlite()).create(join(dataDir, PGLITE_DATABASE_DIR));
    const rows = await db.query<{ version: number; name: string }>(
      `SELECT version, name FROM ${SCHEMA_TABLE} ORDER BY version`,
    );
    await db.close();
    expect(rows.rows).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
  });
});

describe.each(STORE_KINDS)('%s store: migrations', (kind) => {
  it('are applied once; reopening keeps the data and the recorded versions', async () => {
    const harness = await fresh(kind);
    const store = await harness.open();
    await store.createToolset({ name: 'kept' });
    await store.close();
    const again = await harness.open();
    expect(await again.getToolset('kept')).toBeDefined();
    await again.close();
    const versions = await harness.raw<{ version: number; applied_at: Date }>(
      `SELECT version, applied_at FROM ${SCHEMA_TABLE} ORDER BY version`,
    );
    expect(versions.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('leave the audit log the indexes its queries use, and no others', async () => {
    const harness = await fresh(kind);
    await (await harness.open()).close();
    const indexes = await harness.raw<{ name: string }>(
      `SELECT indexname AS name FROM pg_indexes
       WHERE schemaname = current_schema() AND tablename = 'audit_log' ORDER BY indexname`,
    );
    expect(indexes.map((row) => row.name)).toEqual([
      'audit_log_by_namespaced_name',
      'audit_log_by_session',
      'audit_log_by_time',
      'audit_log_by_tool',
      'audit_log_pkey',
    ]);
  });

  it('refuse a store written by a newer hintgate and leave it untouched', async () => {
    const harness = await fresh(kind);
    const store = await harness.open();
    await store.createToolset({ name: 'precious' });
    await store.close();
    const future = SCHEMA_VERSION + 1;
    await harness.raw(`INSERT INTO ${SCHEMA_TABLE} (version, name) VALUES (${future}, 'future')`);
    const before = await harness.raw(`SELECT * FROM ${SCHEMA_TABLE} ORDER BY version`);

    const refused = await harness.open().catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'STORE_VERSION',
      details: { found: future, known: SCHEMA_VERSION },
    });
    const where =
      kind === 'pglite' ? harness.options.kind === 'pglite' && harness.options.dataDir : '.+';
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^store at ${where} was written by a newer hintgate \\(schema ${future}, this version knows up to ${SCHEMA_VERSION}\\); upgrade hintgate$`,
      ),
    );
    expect(await harness.raw(`SELECT * FROM ${SCHEMA_TABLE} ORDER BY version`)).toEqual(before);
    expect(await harness.raw('SELECT name FROM toolsets')).toEqual([{ name: 'precious' }]);
    if (harness.options.kind === 'pglite')
      expect(readLock(harness.options.dataDir)).toBeUndefined();
  });

  /** Runs `migrate` with a list of migrations on the harness's database directly. */
  async function migrateWith(
    harness: StoreHarness,
    migrations: typeof MIGRATIONS,
  ): Promise<unknown> {
    if (harness.options.kind === 'pglite') {
      const PGlite = await loadPGlite();
      const db = await PGlite.create(join(harness.options.dataDir, PGLITE_DATABASE_DIR));
      try {
        return await migrate(pgliteDriver(db, 'test', { release: () => undefined }), migrations);
      } finally {
        await db.close();
      }
    }
    const pool = new pg.Pool({
      connectionString: requirePgUrl(),
      options: `-c search_path=${harness.options.schema}`,
    });
    try {
      return await migrate(postgresDriver(pool, 'test', 'unused'), migrations);
    } finally {
      await pool.end();
    }
  }

  it('apply a migration that arrives after a higher one was applied', async () => {
    const harness = await fresh(kind);
    await (await harness.open()).close();
    const later = {
      version: SCHEMA_VERSION + 2,
      name: 'later',
      sql: 'CREATE TABLE later_t (id int);',
    };
    const between = {
      version: SCHEMA_VERSION + 1,
      name: 'between',
      sql: 'CREATE TABLE between_t (id int);',
    };
    await migrateWith(harness, [...MIGRATIONS, later]);
    expect(await migrateWith(harness, [...MIGRATIONS, between, later])).toEqual({
      from: SCHEMA_VERSION + 2,
      to: SCHEMA_VERSION + 2,
    });
    const versions = await harness.raw<{ version: number }>(
      `SELECT version FROM ${SCHEMA_TABLE} ORDER BY version`,
    );
    expect(versions.map((row) => row.version).slice(-2)).toEqual([
      SCHEMA_VERSION + 1,
      SCHEMA_VERSION + 2,
    ]);
    const made = await harness.raw<{ t: string | null }>(
      "SELECT to_regclass('between_t')::text AS t",
    );
    expect(made[0]?.t).toBe('between_t');
  });

  it('apply all of a set of migrations or none of them', async () => {
    const harness = await fresh(kind);
    await (await harness.open()).close();
    const failure = await migrateWith(harness, BROKEN).catch((error: unknown) => error);
    expect(failure).toMatchObject({ message: expect.stringContaining('no_such_column') });
    const versions = await harness.raw<{ n: number }>(
      `SELECT max(version) AS n FROM ${SCHEMA_TABLE}`,
    );
    expect(versions[0]?.n).toBe(SCHEMA_VERSION);
    const half = await harness.raw<{ t: string | null }>(
      "SELECT to_regclass('half_done')::text AS t",
    );
    expect(half[0]?.t).toBeNull();
  });
});

describe('postgres store: migrations from several replicas at once', () => {
  it('run once while the others wait', async () => {
    const harness = await fresh('postgres');
    const stores = await Promise.all([harness.open(), harness.open(), harness.open()]);
    await Promise.all(stores.map((store) => store.close()));
    const versions = await harness.raw<{ version: number }>(`SELECT version FROM ${SCHEMA_TABLE}`);
    expect(versions).toHaveLength(MIGRATIONS.length);
  });
});
