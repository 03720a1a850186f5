import { describe, expect, it } from 'vitest';
import { whenQuiet } from '../../src/cli/quiet.js';
import { busyFor, sleep } from '../helpers/event-loop.js';

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
    await busyFor(400);
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
