import { describe, expect, it } from 'vitest';
import { whenQuiet } from '../../src/cli/quiet.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps the event loop busy (short turns, as a gateway serving calls) until `until`. */
async function busyUntil(until: number): Promise<void> {
  while (Date.now() < until) {
    const turn = Date.now() + 5;
    while (Date.now() < turn) {
      // spinning: a turn of work
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('whenQuiet', () => {
  it('runs the task once the event loop has been idle for a span', async () => {
    let ran = 0;
    whenQuiet(() => ran++, { spanMs: 50 });
    await sleep(300);
    expect(ran).toBe(1);
  });

  it('waits while the event loop is busy, and runs the task after', async () => {
    let ranAt: number | undefined;
    whenQuiet(() => (ranAt = Date.now()), { spanMs: 50 });
    const busyEnd = Date.now() + 400;
    await busyUntil(busyEnd);
    expect(ranAt).toBeUndefined();
    await sleep(300);
    expect(ranAt).toBeGreaterThanOrEqual(busyEnd);
  });

  it('never runs a cancelled task', async () => {
    let ran = 0;
    const cancel = whenQuiet(() => ran++, { spanMs: 30 });
    cancel();
    await sleep(200);
    expect(ran).toBe(0);
  });
});
