import { describe, expect, it, vi } from 'vitest';
import type { DownstreamCallOptions } from '../../../src/downstream/downstream.js';
import type { JsonObject } from '../../../src/mcp/json-rpc.js';
import { annotate } from '../../../src/gateway/pipeline/annotate.js';
import { compose } from '../../../src/gateway/pipeline/compose.js';
import type { CallTarget } from '../../../src/gateway/pipeline/context.js';
import { callTimeoutMs, forward } from '../../../src/gateway/pipeline/forward.js';
import { resolve } from '../../../src/gateway/pipeline/resolve.js';
import { catalogWith, contextFor } from './helpers.js';

/** A downstream connection that records calls and answers with `answer`. */
function target(
  answer: JsonObject,
): CallTarget & { calls: { params: JsonObject; options: DownstreamCallOptions }[] } {
  const calls: { params: JsonObject; options: DownstreamCallOptions }[] = [];
  return {
    name: 's',
    calls,
    callTool: (params, options) => {
      calls.push({ params, options });
      return Promise.resolve(answer);
    },
  };
}

describe('forward', () => {
  it('calls the server under the tool original name with everything the client sent', async () => {
    const down = target({ content: [{ type: 'text', text: 'ok' }], extra: 1 });
    const run = compose([
      resolve(catalogWith({ name: 'get_user' }), () => ''),
      annotate(),
      forward(
        () => down,
        () => 5000,
      ),
    ]);
    const ctx = contextFor(
      's_get_user',
      { id: 7 },
      { _meta: { progressToken: 'p', trace: 'x' }, inputResponses: { a: 1 }, requestState: 'st' },
    );
    expect(await run(ctx)).toEqual({ content: [{ type: 'text', text: 'ok' }], extra: 1 });
    expect(down.calls[0]?.params).toEqual({
      name: 'get_user',
      arguments: { id: 7 },
      _meta: { progressToken: 'p', trace: 'x' },
      inputResponses: { a: 1 },
      requestState: 'st',
    });
    expect(down.calls[0]?.options).toMatchObject({
      timeoutMs: 5000,
      signal: ctx.signal,
      clientCapabilities: { elicitation: {} },
    });
    expect(ctx.trace.outcome).toBe('ok');
  });

  it('keeps a client with a progress token hearing while the server says nothing, not while it does', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const heard: string[] = [];
      const relayed: JsonObject[] = [];
      let speak: ((update: JsonObject) => void) | undefined;
      let finish: (() => void) | undefined;
      const slow: CallTarget = {
        name: 's',
        callTool: (_params, options) => {
          speak = options.onProgress;
          return new Promise((resolve) => {
            finish = () => resolve({ content: [] });
          });
        },
      };
      const run = compose([
        resolve(catalogWith({ name: 'get_user' }), () => ''),
        annotate(),
        forward(
          () => slow,
          () => 60_000,
          undefined,
          20,
        ),
      ]);
      const base = contextFor('s_get_user', {}, { _meta: { progressToken: 'p' } });
      const running = run({
        ...base,
        progress: (update: JsonObject) => relayed.push(update),
        keepAlive: (message: string) => heard.push(message),
      });
      while (speak === undefined) await new Promise((resolve) => setImmediate(resolve));
      vi.advanceTimersByTime(20);
      expect(heard).toEqual(['waiting for server "s" to answer']);
      // A period in which the server reported progress adds nothing.
      speak?.({ progress: 1 });
      vi.advanceTimersByTime(20);
      expect(heard).toHaveLength(1);
      expect(relayed).toEqual([{ progress: 1 }]);
      vi.advanceTimersByTime(20);
      expect(heard).toHaveLength(2);
      finish?.();
      await running;
      vi.advanceTimersByTime(100);
      expect(heard).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("times a tool out after a multiple of its estimatedDuration, instead of the server's timeout", async () => {
    const timeoutFor = async (annotations: Record<string, unknown>) => {
      const down = target({ content: [] });
      await compose([
        resolve(catalogWith({ name: 'build', annotations }), () => ''),
        annotate(),
        forward(
          () => down,
          () => 60_000,
          { estimateFactor: 5, minMs: 5_000, maxMs: 3_600_000 },
        ),
      ])(contextFor('s_build'));
      return down.calls[0]?.options.timeoutMs;
    };
    expect(await timeoutFor({ estimatedDuration: 90_000 })).toBe(450_000);
    expect(await timeoutFor({ estimatedDuration: 100 })).toBe(5_000);
    expect(await timeoutFor({ estimatedDuration: 86_400_000 })).toBe(3_600_000);
    expect(await timeoutFor({ estimatedDuration: 0 })).toBe(60_000);
    expect(await timeoutFor({})).toBe(60_000);
  });

  it.each([
    [undefined, 90_000, 5_000, { estimateFactor: 2, minMs: 1, maxMs: 10 ** 6 }, 180_000],
    [1234, 90_000, 5_000, { estimateFactor: 2, minMs: 1, maxMs: 10 ** 6 }, 1234],
    [undefined, 90_000, 5_000, { estimateFactor: false, minMs: 1, maxMs: 10 ** 6 }, 5_000],
    [undefined, 90_000, 5_000, undefined, 5_000],
    [undefined, 'soon', 5_000, { estimateFactor: 2, minMs: 1, maxMs: 10 ** 6 }, 5_000],
  ] as const)(
    'callTimeoutMs(%s, %s, %s, %o) is %s',
    (configured, estimated, serverMs, estimate, expected) => {
      expect(callTimeoutMs(configured, estimated, serverMs, estimate)).toBe(expected);
    },
  );

  it('uses the timeout config set for the tool instead of both', async () => {
    const down = target({ content: [] });
    const ctx = contextFor('s_build');
    await compose([
      resolve(catalogWith({ name: 'build', annotations: { estimatedDuration: 90_000 } }), () => ''),
      annotate(),
      async (c, next) => {
        c.timeoutMs = 1234;
        return next();
      },
      forward(
        () => down,
        () => 5000,
      ),
    ])(ctx);
    expect(down.calls[0]?.options.timeoutMs).toBe(1234);
  });

  it('uses the downstream a step chose, and records tool errors and input requests in the trace', async () => {
    const chosen = target({ content: [], isError: true });
    const ctx = contextFor('s_get_user');
    await compose([
      resolve(catalogWith({ name: 'get_user' }), () => ''),
      async (c, next) => {
        c.target = chosen;
        return next();
      },
      forward(
        () => undefined,
        () => 1000,
      ),
    ])(ctx);
    expect(chosen.calls).toHaveLength(1);
    expect(ctx.trace.outcome).toBe('tool-error');
    const asking = contextFor('s_get_user');
    await compose([
      resolve(catalogWith({ name: 'get_user' }), () => ''),
      forward(
        () => target({ resultType: 'input_required' }),
        () => 1000,
      ),
    ])(asking);
    expect(asking.trace.outcome).toBe('input-required');
  });

  it('fails loudly without a connection for the server', async () => {
    await expect(
      compose([
        resolve(catalogWith({ name: 'x' }), () => ''),
        forward(
          () => undefined,
          () => 1,
        ),
      ])(contextFor('s_x')),
    ).rejects.toMatchObject({ code: 'PIPELINE' });
  });
});
