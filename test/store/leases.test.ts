import { describe, expect, it } from 'vitest';
import { LeaseLocks } from '../../src/store/leases.js';

describe('LeaseLocks', () => {
  it('lets one holder of a name at a time, the others in the order they asked', async () => {
    const locks = new LeaseLocks();
    const order: string[] = [];
    const first = await locks.acquire('a');
    const waiting = [
      locks.with('a', () => Promise.resolve(order.push('second'))),
      locks.with('a', () => Promise.resolve(order.push('third'))),
    ];
    // Another name is not held up.
    await locks.with('b', () => Promise.resolve(order.push('other name')));
    order.push('first done');
    locks.release(first);
    await Promise.all(waiting);
    expect(order).toEqual(['other name', 'first done', 'second', 'third']);
  });

  it('drops a lease never released, so a holder that died blocks nobody for good', async () => {
    const locks = new LeaseLocks(20);
    await locks.acquire('a');
    const next = await locks.acquire('a');
    locks.release(next);
    // Releasing an unknown or spent lease changes nothing.
    locks.release(next);
    locks.release('no such lease');
    expect(await locks.with('a', () => Promise.resolve('free'))).toBe('free');
  });
});
