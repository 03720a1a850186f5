import { afterEach, describe, expect, it } from 'vitest';
import { HintgateError } from '../../src/core/errors.js';
import { DeferredStore } from '../../src/store/deferred.js';
import type { Store } from '../../src/store/store.js';
import type { StoreEvent } from '../../src/store/types.js';
import { testStorage } from '../helpers/store.js';

describe('DeferredStore', () => {
  const toClose: Store[] = [];
  afterEach(async () => {
    await Promise.all(toClose.splice(0).map((store) => store.close()));
  });

  it('runs calls made while the store opens once it is open, in order', async () => {
    const storage = await testStorage('pglite');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const store = new DeferredStore(
      'pglite',
      storage.dataDir,
      gate.then(() => storage.open()),
    );
    toClose.push(store);
    const created = store.createToolset({ name: 'early', description: 'made while opening' });
    const listed = store.listToolsets();
    expect(store.current).toBeUndefined();
    release();
    await expect(created).resolves.toMatchObject({ name: 'early' });
    expect((await listed).map((toolset) => toolset.name)).toEqual(['early']);
    expect(store.current).toBeDefined();
  });

  it('reports changes to listeners registered before the open ended', async () => {
    const storage = await testStorage('pglite');
    const store = new DeferredStore('pglite', storage.dataDir, storage.open());
    toClose.push(store);
    const events: StoreEvent[] = [];
    const stop = store.watch((event) => events.push(event));
    await store.createToolset({ name: 'watched' });
    expect(events).toContainEqual(expect.objectContaining({ kind: 'toolset', name: 'watched' }));
    stop();
    await store.deleteToolset('watched');
    expect(events.filter((event) => event.kind === 'toolset')).toHaveLength(1);
  });

  it.each([
    ['before the open ended', false],
    ['after the open ended', true],
  ])(
    'gives each watch of the same listener its own unsubscribe (watched %s)',
    async (_when, afterOpen) => {
      const storage = await testStorage('pglite');
      const store = new DeferredStore('pglite', storage.dataDir, storage.open());
      toClose.push(store);
      if (afterOpen) await store.opened;
      const names: string[] = [];
      const listener = (event: StoreEvent): void => {
        if (event.kind === 'toolset') names.push(event.name);
      };
      const stopFirst = store.watch(listener);
      const stopSecond = store.watch(listener);
      await store.createToolset({ name: 'both' });
      expect(names).toEqual(['both', 'both']);
      stopFirst();
      // Ending a watch twice ends nothing else.
      stopFirst();
      await store.createToolset({ name: 'second' });
      expect(names).toEqual(['both', 'both', 'second']);
      stopSecond();
      await store.createToolset({ name: 'none' });
      expect(names).toEqual(['both', 'both', 'second']);
    },
  );

  it('fails every call with the reason the store could not be opened', async () => {
    const reason = new HintgateError('STORE_LOCKED', 'data directory /x is in use by pid 1');
    const store = new DeferredStore('pglite', '/x', Promise.reject(reason));
    await expect(store.listPins()).rejects.toBe(reason);
    await expect(store.opened).rejects.toBe(reason);
    await expect(store.close()).resolves.toBeUndefined();
  });

  it('closes the opened store, waiting for an open under way', async () => {
    const storage = await testStorage('pglite');
    const store = new DeferredStore('pglite', storage.dataDir, storage.open());
    await store.close();
    await expect(store.listToolsets()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
