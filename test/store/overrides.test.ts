import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

describe.each(STORE_KINDS)('%s store: annotation overrides', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('merges fields into a global override, field by field', async () => {
    const store = shared.store();
    const tool = { namespacedName: `${uniqueName('srv')}.delete_repo` };
    await store.setOverride(tool, { destructiveHint: true, title: 'Delete' });
    const merged = await store.setOverride(tool, { requiresConfirmation: true, title: 'Remove' });
    expect(merged.annotations).toEqual({
      destructiveHint: true,
      title: 'Remove',
      requiresConfirmation: true,
    });
    expect(merged.toolset).toBeUndefined();
    const global = await store.getGlobalOverrides();
    expect(global.find((override) => override.tool.namespacedName === tool.namespacedName)).toEqual(
      merged,
    );
    expect(await store.listOverrides()).toEqual(global);
  });

  it('keeps toolset overrides apart from global ones and in the toolset', async () => {
    const store = shared.store();
    const toolset = uniqueName();
    await store.createToolset({ name: toolset });
    const tool = { refId: 'abcdefabcdef0123' };
    const inToolset = await store.setOverride(tool, { readOnlyHint: true }, { toolset });
    expect(inToolset).toMatchObject({ toolset, tool, annotations: { readOnlyHint: true } });
    await store.setOverride(tool, { costHint: 3 });
    const read = await store.getToolset(toolset);
    expect(read?.overrides).toEqual([inToolset]);
    expect(read?.revision).toBe(2);
    expect(await store.listOverrides({ toolset })).toEqual([inToolset]);
    const global = (await store.getGlobalOverrides()).find((o) => o.tool.refId === tool.refId);
    expect(global?.annotations).toEqual({ costHint: 3 });
  });

  it('unsets some fields, then all, and answers NOT_FOUND when there is nothing', async () => {
    const store = shared.store();
    const tool = { namespacedName: `${uniqueName('srv')}.x`, refId: '1111222233334444' };
    await store.setOverride(tool, { readOnlyHint: false, idempotentHint: true, tags: ['a'] });
    const remaining = await store.unsetOverride(tool, { fields: ['idempotentHint', 'nope'] });
    expect(remaining?.annotations).toEqual({ readOnlyHint: false, tags: ['a'] });
    expect(await store.unsetOverride(tool, { fields: ['readOnlyHint', 'tags'] })).toBeUndefined();
    expect((await store.getGlobalOverrides()).some((o) => o.tool.refId === tool.refId)).toBe(false);
    await store.setOverride(tool, { readOnlyHint: true });
    expect(await store.unsetOverride(tool)).toBeUndefined();
    await expect(store.unsetOverride(tool)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `tool ${tool.namespacedName} (ref 1111222233334444) has no annotation override globally`,
    });
  });

  it('treats references with different parts as different overrides', async () => {
    const store = shared.store();
    const name = `${uniqueName('srv')}.tool`;
    await store.setOverride({ namespacedName: name }, { readOnlyHint: true });
    await store.setOverride({ namespacedName: name, refId: '9999888877776666' }, { costHint: 1 });
    const mine = (await store.getGlobalOverrides()).filter((o) => o.tool.namespacedName === name);
    expect(mine.map((o) => o.annotations)).toEqual([{ readOnlyHint: true }, { costHint: 1 }]);
  });

  it('refuses unknown fields, bad values and contradictions, naming the field', async () => {
    const store = shared.store();
    const tool = { namespacedName: `${uniqueName('srv')}.t` };
    await expect(
      store.setOverride(tool, { readonlyHint: true, destructiveHint: 'yes' } as never),
    ).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      details: {
        issues: [
          {
            path: 'annotations.readonlyHint',
            message: expect.stringContaining('is not an annotation field'),
          },
          {
            path: 'annotations.destructiveHint',
            message: expect.stringContaining('must be true or false'),
          },
        ],
      },
    });
    await store.setOverride(tool, { readOnlyHint: true });
    // Valid alone, contradictory once merged with what is stored.
    await expect(store.setOverride(tool, { destructiveHint: true })).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: expect.stringContaining(
        'annotations.destructiveHint: readOnlyHint and destructiveHint are both true',
      ),
    });
    const stored = (await store.getGlobalOverrides()).find(
      (o) => o.tool.namespacedName === tool.namespacedName,
    );
    expect(stored?.annotations).toEqual({ readOnlyHint: true });
    await expect(store.setOverride(tool, {})).rejects.toMatchObject({ code: 'INPUT_INVALID' });
  });

  it('survives concurrent first writes to the same override', async () => {
    const store = shared.store();
    const tool = { namespacedName: `${uniqueName('srv')}.race` };
    await Promise.all([
      store.setOverride(tool, { costHint: 1 }),
      store.setOverride(tool, { rateLimitHint: 10 }),
      store.setOverride(tool, { estimatedDuration: 5 }),
    ]);
    const stored = (await store.getGlobalOverrides()).filter(
      (o) => o.tool.namespacedName === tool.namespacedName,
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]?.annotations).toEqual({
      costHint: 1,
      rateLimitHint: 10,
      estimatedDuration: 5,
    });
  });
});
