import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHintgateError } from '../../src/core/errors.js';
import type { Store } from '../../src/store/store.js';
import type { StoreEvent } from '../../src/store/types.js';
import { STORE_KINDS, createHarness, sharedStore, uniqueName } from './helpers/harness.js';

describe.each(STORE_KINDS)('%s store: the default toolset chosen at run time', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('is absent until chosen, then holds a toolset, none, or nothing again', async () => {
    const store = shared.store();
    await store.setDefaultToolset({ kind: 'config' });
    expect(await store.getDefaultToolset()).toBeUndefined();
    const name = uniqueName();
    await store.createToolset({ name });
    const chosen = await store.setDefaultToolset({ kind: 'toolset', name }, 'cli:alice');
    expect(chosen).toEqual({
      kind: 'toolset',
      name,
      by: 'cli:alice',
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await store.getDefaultToolset()).toEqual(chosen);
    expect(await store.setDefaultToolset({ kind: 'none' })).toMatchObject({ kind: 'none' });
    expect(await store.getDefaultToolset()).not.toHaveProperty('by');
    expect(await store.setDefaultToolset({ kind: 'config' })).toBeUndefined();
    expect(await store.getDefaultToolset()).toBeUndefined();
  });

  it('refuses a toolset that does not exist and a malformed choice, keeping what it had', async () => {
    const store = shared.store();
    await store.setDefaultToolset({ kind: 'none' });
    const missing = await store
      .setDefaultToolset({ kind: 'toolset', name: 'no-such-toolset' })
      .catch((error: unknown) => error);
    expect(isHintgateError(missing, 'NOT_FOUND')).toBe(true);
    expect((missing as Error).message).toBe('toolset "no-such-toolset" does not exist');
    const bad = await store
      .setDefaultToolset({ kind: 'toolset', name: 'Bad Name' })
      .catch((error: unknown) => error);
    expect(isHintgateError(bad, 'INPUT_INVALID')).toBe(true);
    expect((bad as Error).message).toContain('choice.name');
    const worse = await store
      .setDefaultToolset({ kind: 'whatever' } as never)
      .catch((error: unknown) => error);
    expect((worse as Error).message).toContain(
      'choice.kind: expected "toolset", "none" or "config"',
    );
    expect(await store.getDefaultToolset()).toMatchObject({ kind: 'none' });
  });

  it('reports each change as a default-toolset event', async () => {
    const store = shared.store();
    const events: StoreEvent[] = [];
    const stop = store.watch((event) => events.push(event));
    const name = uniqueName();
    await store.createToolset({ name });
    await store.setDefaultToolset({ kind: 'toolset', name });
    await store.setDefaultToolset({ kind: 'config' });
    await store.setDefaultToolset({ kind: 'toolset', name: 'absent' }).catch(() => undefined);
    stop();
    expect(events).toEqual([
      { kind: 'toolset', name },
      { kind: 'default-toolset' },
      { kind: 'default-toolset' },
    ]);
  });

  it('survives closing and reopening the store', async () => {
    const harness = await createHarness(kind);
    let store: Store = await harness.open();
    try {
      await store.createToolset({ name: 'kept' });
      await store.setDefaultToolset({ kind: 'toolset', name: 'kept' });
      await store.close();
      store = await harness.open();
      expect(await store.getDefaultToolset()).toMatchObject({ kind: 'toolset', name: 'kept' });
    } finally {
      await store.close();
      await harness.cleanup();
    }
  });
});

describe('postgres store: a default toolset chosen by another process', () => {
  const shared = sharedStore('postgres');
  let other: Store | undefined;
  beforeAll(async () => {
    await shared.setup();
    other = await shared.harness().open();
  });
  afterAll(async () => {
    await other?.close();
    await shared.teardown();
  });

  it('is announced over LISTEN/NOTIFY', async () => {
    const heard = new Promise<StoreEvent>((resolve) => {
      const stop = shared.store().watch((event) => {
        if (event.kind !== 'default-toolset') return;
        stop();
        resolve(event);
      });
    });
    await other!.setDefaultToolset({ kind: 'none' }, 'replica-b');
    expect(await heard).toEqual({ kind: 'default-toolset' });
    expect(await shared.store().getDefaultToolset()).toMatchObject({
      kind: 'none',
      by: 'replica-b',
    });
  });
});
