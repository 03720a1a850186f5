import { HintgateError } from '../../core/errors.js';
import type { DownstreamCallOptions } from '../../downstream/downstream.js';
import { callerOf } from '../../front/session.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { CallMiddleware } from './compose.js';
import type { CallContext, CallTarget } from './context.js';
import { requireEntry } from './context.js';
import { keepAlive } from './keep-alive.js';

/** The downstream connection of a server, by name. */
export type TargetLookup = (server: string) => CallTarget | undefined;

/** Timeouts of the server behind a tool. */
export type CallTimeout = (server: string) => number;

/** How a tool's `estimatedDuration` sets its default timeout (`policy.timeouts`). */
export interface EstimatedTimeout {
  /** The timeout is the estimate times this, or `false` to leave estimates out of it. */
  readonly estimateFactor: number | false;
  /** And at least this long, */
  readonly minMs: number;
  /** and at most this long. */
  readonly maxMs: number;
}

/**
 * The timeout of a call: the one config sets for the tool (`configured`, from a policy
 * rule), else from the tool's `estimatedDuration` (times `estimateFactor`, within `minMs` and
 * `maxMs`), else the server's call timeout.
 */
export function callTimeoutMs(
  configured: number | undefined,
  estimatedDuration: unknown,
  serverMs: number,
  estimate: EstimatedTimeout | undefined,
): number {
  if (configured !== undefined) return configured;
  if (
    estimate === undefined ||
    estimate.estimateFactor === false ||
    typeof estimatedDuration !== 'number' ||
    !(estimatedDuration > 0)
  )
    return serverMs;
  const fromEstimate = Math.ceil(estimatedDuration * estimate.estimateFactor);
  return Math.min(estimate.maxMs, Math.max(estimate.minMs, fromEstimate));
}

/**
 * The terminal step: sends the call to the chosen downstream (or the tool's own server) under
 * the tool's original name, with the client's arguments, `_meta`, retry fields, cancellation
 * and progress, and returns the server's result as it came (era-neutral). The timeout is the
 * one config sets for the tool (`ctx.timeoutMs`, from policy), else the tool's
 * `estimatedDuration` times `estimate.estimateFactor` (within its bounds), else the
 * server's call timeout (see {@link callTimeoutMs}). While the server says nothing, a client
 * that sent a progress token hears progress every `progressMs` (0: never), so a slow tool
 * does not outlast a client that restarts its timeout on progress.
 */
export function forward(
  targets: TargetLookup,
  timeoutOf: CallTimeout,
  estimate?: EstimatedTimeout,
  progressMs = 0,
): CallMiddleware {
  // Not async: the server's answer's promise is the step's, with one `then`.
  return function forward(ctx) {
    const entry = requireEntry(ctx);
    const target = ctx.target ?? targets(entry.server);
    if (target === undefined) {
      return Promise.reject(
        new HintgateError('PIPELINE', `no downstream connection for server "${entry.server}"`),
      );
    }
    const ownTimeoutMs = callTimeoutMs(
      ctx.timeoutMs,
      ctx.annotations?.annotations.estimatedDuration,
      timeoutOf(entry.server),
      estimate,
    );
    // A retried call stays within its budget (the client's own timeout).
    const timeoutMs =
      ctx.deadline === undefined
        ? ownTimeoutMs
        : Math.max(1, Math.min(ownTimeoutMs, ctx.deadline - Date.now()));
    const params: JsonObject = { ...ctx.params, name: entry.name };
    const options: DownstreamCallOptions = {
      signal: ctx.signal,
      timeoutMs,
      onProgress: ctx.progress,
      clientCapabilities: ctx.session.clientCapabilities,
      relay: ctx.relay,
      onLog: ctx.log,
      caller: callerOf(ctx.session),
      logLevel: ctx.logLevel,
      principal: ctx.session.principal,
    };
    const called =
      ctx.keepAlive === undefined || progressMs <= 0
        ? target.callTool(params, options)
        : callKeptAlive(ctx, target, params, options, progressMs);
    return called.then((result) => {
      ctx.trace.outcome =
        result['resultType'] === 'input_required'
          ? 'input-required'
          : result['isError'] === true
            ? 'tool-error'
            : 'ok';
      return result;
    });
  };
}

/** A call whose client hears progress whenever the server has said nothing for a while. */
async function callKeptAlive(
  ctx: CallContext,
  target: CallTarget,
  params: JsonObject,
  options: DownstreamCallOptions,
  everyMs: number,
): Promise<JsonObject> {
  const server = requireEntry(ctx).server;
  const alive = keepAlive(ctx, `waiting for server "${server}" to answer`, { everyMs });
  const progress = options.onProgress;
  try {
    return await target.callTool(params, {
      ...options,
      onProgress:
        progress === undefined
          ? undefined
          : (update) => {
              alive.touch();
              progress(update);
            },
    });
  } finally {
    alive.stop();
  }
}
