import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreForCli } from '../../src/cli/store-access.js';
import { isHintgateError } from '../../src/core/errors.js';
import type { AdminCatalog, AdminServer } from '../../src/http/admin.js';
import { startAdminServer } from '../../src/http/admin.js';
import { LOCK_FILE } from '../../src/store/lock.js';
import { RemoteStore } from '../../src/store/remote.js';
import type { Store, StoreEvent } from '../../src/store/store.js';
import { readLock } from '../../src/store/store.js';
import { waitFor } from '../helpers/processes.js';
import { testStorage } from '../helpers/store.js';
import { preparedDataDir } from '../store/helpers/harness.js';

describe('the admin endpoint and RemoteStore', () => {
  let dataDir: string;
  let store: Store;
  let admin: AdminServer;
  let remote: Store;

  beforeAll(async () => {
    const storage = await testStorage('pglite');
    dataDir = storage.dataDir;
    store = await storage.open();
    admin = await startAdminServer(store);
    remote = await openStoreForCli({ dataDir });
  });

  afterAll(async () => {
    await remote.close();
    await admin.close();
    await store.close();
  });

  it('records a loopback URL and a random token in the lock file', () => {
    const lock = readLock(dataDir);
    expect(lock?.alive).toBe(true);
    expect(lock?.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/admin$/);
    expect(lock?.adminToken).toMatch(/^[0-9a-f]{48}$/);
    expect(remote).toBeInstanceOf(RemoteStore);
    expect(remote.location).toContain(`pid ${process.pid}`);
  });

  it('runs store methods through the gateway with the same results', async () => {
    const created = await remote.createToolset({
      name: 'remote',
      members: [{ kind: 'tool', namespacedName: 'a.b' }],
    });
    expect(created).toEqual(await store.getToolset('remote'));
    const added = await remote.addNotes('remote', { namespacedName: 'a.b' }, [
      { name: 'one', note: 'first' },
      { name: 'one', note: 'twice' },
    ]);
    expect(added.added.map((note) => note.name)).toEqual(['one']);
    expect(added.skipped).toHaveLength(1);
    expect(await remote.listNotes('remote')).toEqual(await store.listNotes('remote'));
    expect(await remote.getToolset('absent')).toBeUndefined();
    await remote.setOverride({ namespacedName: 'a.b' }, { title: 'T' }, { toolset: 'remote' });
    expect(
      await remote.unsetOverride({ namespacedName: 'a.b' }, { toolset: 'remote' }),
    ).toBeUndefined();
    const chosen = await remote.setDefaultToolset({ kind: 'toolset', name: 'remote' }, 'cli:me');
    expect(chosen).toEqual(await store.getDefaultToolset());
    expect(chosen).toMatchObject({ kind: 'toolset', name: 'remote', by: 'cli:me' });
    expect(await remote.setDefaultToolset({ kind: 'config' })).toBeUndefined();
    expect(await remote.getDefaultToolset()).toBeUndefined();
    const document = await remote.exportToolset('remote');
    expect(await remote.importToolset(document, { name: 'remote-copy' })).toMatchObject({
      replaced: false,
      toolset: { name: 'remote-copy', notes: [expect.objectContaining({ name: 'one' })] },
    });
  });

  it('brings errors back with their code, message and details', async () => {
    const missing = await remote.deleteToolset('absent').catch((error: unknown) => error);
    expect(isHintgateError(missing, 'NOT_FOUND')).toBe(true);
    expect((missing as Error).message).toBe('toolset "absent" does not exist');
    const invalid = await remote
      .createToolset({ name: 'Bad Name' })
      .catch((error: unknown) => error);
    expect(isHintgateError(invalid, 'INPUT_INVALID')).toBe(true);
    expect((invalid as { details: { issues: unknown[] } }).details.issues).toEqual([
      expect.objectContaining({ path: 'name' }),
    ]);
    const conflict = await remote
      .createToolset({ name: 'remote' })
      .catch((error: unknown) => error);
    expect(isHintgateError(conflict, 'CONFLICT')).toBe(true);
    await expect(remote.setAdminEndpoint(undefined)).rejects.toThrow(/held by a running gateway/);
  });

  it("holds an OAuth login's lock in the gateway for the CLI: the gateway's own refresh waits for it", async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const cli = remote.withOAuthLock('srv', 'alice', async () => {
      order.push('cli holds it');
      await held;
      order.push('cli done');
    });
    // Until the CLI's lease is granted, the gateway could take the lock first.
    while (order.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const gateway = store.withOAuthLock('srv', 'alice', () => {
      order.push('gateway holds it');
      return Promise.resolve();
    });
    // Another login is not held up.
    await store.withOAuthLock('srv', 'bob', () => Promise.resolve(order.push('other login')));
    release();
    await Promise.all([cli, gateway]);
    expect(order).toEqual(['cli holds it', 'other login', 'cli done', 'gateway holds it']);
  });

  it('streams the store events', async () => {
    const events: StoreEvent[] = [];
    const stop = remote.watch((event) => events.push(event));
    try {
      // The stream opens asynchronously: write until an event arrives.
      await waitFor(
        async () => {
          await store.setOverride({ namespacedName: 'a.b' }, { readOnlyHint: true });
          return events.length;
        },
        (count) => count > 0,
        5_000,
        100,
      );
      expect(events).toContainEqual({ kind: 'overrides' });
    } finally {
      stop();
    }
  });

  it('refuses requests without the token, with a wrong one, from a browser, and unknown methods', async () => {
    const url = admin.endpoint.url;
    const body = JSON.stringify({ method: 'listToolsets', args: [] });
    const headers = { 'content-type': 'application/json' };
    expect((await fetch(`${url}/store`, { method: 'POST', headers, body })).status).toBe(401);
    const wrong = await fetch(`${url}/store`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer nope' },
      body,
    });
    expect(wrong.status).toBe(401);
    const auth = { ...headers, authorization: `Bearer ${admin.endpoint.token ?? ''}` };
    const browser = await fetch(`${url}/store`, {
      method: 'POST',
      headers: { ...auth, origin: 'http://127.0.0.1:1' },
      body,
    });
    expect(browser.status).toBe(403);
    const close = await fetch(`${url}/store`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ method: 'close', args: [] }),
    });
    expect(close.status).toBe(400);
    expect(await close.json()).toEqual({
      error: { code: 'INPUT_INVALID', message: 'unknown store method "close"' },
    });
    const ok = await fetch(`${url}/store`, { method: 'POST', headers: auth, body });
    expect(((await ok.json()) as { result: unknown[] }).result.length).toBeGreaterThan(0);
  });
});

