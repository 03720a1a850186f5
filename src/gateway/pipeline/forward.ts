import { HintgateError } from '../../core/errors.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { CallMiddleware } from './compose.js';
import type { CallTarget } from './context.js';
import { requireEntry } from './context.js';

/** The downstream connection of a server, by name. */
export type TargetLookup = (server: string) => CallTarget | undefined;

/** Timeouts of the server behind a tool. */
export type CallTimeout = (server: string) => number;

/**
 * The terminal step: sends the call to the chosen downstream (or the tool's own server) under
 * the tool's original name, with the client's arguments, `_meta`, retry fields, cancellation
 * and progress, and returns the server's result as it came (era-neutral). A tool whose
 * `estimatedDuration` exceeds the configured call timeout gets that long instead; a timeout
 * that config sets for the tool (`ctx.timeoutMs`, from policy) replaces both.
 */
export function forward(targets: TargetLookup, timeoutOf: CallTimeout): CallMiddleware {
  return async function forward(ctx) {
    const entry = requireEntry(ctx);
    const target = ctx.target ?? targets(entry.server);
    if (target === undefined) {
      throw new HintgateError('PIPELINE', `no downstream connection for server "${entry.server}"`);
    }
    const estimated = ctx.annotations?.annotations.estimatedDuration;
    const configured = timeoutOf(entry.server);
    const timeoutMs =
      ctx.timeoutMs ??
      (typeof estimated === 'number' && estimated > configured ? estimated : configured);
    const params: JsonObject = { ...ctx.params, name: entry.name };
    const result = await target.callTool(params, {
      signal: ctx.signal,
      timeoutMs,
      onProgress: ctx.progress,
      clientCapabilities: ctx.session.clientCapabilities,
      relay: ctx.relay,
    });
    ctx.trace.outcome =
      result['resultType'] === 'input_required'
        ? 'input-required'
        : result['isError'] === true
          ? 'tool-error'
          : 'ok';
    return result;
  };
}
