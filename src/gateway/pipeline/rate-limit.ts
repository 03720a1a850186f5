import { refusal } from '../call-results.js';
import type { RateLimiter } from '../rate-limiter.js';
import type { ToolSettingsTable } from '../tool-settings.js';
import type { CallMiddleware } from './compose.js';
import { requireAnnotations, requireEntry } from './context.js';
import { keepAlive } from './keep-alive.js';

/**
 * Keeps calls to a tool within its rate: the tool's `rateLimitHint` (calls per minute), or
 * the `rateLimit` config sets for it (`false`: none). A call over the limit waits for its
 * turn when that comes within `maxWaitMs` (cancellable); otherwise it is answered at once
 * with an error saying when to try again, and never calls `next`. A client that sent a
 * progress token hears progress every `progressMs` while its call waits for its turn. It
 * sits after the cache (a hit costs the server nothing) and before retry (a retried call
 * takes one turn).
 */
export function rateLimit(
  limiter: RateLimiter,
  table: ToolSettingsTable,
  { maxWaitMs, progressMs = 0 }: { readonly maxWaitMs: number; readonly progressMs?: number },
): CallMiddleware {
  // Not async: a tool without a limit goes on with `next()` as it is.
  return function rateLimit(ctx, next) {
    const entry = requireEntry(ctx);
    const configured = table.forTool(entry.server, entry.namespacedName).rateLimit;
    const perMinute =
      configured === undefined ? requireAnnotations(ctx).annotations.rateLimitHint : configured;
    if (typeof perMinute !== 'number' || !(perMinute > 0)) return next();
    const turn = limiter.take(entry.namespacedName, perMinute, maxWaitMs);
    if (!turn.ok) {
      ctx.trace.stoppedBy = 'rate-limit';
      ctx.trace.outcome = 'denied';
      const seconds = Math.max(1, Math.ceil(turn.retryAfterMs / 1000));
      return Promise.resolve(
        refusal(
          `Rate limit: ${entry.flattenedName} takes at most ${perMinute} call(s) a minute; try again in ${seconds} s.`,
          { decision: 'rate-limited', retryAfterMs: turn.retryAfterMs },
        ),
      );
    }
    if (turn.waitMs === 0) return next();
    const alive = keepAlive(
      ctx,
      `waiting for a turn: ${entry.namespacedName} takes at most ${perMinute} call(s) a minute`,
      { everyMs: progressMs, now: true },
    );
    return sleep(turn.waitMs, ctx.signal).then(
      () => {
        alive.stop();
        return next();
      },
      (error: unknown) => {
        alive.stop();
        limiter.giveBack(entry.namespacedName);
        throw error;
      },
    );
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
