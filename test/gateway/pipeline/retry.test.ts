import { describe, expect, it } from 'vitest';
import { DownstreamError } from '../../../src/mcp/rpc-errors.js';
import { retry } from '../../../src/gateway/pipeline/retry.js';
import type { RetryOptions } from '../../../src/gateway/pipeline/retry.js';
import { OK, TOOLS, fakeNext, settingsOf, toolContext } from './step-helpers.js';

const FAST: RetryOptions = { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 20, factor: 2 };
const timeout = () => new DownstreamError('DOWNSTREAM_TIMEOUT', 's', 'server "s" did not answer');
const crashed = () => new DownstreamError('DOWNSTREAM_CRASHED', 's', 'server "s" crashed');

/** A `next` failing with `failures` in turn, then answering OK. */
function flaky(...failures: Error[]) {
  const next = fakeNext();
  for (const failure of failures) next.mockRejectedValueOnce(failure);
  return next;
}

describe('retry', () => {
  it('retries a read-only call after transport failures and timeouts until it succeeds', async () => {
    const next = flaky(timeout(), crashed());
    const ctx = toolContext(TOOLS.read);
    expect(await retry(settingsOf(), FAST)(ctx, next)).toEqual(OK);
    expect(next).toHaveBeenCalledTimes(3);
    expect(ctx.trace.retries).toBe(2);
  });

  it('retries an idempotent call', async () => {
    const next = flaky(timeout());
    expect(await retry(settingsOf(), FAST)(toolContext(TOOLS.idempotent), next)).toEqual(OK);
    expect(next).toHaveBeenCalledTimes(2);
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
    const next = flaky(timeout(), timeout(), crashed(), timeout());
    await expect(retry(settingsOf(), FAST)(toolContext(TOOLS.read), next)).rejects.toMatchObject({
      code: 'DOWNSTREAM_CRASHED',
    });
    expect(next).toHaveBeenCalledTimes(3);
  });

  it("waits the tool's estimated duration before the second attempt", async () => {
    const next = flaky(timeout());
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
