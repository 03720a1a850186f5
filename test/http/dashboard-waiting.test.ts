import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitionHash, toolDefinition } from '../../src/core/pins/index.js';
import type { ToolDefinition } from '../../src/core/pins/index.js';
import { WaitingCounts } from '../../src/http/ui/waiting.js';
import type { Store } from '../../src/store/store.js';
import { openTestStore } from '../helpers/store.js';

describe('the counts of what waits', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore();
  });
  afterAll(() => store?.close());

  it('are read once, and again after each change the store reports', async () => {
    const reads: string[] = [];
    const counting: Store = Object.create(store, {
      listApprovals: {
        value: (...args: Parameters<Store['listApprovals']>) => (
          reads.push('approvals'),
          store.listApprovals(...args)
        ),
      },
      listPins: {
        value: (...args: Parameters<Store['listPins']>) => (
          reads.push('pins'),
          store.listPins(...args)
        ),
      },
    }) as Store;
    const counts = new WaitingCounts(counting);
    expect(await counts.get()).toEqual({ approvals: 0, pins: 0 });
    expect(await counts.get()).toEqual({ approvals: 0, pins: 0 });
    expect(reads).toEqual(['approvals', 'pins']);

    const approval = await store.createApproval({
      server: 's',
      tool: 's.rm',
      reason: 'destructive',
      timeoutMs: 60_000,
    });
    expect(await counts.get()).toEqual({ approvals: 1, pins: 0 });
    const tool = toolDefinition({ name: 'share' }) as ToolDefinition;
    await store.savePins([
      {
        server: 's',
        tool: 'share',
        status: 'pending',
        pendingHash: definitionHash(tool),
        pending: tool,
      },
    ]);
    expect(await counts.get()).toEqual({ approvals: 1, pins: 1 });
    await store.decideApproval(approval.id, { status: 'denied', by: 'test' });
    await store.decidePins({ server: 's' }, { action: 'approve', by: 'test' });
    expect(await counts.get()).toEqual({ approvals: 0, pins: 0 });
    expect(reads).toHaveLength(2 * 4);
  });
});
