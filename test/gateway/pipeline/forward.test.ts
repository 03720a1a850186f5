import { describe, expect, it } from 'vitest';
import type { DownstreamCallOptions } from '../../../src/mcp/downstream.js';
import type { JsonObject } from '../../../src/mcp/json-rpc.js';
import { annotate } from '../../../src/gateway/pipeline/annotate.js';
import { compose } from '../../../src/gateway/pipeline/compose.js';
import type { CallTarget } from '../../../src/gateway/pipeline/context.js';
import { forward } from '../../../src/gateway/pipeline/forward.js';
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

  it('gives a tool whose estimated duration exceeds the timeout that long', async () => {
    const down = target({ content: [] });
    const catalog = catalogWith({ name: 'build', annotations: { estimatedDuration: 90_000 } });
    await compose([
      resolve(catalog, () => ''),
      annotate(),
      forward(
        () => down,
        () => 5000,
      ),
    ])(contextFor('s_build'));
    expect(down.calls[0]?.options.timeoutMs).toBe(90_000);
  });

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
