import pRetry from 'p-retry';
import { effectiveHint, isSafeToRetry } from '../../core/annotations/safety.js';
import type { ToolAnnotations } from '../../core/annotations/types.js';
import type { HintgateErrorCode } from '../../core/errors.js';
import { DownstreamError } from '../../mcp/rpc-errors.js';
import type { ToolSettingsTable } from '../tool-settings.js';
import { repeatsNext } from './compose.js';
import type { CallMiddleware, Next } from './compose.js';
import type { CallContext, CallToolResult } from './context.js';
import { requireAnnotations, requireEntry } from './context.js';

/** How failed calls are retried (the `policy.retry` section). */
export interface RetryOptions {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
}

/** Failures on the way to a server, as opposed to the server's own answer. */
const TRANSPORT_FAILURES: ReadonlySet<HintgateErrorCode> = new Set<HintgateErrorCode>([
  'DOWNSTREAM_TIMEOUT',
  'DOWNSTREAM_CRASHED',
  'DOWNSTREAM_UNAVAILABLE',
  'DOWNSTREAM_PROTOCOL',
]);

/**
 * True for a transport failure or timeout: a `DownstreamError` of a transport code that is
 * not the server's own JSON-RPC error (which is an answer, like an `isError` result).
 */
export function isTransportFailure(error: unknown): error is DownstreamError {
  return (
    error instanceof DownstreamError &&
    error.rpc === undefined &&
    TRANSPORT_FAILURES.has(error.code)
  );
}

/**
 * True when a failed call may be repeated: it is read-only, or idempotent and not
 * destructive (`isSafeToRetry`, and a call that may destroy is never repeated even when
 * repeating it is said to change nothing more).
 */
export function isRepeatable(annotations: ToolAnnotations): boolean {
  return (
    isSafeToRetry(annotations) &&
    (effectiveHint(annotations, 'readOnlyHint') || !effectiveHint(annotations, 'destructiveHint'))
  );
}

/**
 * Repeats a call that failed on the way (transport failure or timeout) when repeating it is
 * safe: the effective annotations say read-only, or idempotent and not destructive, and
 * config does not turn retry off for the tool. Exponential backoff with jitter (p-retry), at most `maxAttempts`
 * attempts; the first wait is the tool's `estimatedDuration` when it has one. A tool's own
 * `isError` result, a server's JSON-RPC error, a cancelled call, and any call that is not
 * safe to repeat are reported as they are, never repeated. It sits outside `route`, so each
 * attempt may go to another replica. The first attempt costs nothing extra.
 */
export function retry(table: ToolSettingsTable, options: RetryOptions): CallMiddleware {
  // Not async: a call that may not be repeated goes on with `next()` as it is.
  return repeatsNext(function retry(ctx, next): Promise<CallToolResult> {
    const entry = requireEntry(ctx);
    const annotations = requireAnnotations(ctx).annotations;
    if (
      options.maxAttempts < 2 ||
      !isRepeatable(annotations) ||
      !table.forTool(entry.server, entry.namespacedName).retry
    )
      return next();
    return retrying(ctx, next, annotations, options);
  });
}

async function retrying(
  ctx: CallContext,
  next: Next,
  annotations: ToolAnnotations,
  options: RetryOptions,
): Promise<CallToolResult> {
  let failed: DownstreamError;
  try {
    return await next();
  } catch (error) {
    if (ctx.signal.aborted || !isTransportFailure(error)) throw error;
    failed = error;
  }
  const estimated = annotations.estimatedDuration;
  const initial =
    typeof estimated === 'number' && estimated > 0
      ? Math.min(estimated, options.maxDelayMs)
      : options.initialDelayMs;
  // p-retry runs the attempts after the first: the first, already failed, is replayed as
  // its first failure so that its backoff and checks apply from there.
  return pRetry(
    (attempt) => {
      if (attempt === 1) return Promise.reject(failed);
      ctx.trace.retries = attempt - 1;
      return next();
    },
    {
      retries: options.maxAttempts - 1,
      factor: options.factor,
      minTimeout: initial,
      maxTimeout: options.maxDelayMs,
      randomize: true,
      signal: ctx.signal,
      shouldRetry: ({ error }) => !ctx.signal.aborted && isTransportFailure(error),
    },
  );
}
