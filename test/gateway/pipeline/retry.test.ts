import { describe, expect, it } from 'vitest';
import { DownstreamError } from '../../../src/mcp/rpc-errors.js';
import { retry } from '../../../src/gateway/pipeline/retry.js';
import type { RetryOptions } from '../../../src/gateway/pipeline/retry.js';
import { OK, TOOLS, fakeNext, settingsOf, toolContext } from './step-helpers.js';

const FAST: RetryOptions = {
  maxAttempts: 3,
  initialDelayMs: 1,
  maxDelayMs: 20,
  factor: 2,
  totalMs: 50_000,
};
const timeout = () => new DownstreamError('DOWNSTREAM_TIMEOUT', 's', 'server "s" did not answer');
const crashed = () => new DownstreamError('DOWNSTREAM_CRASHED', 's', 'server "s" crashed');

/** A `next` failing with `failures` in turn, then answering OK. */
function flaky(...failures: Error[]) {
  const next = fakeNext();
  for (const failure of failures) next.mockRejectedValueOnce(failure);
  return next;
}

describe('retry', () => {
  it('retries a read-only call after transport failures until it succeeds', async () => {
    const unavailable = new DownstreamError('DOWNSTREAM_UNAVAILABLE', 's', 'server "s" is down');
    const next = flaky(unavailable, crashed());
    const ctx = toolContext(TOOLS.read);
    expect(await retry(settingsOf(), FAST)(ctx, next)).toEqual(OK);
    expect(next).toHaveBeenCalledTimes(3);
    expect(ctx.trace.retries).toBe(2);
  });

  it('retries an idempotent call', async () => {
    const next = flaky(crashed());
    expect(await retry(settingsOf(), FAST)(toolContext(TOOLS.idempotent), next)).toEqual(OK);
    expect(next).toHaveBeenCalledTimes(2);
  });

  it('never retries a timeout unless the tool is declared idempotent and config says so', async () => {
    // Read-only (idempotence only implied), declared idempotent, each with and without config.
    const onTimeout = settingsOf({ retry: { onTimeout: true } });
    for (const [tool, settings] of [
      [TOOLS.read, settingsOf()],
      [TOOLS.read, onTimeout],
      [TOOLS.idempotent, settingsOf()],
    ] as const) {
      const next = flaky(timeout());
      await expect(retry(settings, FAST)(toolContext(tool), next)).rejects.toMatchObject({
        code: 'DOWNSTREAM_TIMEOUT',
      });
      expect(next).toHaveBeenCalledTimes(1);
    }
    const next = flaky(timeout());
    expect(await retry(onTimeout, FAST)(toolContext(TOOLS.idempotent), next)).toEqual(OK);
    expect(next).toHaveBeenCalledTimes(2);
    // A rule can ask for it for one tool.
    const rule = settingsOf({ tools: { 's.tag_item': { retryOnTimeout: true } } });
    const again = flaky(timeout());
    expect(await retry(rule, FAST)(toolContext(TOOLS.idempotent), again)).toEqual(OK);
  });

  it("keeps every attempt within the budget, each attempt's timeout cut to what is left", async () => {
    const budget = { ...FAST, maxAttempts: 10, initialDelayMs: 40, maxDelayMs: 40, factor: 1 };
    const ctx = toolContext(TOOLS.read);
    const deadlines: (number | undefined)[] = [];
    const next = fakeNext();
    next.mockImplementation(() => {
      deadlines.push(ctx.deadline);
      return Promise.reject(crashed());
    });
    const started = ctx.trace.startedAt;
    await expect(retry(settingsOf(), { ...budget, totalMs: 300 })(ctx, next)).rejects.toThrow(
      'crashed',
    );
    expect(Date.now() - started).toBeLessThan(600);
    // Waits of 40-80 ms in a 300 ms budget: fewer than the ten attempts allowed.
    expect(next.mock.calls.length).toBeGreaterThan(1);
    expect(next.mock.calls.length).toBeLessThan(10);
    expect(new Set(deadlines)).toEqual(new Set([started + 300]));
  });

  it('never repeats a destructive, non-idempotent or unannotated call that fails', async () => {
    for (const tool of [TOOLS.write, TOOLS.unannotated]) {
      const next = flaky(timeout());
      await expect(retry(settingsOf(), FAST)(toolContext(tool), next)).rejects.toMatchObject({
        code: 'DOWNSTREAM_TIMEOUT',
      });
      expect(next).toHaveBeenCalledTimes(1);
    }
    // Deleting by id is idempotent (inferred), but a call that may destroy is never repeated.
    const destructive = flaky(crashed());
    const ctx = toolContext(TOOLS.destructive);
    expect(ctx.annotations?.annotations.idempotentHint).toBe(true);
    await expect(retry(settingsOf(), FAST)(ctx, destructive)).rejects.toThrow('crashed');
    expect(destructive).toHaveBeenCalledTimes(1);
  });

  it("never retries a tool's own error result or a server's JSON-RPC error", async () => {
    const toolError = fakeNext({ content: [], isError: true });
    expect(await retry(settingsOf(), FAST)(toolContext(TOOLS.read), toolError)).toMatchObject({
      isError: true,
    });
    expect(toolError).toHaveBeenCalledTimes(1);
    const rpc = flaky(
      new DownstreamError('DOWNSTREAM_PROTOCOL', 's', 'bad', { code: -32602, message: 'bad' }),
    );
    await expect(retry(settingsOf(), FAST)(toolContext(TOOLS.read), rpc)).rejects.toThrow('bad');
    expect(rpc).toHaveBeenCalledTimes(1);
  });

  it('gives up after the configured attempts with the last failure', async () => {
    const next = flaky(crashed(), crashed(), timeout(), crashed());
    const onTimeout = settingsOf({ retry: { onTimeout: true } });
    await expect(retry(onTimeout, FAST)(toolContext(TOOLS.idempotent), next)).rejects.toMatchObject(
      { code: 'DOWNSTREAM_TIMEOUT' },
    );
    expect(next).toHaveBeenCalledTimes(3);
  });

  it("waits the tool's estimated duration before the second attempt", async () => {
    const next = flaky(crashed());
    const ctx = toolContext({
      name: 'get_report',
      annotations: { readOnlyHint: true, estimatedDuration: 120 },
    });
    const started = performance.now();
    await retry(settingsOf(), { ...FAST, maxDelayMs: 1_000 })(ctx, next);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('stops when the call is cancelled, and when config turns it off', async () => {
    const controller = new AbortController();
    const next = fakeNext();
    next.mockImplementationOnce(() => {
      controller.abort(new Error('cancelled'));
      return Promise.reject(timeout());
    });
    await expect(
      retry(settingsOf(), FAST)(toolContext(TOOLS.read, { signal: controller.signal }), next),
    ).rejects.toMatchObject({ code: 'DOWNSTREAM_TIMEOUT' });
    expect(next).toHaveBeenCalledTimes(1);
    const off = flaky(timeout());
    await expect(
      retry(settingsOf({ retry: { enabled: false } }), FAST)(toolContext(TOOLS.read), off),
    ).rejects.toThrow();
    expect(off).toHaveBeenCalledTimes(1);
  });
});
