import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHintgateError } from '../../src/core/errors.js';
import type { StoreEvent } from '../../src/store/types.js';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

describe.each(STORE_KINDS)('%s store: OAuth credentials of downstream servers', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('keeps one credential per server and principal, and lists summaries without the sealed document', async () => {
    const store = shared.store();
    const server = uniqueName();
    await store.saveOAuthCredential({
      server,
      sealed: 'v1.shared',
      expiresAt: '2030-01-01T00:00:00.000Z',
      scope: 'mcp:read',
      refreshable: true,
      loggedInAt: '2026-01-01T00:00:00.000Z',
    });
    await store.saveOAuthCredential({ server, principal: 'alice', sealed: 'v1.alice' });
    expect(await store.getOAuthCredential(server, '')).toMatchObject({
      server,
      principal: '',
      sealed: 'v1.shared',
      expiresAt: '2030-01-01T00:00:00.000Z',
      scope: 'mcp:read',
      refreshable: true,
      loggedInAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await store.getOAuthCredential(server, 'alice')).toMatchObject({ sealed: 'v1.alice' });
    expect(await store.getOAuthCredential(server, 'bob')).toBeUndefined();
    const listed = await store.listOAuthCredentials(server);
    expect(listed.map((entry) => entry.principal)).toEqual(['', 'alice']);
    for (const entry of listed) expect(entry).not.toHaveProperty('sealed');
  });

  it('replaces a credential and keeps when the login happened across a refresh', async () => {
    const store = shared.store();
    const server = uniqueName();
    await store.saveOAuthCredential({ server, sealed: 'one', loggedInAt: '2026-02-02T00:00:00Z' });
    await store.saveOAuthCredential({ server, sealed: 'two', expiresAt: '2031-01-01T00:00:00Z' });
    expect(await store.getOAuthCredential(server, '')).toMatchObject({
      sealed: 'two',
      loggedInAt: '2026-02-02T00:00:00.000Z',
      expiresAt: '2031-01-01T00:00:00.000Z',
      refreshable: false,
    });
  });

  it('deletes one principal or the whole server, and reports oauth events', async () => {
    const store = shared.store();
    const server = uniqueName();
    const events: StoreEvent[] = [];
    const stop = store.watch((event) => events.push(event));
    await store.saveOAuthCredential({ server, sealed: 'a' });
    await store.saveOAuthCredential({ server, principal: 'bob', sealed: 'b' });
    expect(await store.deleteOAuthCredentials(server, 'bob')).toBe(1);
    expect(await store.deleteOAuthCredentials(server, 'bob')).toBe(0);
    await store.saveOAuthCredential({ server, principal: 'carol', sealed: 'c' });
    expect(await store.deleteOAuthCredentials(server)).toBe(2);
    expect(await store.listOAuthCredentials(server)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, kind === 'postgres' ? 300 : 20));
    stop();
    const mine = events.filter((event) => event.kind === 'oauth' && event.server === server);
    expect(mine.length).toBe(5);
  });

  it('refuses a bad key or an empty document, naming the field, and stores nothing', async () => {
    const store = shared.store();
    const server = uniqueName();
    const bad = await store
      .saveOAuthCredential({ server: 'has space', sealed: 'x' })
      .catch((error: unknown) => error);
    expect(isHintgateError(bad, 'INPUT_INVALID')).toBe(true);
    expect((bad as Error).message).toContain('server');
    const empty = await store
      .saveOAuthCredential({ server, sealed: '' })
      .catch((error: unknown) => error);
    expect((empty as Error).message).toContain('sealed');
    const when = await store
      .saveOAuthCredential({ server, sealed: 'x', expiresAt: 'tomorrow' })
      .catch((error: unknown) => error);
    expect((when as Error).message).toContain('expiresAt');
    expect(await store.listOAuthCredentials(server)).toEqual([]);
  });
});
