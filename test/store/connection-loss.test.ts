import { afterAll, describe, expect, it } from 'vitest';
import { createAuditWriter } from '../../src/store/audit-writer.js';
import { openStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/store.js';
import type { StoreHarness } from './helpers/harness.js';
import { createHarness, uniqueName } from './helpers/harness.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('postgres store: connections terminated under load', () => {
  let harness: StoreHarness | undefined;
  let store: Store | undefined;
  afterAll(async () => {
    await store?.close();
    await harness?.cleanup();
  });

  it('never crashes, and keeps every audit record until the database answers again', async () => {
    harness = await createHarness('postgres');
    const app = uniqueName('hg_term');
    const { options } = harness;
    if (options.kind !== 'postgres') throw new Error('expected a PostgreSQL harness');
    store = await openStore({ ...options, applicationName: app });
    let waits = 0;
    const writer = createAuditWriter(store, {
      maxBatch: 25,
      flushIntervalMs: 2,
      retryMinMs: 10,
      retryMaxMs: 100,
      onUnavailable: () => (waits += 1),
    });
    const server = uniqueName('load');
    let terminated = 0;
    let written = 0;
    // Writers and pg_terminate_backend of every connection of this store, interleaved, until
    // at least eight terminations hit live connections and the writer had to wait.
    while ((terminated < 8 || waits < 1) && written < 20_000) {
      for (let i = 0; i < 25; i++)
        writer.write({ tool: `t${written++}`, server, decision: 'allow', outcome: 'ok' });
      await pause(1);
      if (written % 100 === 0) {
        const [row] = await harness.raw<{ n: string }>(
          `SELECT count(pg_terminate_backend(pid))::text AS n FROM pg_stat_activity
           WHERE application_name = $1 AND pid <> pg_backend_pid()`,
          [app],
        );
        terminated += Number(row?.n ?? 0);
      }
    }
    expect(terminated).toBeGreaterThanOrEqual(8);
    expect(waits).toBeGreaterThanOrEqual(1);
    // The database is left alone now: everything waiting reaches it.
    for (;;) {
      await writer.flush();
      const [row] = await harness.raw<{ n: string }>(
        'SELECT count(*)::text AS n FROM audit_log WHERE server = $1',
        [server],
      );
      if (Number(row?.n) === written) break;
      await pause(20);
    }
    expect(writer.dropped).toBe(0);
    // The store still serves.
    expect(await store.queryAudit({ server, limit: 1 })).toHaveLength(1);
  });
});
