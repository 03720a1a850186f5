import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { StoreEvent } from '../../src/store/types.js';
import { STORE_KINDS, pgQuery, sharedStore, uniqueName } from './helpers/harness.js';

/** Collects events and waits for one that matches. */
function recorder(store: Store): {
  events: StoreEvent[];
  next: (match: (event: StoreEvent) => boolean, timeoutMs?: number) => Promise<StoreEvent>;
  stop: () => void;
} {
  const events: StoreEvent[] = [];
  const waiters = new Set<() => void>();
  const stop = store.watch((event) => {
    events.push(event);
    for (const wake of [...waiters]) wake();
  });
  return {
    events,
    stop,
    next: (match, timeoutMs = 5_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = events.find(match);
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event in ${timeoutMs} ms; got ${JSON.stringify(events)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

describe.each(STORE_KINDS)('%s store: change feed', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('reports committed changes to toolsets, overrides and approvals, and nothing else', async () => {
    const store = shared.store();
    const watch = recorder(store);
    const name = uniqueName();
    await store.createToolset({ name });
    await store.addNotes(name, { namespacedName: 'a.b' }, [{ name: 'n', note: 'x' }]);
    await store.setOverride({ namespacedName: 'a.b' }, { readOnlyHint: true }, { toolset: name });
    await store.setOverride({ namespacedName: 'a.b' }, { readOnlyHint: true });
    const approval = await store.createApproval({
      server: 'a',
      tool: 'a.b',
      reason: 'test',
      timeoutMs: 60_000,
    });
    await store.decideApproval(approval.id, { status: 'denied', by: 'me' });
    await store.getToolset(name);
    await store.appendAudit([{ tool: 'a_b', decision: 'allow', outcome: 'ok' }]);
    await store.createToolset({ name }).catch(() => undefined);
    await store.addNotes(name, { namespacedName: 'a.b' }, [{ name: 'n', note: 'skipped' }]);
    watch.stop();
    await store.deleteToolset(name);
    expect(watch.events).toEqual([
      { kind: 'toolset', name },
      { kind: 'toolset', name },
      { kind: 'toolset', name },
      { kind: 'overrides' },
      { kind: 'approval', id: approval.id, status: 'pending' },
      { kind: 'approval', id: approval.id, status: 'denied' },
    ]);
  });

  it('keeps delivering to other listeners when one throws', async () => {
    const store = shared.store();
    store.watch(() => {
      throw new Error('bad listener');
    });
    const watch = recorder(store);
    await store.setOverride({ namespacedName: 'x.y' }, { costHint: 1 });
    expect(watch.events).toEqual([{ kind: 'overrides' }]);
    watch.stop();
  });

  it('makes each watch of the same listener its own, ended by its own unsubscribe', async () => {
    const store = shared.store();
    let calls = 0;
    const listener = (event: StoreEvent): void => {
      if (event.kind === 'overrides') calls++;
    };
    const stopFirst = store.watch(listener);
    const stopSecond = store.watch(listener);
    await store.setOverride({ namespacedName: 'w.twice' }, { costHint: 1 });
    expect(calls).toBe(2);
    stopFirst();
    stopFirst();
    await store.setOverride({ namespacedName: 'w.twice' }, { costHint: 2 });
    expect(calls).toBe(3);
    stopSecond();
    await store.setOverride({ namespacedName: 'w.twice' }, { costHint: 3 });
    expect(calls).toBe(3);
  });
});

describe('postgres store: changes from other processes', () => {
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

  it('reach another store instance over LISTEN/NOTIFY, once each', async () => {
    const watcher = recorder(shared.store());
    const own = recorder(other!);
    const name = uniqueName();
    await other!.createToolset({ name });
    await watcher.next((event) => event.kind === 'toolset' && event.name === name);
    const approval = await other!.createApproval({
      server: 'a',
      tool: 'a.b',
      reason: 'test',
      timeoutMs: 60_000,
    });
    await shared.store().decideApproval(approval.id, { status: 'approved', by: 'replica-a' });
    await own.next(
      (event) =>
        event.kind === 'approval' && event.id === approval.id && event.status === 'approved',
    );
    await other!.setOverride({ namespacedName: 'a.b' }, { readOnlyHint: true });
    await watcher.next((event) => event.kind === 'overrides');
    // What a gateway's re-check found, for the dashboards of the other gateways.
    const server = uniqueName('s');
    await other!.savePins([
      { server, tool: 't', status: 'pending', pendingHash: 'a'.repeat(64), pending: { name: 't' } },
    ]);
    await watcher.next((event) => event.kind === 'drift' && event.server === server);
    // A store hears its own changes directly, not a second time through NOTIFY.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(own.events.filter((event) => event.kind === 'toolset')).toEqual([
      { kind: 'toolset', name },
    ]);
    watcher.stop();
    own.stop();
  });

  it('reconnects its listener after losing it, says so, and keeps listening', async () => {
    const watcher = recorder(shared.store());
    const options = shared.harness().options;
    const channel = options.kind === 'postgres' ? `hintgate_changes_${options.schema}` : '';
    await pgQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'hintgate listener' AND query LIKE $1`,
      [`%${channel}%`],
    );
    await watcher.next((event) => event.kind === 'resync', 10_000);
    const name = uniqueName();
    await other!.createToolset({ name });
    await watcher.next((event) => event.kind === 'toolset' && event.name === name);
    watcher.stop();
  });
});
