import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PGLITE_DATABASE_DIR, loadPGlite } from '../../../src/store/pglite.js';
import type { Store, StoreOptions } from '../../../src/store/store.js';
import { openStore } from '../../../src/store/store.js';
import type { StoreKind } from '../../../src/store/types.js';

/** Both implementations: every contract test runs against each. */
export const STORE_KINDS: readonly StoreKind[] = ['pglite', 'postgres'];

/** The PostgreSQL test server's URL; a loud failure when the test command did not set it. */
export function requirePgUrl(): string {
  const url = process.env['HINTGATE_TEST_PG_URL'];
  if (url === undefined || url === '') {
    throw new Error(
      'HINTGATE_TEST_PG_URL is not set: the PostgreSQL store tests need a server. Run the test ' +
        'command (scripts/test.sh, which sources scripts/ensure-postgres.sh), or export ' +
        'HINTGATE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test',
    );
  }
  return url;
}

/** One store's storage for a test file: a data directory or a PostgreSQL schema. */
export interface StoreHarness {
  readonly kind: StoreKind;
  /** Options opening this storage (for this process or a child). */
  readonly options: StoreOptions;
  /** Opens (or reopens) a store on this storage. */
  open(extra?: { onWarning?: (message: string) => void }): Promise<Store>;
  /** Runs raw SQL on the storage, bypassing the store (PGlite: only while no store is open). */
  raw<R>(text: string, params?: unknown[]): Promise<R[]>;
  /** Deletes the storage. */
  cleanup(): Promise<void>;
}

const CACHE = join(process.cwd(), 'node_modules', '.cache', 'hintgate-store-test');

/**
 * An initialized, empty PGlite cluster to copy: initdb takes seconds, a copy a fraction of
 * one. Built once per machine, atomically (built aside, then renamed into place).
 */
async function pgliteTemplate(): Promise<string> {
  const template = join(CACHE, 'pglite-0.5.16-template');
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  mkdirSync(CACHE, { recursive: true });
  const building = join(CACHE, `building-${process.pid}-${randomBytes(4).toString('hex')}`);
  const PGlite = await loadPGlite();
  const db = await PGlite.create(building);
  await db.close();
  try {
    renameSync(building, template);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

const tempDirs: string[] = [];

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export function tempDir(prefix = 'hintgate-store-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory {@link tempDir} made in this test file. */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A data directory holding an empty embedded database (no hintgate schema yet). */
export async function preparedDataDir(): Promise<string> {
  const dataDir = tempDir();
  cpSync(await pgliteTemplate(), join(dataDir, PGLITE_DATABASE_DIR), { recursive: true });
  return dataDir;
}

async function pgliteHarness(): Promise<StoreHarness> {
  const dataDir = await preparedDataDir();
  const options: StoreOptions = { kind: 'pglite', dataDir };
  return {
    kind: 'pglite',
    options,
    open: (extra = {}) => openStore({ ...options, ...extra }),
    async raw<R>(text: string, params: unknown[] = []) {
      const PGlite = await loadPGlite();
      const db = await PGlite.create(join(dataDir, PGLITE_DATABASE_DIR));
      try {
        return (await db.query<R>(text, params)).rows;
      } finally {
        await db.close();
      }
    },
    cleanup: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
  };
}

/** Runs SQL on the test server, in a schema when given. */
export async function pgQuery<R>(
  text: string,
  params: unknown[] = [],
  schema?: string,
): Promise<R[]> {
  const client = new pg.Client({
    connectionString: requirePgUrl(),
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as R[];
  } finally {
    await client.end();
  }
}

function postgresHarness(): Promise<StoreHarness> {
  const url = requirePgUrl();
  const schema = `hg_test_${randomBytes(6).toString('hex')}`;
  const options: StoreOptions = { kind: 'postgres', url, schema, poolSize: 4 };
  return Promise.resolve({
    kind: 'postgres',
    options,
    open: (extra = {}) => openStore({ ...options, ...extra }),
    raw: (text, params) => pgQuery(text, params, schema),
    async cleanup() {
      await pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  });
}

/** Fresh storage of one kind. */
export function createHarness(kind: StoreKind): Promise<StoreHarness> {
  return kind === 'pglite' ? pgliteHarness() : postgresHarness();
}

/**
 * Opens one store of a kind for a whole `describe` block (PGlite starts in about half a
 * second, so tests share it and keep apart by using their own names).
 */
export function sharedStore(kind: StoreKind): {
  store: () => Store;
  harness: () => StoreHarness;
  setup: () => Promise<void>;
  teardown: () => Promise<void>;
} {
  let harness: StoreHarness | undefined;
  let store: Store | undefined;
  return {
    store: () => {
      if (store === undefined) throw new Error('store not open: setup() failed or was not run');
      return store;
    },
    harness: () => {
      if (harness === undefined) throw new Error('harness not set up');
      return harness;
    },
    async setup() {
      harness = await createHarness(kind);
      store = await harness.open();
    },
    async teardown() {
      await store?.close();
      await harness?.cleanup();
    },
  };
}

/** A name no other test uses. */
export function uniqueName(prefix = 'ts'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}
