import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamicRule } from '../../src/core/dynamic/rules.js';
import type { StoreEvent } from '../../src/store/types.js';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

const RULES: DynamicRule[] = [
  {
    name: 'reads',
    tool: 'files.manage_files',
    match: [{ pointer: '/action', oneOf: ['read', 'list'] }],
    set: { readOnlyHint: true },
  },
  {
    match: [{ pointer: '/sql', regex: '^\\s*vacuum', flags: 'i' }],
    set: { destructiveHint: false },
  },
];

describe.each(STORE_KINDS)('%s store: dynamic-annotation rules of a toolset', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('starts with none, and keeps the rules set in order, as written', async () => {
    const store = shared.store();
    const name = uniqueName();
    const created = await store.createToolset({ name });
    expect(created.rules).toEqual([]);
    const updated = await store.setToolsetRules(name, RULES);
    expect(updated.rules).toEqual(RULES);
    expect(updated.revision).toBe(created.revision + 1);
    expect(await store.getToolset(name)).toEqual(updated);
    const summary = (await store.listToolsets()).find((item) => item.name === name);
    expect(summary?.ruleCount).toBe(2);
  });

  it('tells watchers, and leaves the revision alone when nothing changes', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({ name });
    const events: StoreEvent[] = [];
    const stop = store.watch((event) => events.push(event));
    try {
      const first = await store.setToolsetRules(name, RULES);
      const again = await store.setToolsetRules(name, RULES);
      expect(again.revision).toBe(first.revision);
      const cleared = await store.setToolsetRules(name, []);
      expect(cleared.rules).toEqual([]);
      expect(cleared.revision).toBe(first.revision + 1);
      await expect
        .poll(() => events.filter((event) => event.kind === 'toolset' && event.name === name))
        .toHaveLength(2);
    } finally {
      stop();
    }
  });

  it('refuses bad rules naming each one, and changes nothing', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({ name });
    await store.setToolsetRules(name, RULES);
    const bad = [
      RULES[0],
      { name: 'broken', match: [{ pointer: 'action', regex: '(' }], set: { readOnlyHint: 'yes' } },
    ] as unknown as DynamicRule[];
    const failure = await store.setToolsetRules(name, bad).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'INPUT_INVALID' });
    const message = (failure as Error).message;
    expect(message).toContain('rules[1]: rule 2 ("broken"): match[0].pointer');
    expect(message).toContain('match[0].regex: invalid regular expression');
    expect(message).toContain('set.readOnlyHint');
    expect((await store.getToolset(name))?.rules).toEqual(RULES);
  });

  it('fails with NOT_FOUND for a toolset that does not exist', async () => {
    await expect(shared.store().setToolsetRules(uniqueName(), RULES)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('exports the rules and imports them back; a toolset without rules exports none', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({ name, members: [{ kind: 'server', server: 'files' }] });
    expect(await store.exportToolset(name)).not.toHaveProperty('rules');
    await store.setToolsetRules(name, RULES);
    const document = await store.exportToolset(name);
    expect(document.rules).toEqual(RULES);
    const copy = uniqueName();
    const { toolset } = await store.importToolset(JSON.parse(JSON.stringify(document)), {
      name: copy,
    });
    expect(toolset.rules).toEqual(RULES);
    // Replacing with a document without rules removes them.
    const { rules: _rules, ...without } = document;
    const replaced = await store.importToolset(without, { name: copy, replace: true });
    expect(replaced.toolset.rules).toEqual([]);
  });

  it('refuses a document whose rules are bad, naming the rule', async () => {
    const failure = await shared
      .store()
      .importToolset({
        hintgate: 'toolset',
        version: 1,
        name: uniqueName(),
        members: [],
        rules: [{ match: [], set: {} }],
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'INPUT_INVALID' });
    expect((failure as Error).message).toMatch(/rules\[0\]: rule 1: match: expected at least one/);
  });
});
