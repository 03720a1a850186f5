import pRetry, { AbortError } from 'p-retry';
import { effectiveHint, isSafeToRetry } from '../../core/annotations/safety.js';
import type { EffectiveAnnotations } from '../../core/annotations/effective.js';
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
  /** Every attempt and wait of a call within this from its start (the client's timeout). */
  readonly totalMs: number;
}

/**
 * Failures on the way to a server, as opposed to the server's own answer. A timeout is not
 * one: the call may still be running (see {@link isTimeout}).
 */
const TRANSPORT_FAILURES: ReadonlySet<HintgateErrorCode> = new Set<HintgateErrorCode>([
  'DOWNSTREAM_CRASHED',
  'DOWNSTREAM_UNAVAILABLE',
  'DOWNSTREAM_PROTOCOL',
]);

/**
 * True for a transport failure: a `DownstreamError` of a transport code that is not the
 * server's own JSON-RPC error (which is an answer, like an `isError` result).
 */
export function isTransportFailure(error: unknown): error is DownstreamError {
  return (
    error instanceof DownstreamError &&
    error.rpc === undefined &&
    TRANSPORT_FAILURES.has(error.code)
  );
}

/** True for a call that got no answer in time (it may still run on the server). */
export function isTimeout(error: unknown): error is DownstreamError {
  return (
    error instanceof DownstreamError &&
    error.rpc === undefined &&
    error.code === 'DOWNSTREAM_TIMEOUT'
  );
}

/** An attempt needs at least this much of the budget left to be made. */
const MIN_ATTEMPT_MS = 100;

/** Sources that are statements (the server's, the config's), not hintgate's guesses. */
const STATED = new Set(['declared', 'server-default', 'override']);

/** True when the tool's idempotence was stated (declared, a server default or an override). */
export function declaredIdempotent(effective: EffectiveAnnotations): boolean {
  const idempotent = effective.provenance['idempotentHint'];
  return idempotent?.value === true && STATED.has(idempotent.source);
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
 * Repeats a call that failed on the way (a transport failure: the server crashed, was
 * unavailable, broke the protocol) when repeating it is safe: the effective annotations say
 * read-only, or idempotent and not destructive, and config does not turn retry off for the
 * tool. A timeout is repeated only when the tool is declared idempotent (not inferred, not
 * implied) and config says so (`retry.onTimeout` or a rule's `retryOnTimeout`): the timed-out
 * call may still be running. Exponential backoff with jitter (p-retry), at most `maxAttempts`
 * attempts, all of them and their waits within `totalMs` of the call's start (each attempt's
 * timeout cut to what is left; no attempt starts when its wait would use it up). The first
 * wait is the tool's `estimatedDuration` when it has one. A tool's own `isError` result, a
 * server's JSON-RPC error, a cancelled call, and any call that is not safe to repeat are
 * reported as they are, never repeated. It sits outside `route`, so each attempt may go to
 * another replica. The first attempt costs nothing extra.
 */
export function retry(table: ToolSettingsTable, options: RetryOptions): CallMiddleware {
  // Not async: a call that may not be repeated goes on with `next()` as it is.
  return repeatsNext(function retry(ctx, next): Promise<CallToolResult> {
    const entry = requireEntry(ctx);
    const effective = requireAnnotations(ctx);
    const annotations = effective.annotations;
    const settings = table.forTool(entry.server, entry.namespacedName);
    if (options.maxAttempts < 2 || !isRepeatable(annotations) || !settings.retry) return next();
    const onTimeout = settings.retryOnTimeout && declaredIdempotent(effective);
    const deadline = ctx.trace.startedAt + options.totalMs;
    ctx.deadline = deadline;
    // The first attempt costs one `catch`; the rest is made only after it failed.
    return next().catch((error: unknown) =>
      retrying(ctx, next, annotations, options, onTimeout, deadline, error),
    );
  });
}

/** The attempts after a first one that failed with `error` (thrown on when not retryable). */
function retrying(
  ctx: CallContext,
  next: Next,
  annotations: ToolAnnotations,
  options: RetryOptions,
  onTimeout: boolean,
  deadline: number,
  error: unknown,
): Promise<CallToolResult> {
  const retryable = (thrown: unknown): thrown is DownstreamError =>
    isTransportFailure(thrown) || (onTimeout && isTimeout(thrown));
  if (ctx.signal.aborted || !retryable(error))
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  let failed: DownstreamError = error;
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
      // Too little of the budget left for an attempt worth making: the last failure stands.
      if (deadline - Date.now() < MIN_ATTEMPT_MS) return Promise.reject(new AbortError(failed));
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
      onFailedAttempt: ({ error }) => {
        if (error instanceof DownstreamError) failed = error;
      },
      shouldRetry: ({ error }) => !ctx.signal.aborted && retryable(error),
      // Waits are cut short at the budget's end (and then no attempt is made).
      maxRetryTime: Math.max(0, deadline - Date.now()),
    },
  );
}
