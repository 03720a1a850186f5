import { describe, expect, it, vi } from 'vitest';
import { CALL_META_KEY } from '../../../src/gateway/call-results.js';
import { rateLimit } from '../../../src/gateway/pipeline/rate-limit.js';
import { RateLimiter } from '../../../src/gateway/rate-limiter.js';
import { OK, fakeNext, settingsOf, toolContext } from './step-helpers.js';

const LIMITED = { name: 'get_quote', annotations: { readOnlyHint: true, rateLimitHint: 3 } };

describe('RateLimiter', () => {
  it("allows a minute's worth at once, then one call per 60/limit seconds", () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    expect([1, 2, 3].map(() => limiter.take('t', 3, 0).ok)).toEqual([true, true, true]);
    expect(limiter.take('t', 3, 0)).toEqual({ ok: false, retryAfterMs: 20_000 });
    now = 20_000;
    expect(limiter.take('t', 3, 0)).toEqual({ ok: true, waitMs: 0 });
    expect(limiter.take('t', 3, 30_000)).toEqual({ ok: true, waitMs: 20_000 });
    expect(limiter.take('t', 3, 30_000)).toEqual({ ok: false, retryAfterMs: 40_000 });
    expect(limiter.take('other', 3, 0).ok).toBe(true);
  });
});

describe('rateLimit', () => {
  it("refuses a call over the tool's rateLimitHint at once, never calling next", async () => {
    const step = rateLimit(new RateLimiter(), settingsOf(), { maxWaitMs: 0 });
    const next = fakeNext();
    for (let i = 0; i < 3; i++) await step(toolContext(LIMITED), next);
    const ctx = toolContext(LIMITED);
    const result = await step(ctx, next);
    expect(next).toHaveBeenCalledTimes(3);
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Rate limit: s_get_quote takes at most 3 call(s) a minute; try again in 20 s.',
        },
      ],
      _meta: { [CALL_META_KEY]: { decision: 'rate-limited' } },
    });
    expect(ctx.trace).toMatchObject({ stoppedBy: 'rate-limit', outcome: 'denied' });
  });

  it('makes a call wait for its turn when it comes soon enough', async () => {
    // Timed from before the bucket is emptied: the next turn comes 100 ms after its first
    // take (600 a minute), however long the emptying takes (a slow machine's 14 ms made the
    // wait after it 86 ms).
    const started = performance.now();
    const limiter = new RateLimiter();
    for (let i = 0; i < 600; i++) limiter.take('s.get_quote', 600, 0);
    const step = rateLimit(limiter, settingsOf({ tools: { 's.get_quote': { rateLimit: 600 } } }), {
      maxWaitMs: 1_000,
    });
    const next = fakeNext();
    await step(toolContext(LIMITED), next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('tells a client with a progress token that its call waits for a turn, until it runs', async () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 60; i++) limiter.take('s.get_quote', 60, 0);
    const step = rateLimit(limiter, settingsOf({ tools: { 's.get_quote': { rateLimit: 60 } } }), {
      maxWaitMs: 5_000,
      progressMs: 20,
    });
    const heard: string[] = [];
    let heardWhenRun = -1;
    const next = vi.fn(() => {
      heardWhenRun = heard.length;
      return Promise.resolve(OK);
    });
    await step(toolContext(LIMITED, { keepAlive: (message) => heard.push(message) }), next);
    // Said when it starts waiting, and again while it waits (a second at 20 ms).
    expect(heardWhenRun).toBeGreaterThanOrEqual(2);
    expect(heard[0]).toBe('waiting for a turn: s.get_quote takes at most 60 call(s) a minute');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(heard).toHaveLength(heardWhenRun);
  });

  it('lets config replace or remove the limit, and leaves tools without one alone', async () => {
    const next = fakeNext();
    const off = rateLimit(
      new RateLimiter(),
      settingsOf({ tools: { 's.get_quote': { rateLimit: false } } }),
      { maxWaitMs: 0 },
    );
    for (let i = 0; i < 10; i++) await off(toolContext(LIMITED), next);
    const free = rateLimit(new RateLimiter(), settingsOf(), { maxWaitMs: 0 });
    for (let i = 0; i < 10; i++) await free(toolContext({ name: 'get_x' }), next);
    expect(next).toHaveBeenCalledTimes(20);
    const tighter = rateLimit(new RateLimiter(), settingsOf({ servers: { s: { rateLimit: 1 } } }), {
      maxWaitMs: 0,
    });
    expect((await tighter(toolContext({ name: 'get_x' }), next))['isError']).toBeUndefined();
    expect((await tighter(toolContext({ name: 'get_x' }), next))['isError']).toBe(true);
  });

  it('gives a waiting call its turn back when it is cancelled', async () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    for (let i = 0; i < 3; i++) limiter.take('s.get_quote', 3, 0);
    const controller = new AbortController();
    const step = rateLimit(limiter, settingsOf(), { maxWaitMs: 60_000 });
    const waiting = step(toolContext(LIMITED, { signal: controller.signal }), fakeNext());
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    now = 20_000;
    expect(limiter.take('s.get_quote', 3, 0).ok).toBe(true);
  });
});