describe('the admin endpoint: GET /admin/catalog', () => {
  it("answers the gateway's servers and tools behind the token, 503 before it has them", async () => {
    const storage = await testStorage('pglite');
    const store = await storage.open();
    let catalog: AdminCatalog | undefined;
    const admin = await startAdminServer(store, { catalog: () => catalog });
    try {
      const url = `${admin.endpoint.url}/catalog`;
      const auth = { authorization: `Bearer ${admin.endpoint.token ?? ''}` };
      expect((await fetch(url)).status).toBe(401);
      const early = await fetch(url, { headers: auth });
      expect(early.status).toBe(503);
      catalog = {
        servers: [{ name: 'files', state: 'up' }],
        tools: [
          {
            server: 'files',
            namespacedName: 'files.read_file',
            flattenedName: 'files_read_file',
            refId: '0123456789abcdef',
          },
        ],
      };
      const ready = await fetch(url, { headers: auth });
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual(catalog);
    } finally {
      await admin.close();
      await store.close();
    }
  });
});

describe('openStoreForCli', () => {
  it('opens the embedded store directly when no gateway holds it, and releases it on close', async () => {
    const dataDir = await preparedDataDir();
    const store = await openStoreForCli({ dataDir });
    expect(store).not.toBeInstanceOf(RemoteStore);
    expect(readLock(dataDir)?.pid).toBe(process.pid);
    await store.close();
    expect(readLock(dataDir)).toBeUndefined();
  });

  it('fails clearly when a live process holds the directory without an admin endpoint', async () => {
    const dataDir = await preparedDataDir();
    writeFileSync(
      join(dataDir, LOCK_FILE),
      JSON.stringify({
        pid: process.pid,
        startedAt: new Date().toISOString(),
        hostname: hostname(),
      }),
    );
    const error = await openStoreForCli({ dataDir, waitMs: 200 }).catch(
      (caught: unknown) => caught,
    );
    expect(isHintgateError(error, 'STORE_LOCKED')).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(`in use by hintgate pid ${process.pid} .*offers no admin endpoint`),
    );
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toContain(String(process.pid));
  });

  it('reports an admin endpoint that does not answer as STORE_UNAVAILABLE, naming it', async () => {
    const dataDir = await preparedDataDir();
    writeFileSync(
      join(dataDir, LOCK_FILE),
      JSON.stringify({
        pid: process.pid,
        startedAt: new Date().toISOString(),
        hostname: hostname(),
        adminUrl: 'http://127.0.0.1:9/admin',
        adminToken: 'x',
      }),
    );
    const store = await openStoreForCli({ dataDir });
    const error = await store.listToolsets().catch((caught: unknown) => caught);
    expect(isHintgateError(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain(
      "through the gateway's admin endpoint http://127.0.0.1:9/admin",
    );
  });
});
