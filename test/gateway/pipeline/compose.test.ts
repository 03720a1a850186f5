import { describe, expect, it, vi } from 'vitest';
import type { CallMiddleware } from '../../../src/gateway/pipeline/compose.js';
import { compose, repeatsNext } from '../../../src/gateway/pipeline/compose.js';
import { contextFor } from './helpers.js';

describe('compose', () => {
  it('runs the steps as an onion: the first sees the call first and the result last', async () => {
    const order: string[] = [];
    const step =
      (name: string): CallMiddleware =>
      async (_ctx, next) => {
        order.push(`${name} in`);
        const result = await next();
        order.push(`${name} out`);
        return { ...result, [name]: true };
      };
    const terminal: CallMiddleware = () => {
      order.push('terminal');
      return Promise.resolve({ content: [] });
    };
    const result = await compose([step('outer'), step('inner'), terminal])(contextFor('x'));
    expect(order).toEqual(['outer in', 'inner in', 'terminal', 'inner out', 'outer out']);
    expect(result).toEqual({ content: [], inner: true, outer: true });
  });

  it('lets a step answer without calling the rest', async () => {
    const rest = vi.fn(() => Promise.resolve({ content: [] }));
    const deny: CallMiddleware = () =>
      Promise.resolve({ content: [{ type: 'text', text: 'denied' }], isError: true });
    expect(await compose([deny, rest])(contextFor('x'))).toMatchObject({ isError: true });
    expect(rest).not.toHaveBeenCalled();
  });

  it('fails loudly when next() is called twice or nothing answers', async () => {
    const twice: CallMiddleware = async (_ctx, next) => {
      await next();
      return next();
    };
    await expect(
      compose([twice, () => Promise.resolve({})])(contextFor('x')),
    ).rejects.toMatchObject({ code: 'PIPELINE', message: 'next() called more than once' });
    await expect(compose([async (_ctx, next) => next()])(contextFor('x'))).rejects.toMatchObject({
      code: 'PIPELINE',
      message: 'the pipeline has no terminal step',
    });
  });

  it('lets a step marked repeatsNext run the rest again once per attempt, and only it', async () => {
    let runs = 0;
    const again = repeatsNext(async (_ctx, next) => {
      await next().catch(() => undefined);
      return next();
    });
    const flaky: CallMiddleware = () => {
      runs += 1;
      return runs === 1 ? Promise.reject(new Error('first')) : Promise.resolve({ runs });
    };
    expect(await compose([again, flaky])(contextFor('x'))).toEqual({ runs: 2 });
    const twice: CallMiddleware = async (_ctx, next) => {
      await next();
      return next();
    };
    await expect(
      compose([again, twice, () => Promise.resolve({})])(contextFor('x')),
    ).rejects.toMatchObject({ message: 'next() called more than once' });
  });
});
