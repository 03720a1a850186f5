import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STORE_KINDS)('%s store: used nonces', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('claims a nonce once; while it is kept, claiming it again is false', async () => {
    const store = shared.store();
    const nonce = uniqueName('n');
    expect(await store.claimNonce(nonce, 60_000)).toBe(true);
    expect(await store.claimNonce(nonce, 60_000)).toBe(false);
    expect(await store.claimNonce(uniqueName('n'), 60_000)).toBe(true);
  });

  it('forgets a nonce once its time is up', async () => {
    const store = shared.store();
    const nonce = uniqueName('n');
    expect(await store.claimNonce(nonce, 30)).toBe(true);
    await sleep(80);
    expect(await store.claimNonce(nonce, 60_000)).toBe(true);
    expect(await store.claimNonce(nonce, 60_000)).toBe(false);
  });

  it('gives one of many simultaneous claims of a nonce true, across stores on one database', async () => {
    const stores: Store[] = [shared.store()];
    // PGlite is one process's; PostgreSQL is shared by every gateway that opens it.
    if (kind === 'postgres') stores.push(await shared.harness().open());
    try {
      const nonce = uniqueName('n');
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          (stores[index % stores.length] as Store).claimNonce(nonce, 60_000),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    } finally {
      for (const store of stores.slice(1)) await store.close();
    }
  });

  it('refuses an empty nonce or a ttl out of range, naming them', async () => {
    const store = shared.store();
    await expect(store.claimNonce('', 1_000)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: expect.stringContaining('nonce'),
    });
    await expect(store.claimNonce('x', 0)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: expect.stringContaining('ttlMs'),
    });
    await expect(store.claimNonce('x', 1.5)).rejects.toMatchObject({ code: 'INPUT_INVALID' });
  });
});
