import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HintgateError } from '../../src/core/errors.js';
import { redactUrl } from '../../src/store/postgres.js';
import type { StoreOptions } from '../../src/store/store.js';
import { openStore, storeOptionsFrom } from '../../src/store/store.js';
import {
  STORE_KINDS,
  createHarness,
  pgQuery,
  removeTempDirs,
  requirePgUrl,
  tempDir,
} from './helpers/harness.js';

afterAll(removeTempDirs);

describe('a store that is gone', () => {
  it('fails with STORE_UNAVAILABLE naming the server when PostgreSQL does not answer', async () => {
    const error = await openStore({
      kind: 'postgres',
      url: 'postgres://hintgate:s3cret@127.0.0.1:1/test',
      connectTimeoutMs: 2_000,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HintgateError);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toMatch(
      /^store at postgres:\/\/hintgate:\*\*\*@127\.0\.0\.1:1\/test is unavailable: .*ECONNREFUSED/,
    );
    expect((error as Error).message).not.toContain('s3cret');
    expect((error as Error).cause).toBeDefined();
  });

  it('fails with STORE_UNAVAILABLE when the database does not exist', async () => {
    const url = new URL(requirePgUrl());
    url.pathname = '/hintgate_no_such_database';
    await expect(openStore({ kind: 'postgres', url: url.toString() })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('hintgate_no_such_database'),
    });
  });

  it('fails with STORE_UNAVAILABLE naming the directory when it cannot be used', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'not a directory');
    const dataDir = join(file, 'data');
    const error = await openStore({ kind: 'pglite', dataDir }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain(`cannot use data directory ${dataDir}`);
    expect((error as Error).cause).toBeDefined();
  });

  it('refuses a schema name it could not quote safely', async () => {
    await expect(
      openStore({ kind: 'postgres', url: requirePgUrl(), schema: 'Robert"; DROP' }),
    ).rejects.toMatchObject({ code: 'INPUT_INVALID' });
  });
});

describe.each(STORE_KINDS)('%s store: after close', (kind) => {
  it('fails every call with STORE_UNAVAILABLE, and closing twice is harmless', async () => {
    const harness = await createHarness(kind);
    const store = await harness.open();
    await store.close();
    await store.close();
    await expect(store.listToolsets()).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: `store at ${store.location} is closed`,
    });
    await expect(store.createToolset({ name: 'x' })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    await harness.cleanup();
  });
});

describe('postgres store: connections cut by the server', () => {
  it('reports the failure as STORE_UNAVAILABLE at worst, and recovers', async () => {
    const harness = await createHarness('postgres');
    const applicationName = `hintgate-cut-${Date.now()}`;
    const store = await openStore({ ...harness.options, applicationName } as StoreOptions);
    try {
      await store.createToolset({ name: 'before' });
      const cut = await pgQuery<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1 || '%'`,
        [applicationName],
      );
      expect(cut.length).toBeGreaterThanOrEqual(2);
      await pgQuery(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1 || '%'`,
        [applicationName],
      );
      const first = await store.getToolset('before').catch((error: unknown) => error);
      if (first instanceof Error) expect(first).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(store.getToolset('before')).resolves.toMatchObject({ name: 'before' });
    } finally {
      await store.close();
      await harness.cleanup();
    }
  });
});

describe('store options', () => {
  it('choose PostgreSQL for a postgres:// URL and PGlite otherwise', () => {
    expect(storeOptionsFrom(undefined, '/data')).toEqual({ kind: 'pglite', dataDir: '/data' });
    expect(storeOptionsFrom('postgresql://h/db', '/data')).toEqual({
      kind: 'postgres',
      url: 'postgresql://h/db',
    });
    expect(() => storeOptionsFrom('mysql://h/db', '/data')).toThrow(
      'store: expected "pglite" or a postgres:// URL',
    );
  });

  it('keep passwords out of locations', () => {
    expect(redactUrl('postgres://u:pw@h:5432/db?password=pw')).toBe('postgres://u:***@h:5432/db');
  });

  it('insist on a PostgreSQL server for the tests', () => {
    const saved = process.env['HINTGATE_TEST_PG_URL'];
    delete process.env['HINTGATE_TEST_PG_URL'];
    try {
      expect(() => requirePgUrl()).toThrow(/HINTGATE_TEST_PG_URL is not set.+Run the test command/);
    } finally {
      process.env['HINTGATE_TEST_PG_URL'] = saved;
    }
  });
});
