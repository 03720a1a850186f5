import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { STORE_KINDS, createHarness, sharedStore, uniqueName } from './helpers/harness.js';

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

  it('drops expired nonces on a later claim, outside its transaction', async () => {
    const harness = await createHarness(kind);
    try {
      const first = await harness.open();
      expect(await first.claimNonce('short-lived', 30)).toBe(true);
      await first.close();
      await sleep(80);
      // A store that never pruned prunes after its first claim.
      const second = await harness.open();
      expect(await second.claimNonce('another', 60_000)).toBe(true);
      await second.close();
      const rows = await harness.raw<{ nonce: string }>('SELECT nonce FROM used_nonces');
      expect(rows.map((row) => row.nonce)).toEqual(['another']);
    } finally {
      await harness.cleanup();
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
