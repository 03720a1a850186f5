import { randomBytes } from 'node:crypto';
import type { Store, StoreOptions } from '../../src/store/store.js';
import { openStore } from '../../src/store/store.js';
import type { StoreKind } from '../../src/store/types.js';
import { pgQuery, preparedDataDir, requirePgUrl } from '../store/helpers/harness.js';

/** Storage for a gateway test: where it is, how to open it, and how to remove it. */
export interface TestStorage {
  readonly kind: StoreKind;
  readonly options: StoreOptions;
  /** The embedded store's data directory, or a scratch one for PostgreSQL. */
  readonly dataDir: string;
  /** The `store` config value (`pglite`, or the URL with the schema as `?schema=`). */
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

/**
 * Fresh storage of one kind: a PGlite data directory (copied from an initialized template,
 * so it opens fast), or a schema of its own on the test PostgreSQL server
 * (`HINTGATE_TEST_PG_URL`, required: a loud failure when unset).
 */
export async function testStorage(kind: StoreKind): Promise<TestStorage> {
  const dataDir = await preparedDataDir();
  if (kind === 'pglite') {
    const options: StoreOptions = { kind: 'pglite', dataDir };
    return { kind, options, dataDir, open: () => openStore(options), cleanup: async () => {} };
  }
  const schema = `hg_gw_${randomBytes(6).toString('hex')}`;
  const options: StoreOptions = { kind: 'postgres', url: requirePgUrl(), schema, poolSize: 4 };
  return {
    kind,
    options,
    dataDir,
    open: () => openStore(options),
    cleanup: async () => {
      await pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/** The `store` config value for test storage: `pglite`, or the URL with its schema. */
export function storeSpec(storage: TestStorage): string {
  const options = storage.options;
  return options.kind === 'postgres'
    ? `${options.url}?schema=${options.schema ?? 'public'}`
    : 'pglite';
}

/** An embedded store in a fresh temporary data directory. */
export async function openTestStore(): Promise<Store> {
  return (await testStorage('pglite')).open();
}
