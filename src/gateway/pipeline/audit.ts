import type { CallMiddleware } from './compose.js';
import type { CallContext, CallToolResult } from './context.js';

/** A call as it ended: what the audit log is written from. */
export interface FinishedCall {
  readonly ctx: CallContext;
  /** When it ended (epoch ms). */
  readonly endedAt: number;
  readonly result: CallToolResult | undefined;
  /** What it threw, if it threw. */
  readonly error: unknown;
}

/** Takes finished calls without waiting (the audit log batches and writes them later). */
export interface CallRecorder {
  record(call: FinishedCall): void;
}

/**
 * The outermost step: records every call as it ends (answered, refused by a later step, or
 * failed) with the recorder, which must not wait: building the record and writing it to the
 * store happen later, off the call's path. Results and errors pass through unchanged.
 */
export function audit(recorder: CallRecorder, now: () => number = Date.now): CallMiddleware {
  // Not async: one `then` instead of an async function's own promise.
  return function audit(ctx, next) {
    return next().then(
      (result) => {
        recorder.record({ ctx, endedAt: now(), result, error: undefined });
        return result;
      },
      (error: unknown) => {
        recorder.record({ ctx, endedAt: now(), result: undefined, error });
        throw error;
      },
    );
  };
}
