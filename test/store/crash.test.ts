import { afterAll, describe, expect, it } from 'vitest';
import { spawnStoreChild } from './helpers/child.js';
import type { StoreHarness } from './helpers/harness.js';
import { STORE_KINDS, createHarness } from './helpers/harness.js';

const children: { kill: (signal: NodeJS.Signals) => boolean }[] = [];
const harnesses: StoreHarness[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const harness of harnesses) await harness.cleanup();
});

describe.each(STORE_KINDS)('%s store: a writer killed with SIGKILL', (kind) => {
  it('leaves every committed write whole and nothing half-written', async () => {
    const harness = await createHarness(kind);
    harnesses.push(harness);
    const writer = spawnStoreChild('write-loop', harness.options);
    children.push(writer.process);
    await writer.waitFor(/^ready$/);
    // Let it commit a few dozen iterations, then kill it wherever it is.
    await writer.waitFor(/^30$/, 60_000);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
    writer.process.kill('SIGKILL');
    expect((await writer.exited).signal).toBe('SIGKILL');
    const acknowledged = Math.max(...writer.lines.filter((l) => /^\d+$/.test(l)).map(Number));

    const store = await harness.open();
    try {
      const crashSets = (await store.listToolsets()).filter((t) => t.name.startsWith('crash-'));
      // Every acknowledged iteration is there; at most the one in flight beyond it.
      expect(crashSets.length).toBeGreaterThanOrEqual(acknowledged + 1);
      expect(crashSets.length).toBeLessThanOrEqual(acknowledged + 2);
      for (const summary of crashSets) {
        expect(summary, summary.name).toMatchObject({
          memberCount: 3,
          noteCount: 2,
          overrideCount: 1,
        });
      }
      const audit = await store.queryAudit({ limit: 10_000 });
      expect(audit.length % 5).toBe(0);
      expect(audit.length / 5).toBeGreaterThanOrEqual(acknowledged + 1);
      // The store still takes writes.
      await store.createToolset({ name: 'after-crash' });
      expect(await store.getToolset('after-crash')).toBeDefined();
    } finally {
      await store.close();
    }
  });
});
