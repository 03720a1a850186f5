import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTool, definitionHash, toolDefinition } from '../../src/core/pins/index.js';
import type { ToolDefinition } from '../../src/core/pins/index.js';
import type { Store, StoreEvent } from '../../src/store/store.js';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

function def(tool: Record<string, unknown>): ToolDefinition {
  return toolDefinition(tool) as ToolDefinition;
}

describe.each(STORE_KINDS)('%s store: tool pins', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  const v1 = def({ name: 'purge', annotations: { destructiveHint: true } });
  const v2 = def({ name: 'purge', annotations: { readOnlyHint: true } });

  it('saves, lists and replaces pins whole, reporting a drift change per server', async () => {
    const store: Store = shared.store();
    const server = uniqueName('s');
    const events: StoreEvent[] = [];
    const stop = store.watch((event) => events.push(event));
    await store.savePins([
      { server, tool: 'purge', status: 'pinned', hash: definitionHash(v1), definition: v1 },
    ]);
    await store.savePins([]);
    stop();
    expect(events).toEqual([{ kind: 'drift', server }]);
    const [first] = await store.listPins({ server });
    expect(first).toMatchObject({ server, tool: 'purge', status: 'pinned', definition: v1 });
    expect(first?.pending).toBeUndefined();
    const drift = compareTool(v1, v2);
    await store.savePins([
      {
        server,
        tool: 'purge',
        status: 'pending',
        hash: definitionHash(v1),
        definition: v1,
        pendingHash: definitionHash(v2),
        pending: v2,
        drift,
      },
    ]);
    const [second] = await store.listPins({ server, status: 'pending' });
    expect(second).toMatchObject({ pending: v2, drift, firstSeen: first?.firstSeen });
    // A listing without the definitions keeps the rest of the row.
    const [brief] = await store.listPins({ server, definitions: false });
    expect(brief).toEqual({ ...second, definition: undefined, pending: undefined });
    expect(brief).not.toHaveProperty('definition');
  });

  it('approves and rejects, reporting a pins change; NOT_FOUND when nothing waits', async () => {
    const store: Store = shared.store();
    const server = uniqueName('s');
    const events: StoreEvent[] = [];
    const stop = store.watch((event) => events.push(event));
    try {
      await store.savePins(
        ['a', 'b'].map((tool) => ({
          server,
          tool,
          status: 'pending' as const,
          pendingHash: definitionHash({ ...v2, name: tool }),
          pending: { ...v2, name: tool },
        })),
      );
      const rejected = await store.decidePins(
        { server, tool: 'a' },
        { action: 'reject', by: 'cli:ana', note: 'no' },
      );
      expect(rejected).toMatchObject([{ tool: 'a', status: 'rejected', decidedBy: 'cli:ana' }]);
      const approved = await store.decidePins({ server }, { action: 'approve', by: 'cli:ana' });
      expect(approved.map((pin) => [pin.tool, pin.status, pin.definition?.name])).toEqual([
        ['a', 'pinned', 'a'],
        ['b', 'pinned', 'b'],
      ]);
      expect(approved[0]?.pending).toBeUndefined();
      await expect(
        store.decidePins({ server }, { action: 'approve', by: 'cli:ana' }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect.poll(() => events.filter((event) => event.kind === 'pins').length).toBe(2);
      expect(events).toContainEqual({ kind: 'pins', server });
    } finally {
      stop();
    }
  });

  it('refuses bad input naming the field', async () => {
    const store: Store = shared.store();
    await expect(
      store.savePins([{ server: '', tool: 't', status: 'pinned', hash: 'x', definition: v1 }]),
    ).rejects.toThrow(/pins\[0\]\.server: .*pins\[0\]\.definition\.hash: must be a SHA-256/s);
    await expect(
      store.decidePins({ server: 's' }, { action: 'maybe' as 'approve', by: 'x' }),
    ).rejects.toThrow(/decision\.action: must be approve or reject/);
  });
});
