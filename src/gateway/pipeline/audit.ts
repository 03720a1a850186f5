import { isJsonObject } from '../../mcp/json-rpc.js';
import type { CallMiddleware } from './compose.js';
import type { CallContext, CallToolResult } from './context.js';

/** A call as it ended: what the audit log is written from. */
export interface FinishedCall {
  readonly ctx: CallContext;
  /** When it ended (epoch ms). */
  readonly endedAt: number;
  /** What the record needs of its result, if it had one ({@link summaryOf}). */
  readonly result: ResultSummary | undefined;
  /** What it threw, if it threw. */
  readonly error: unknown;
}

/**
 * What an audit record needs of a call's result. The result itself is not kept: a finished
 * call waits for its record to be built (50 ms, `audit-log.ts`), and its result waiting with
 * it (a server's whole answer) was, under load, a large part of what every young-generation
 * collection copied.
 */
export interface ResultSummary {
  /** `isError: true`. */
  readonly isError: boolean;
  /** `resultType: "input_required"` (a 2026 server asking for input). */
  readonly inputRequired: boolean;
  /** The sentence of a refusal hintgate answered instead of the server's result. */
  readonly refusal?: string;
}

const OK_SUMMARY: ResultSummary = { isError: false, inputRequired: false };
const ERROR_SUMMARY: ResultSummary = { isError: true, inputRequired: false };
const INPUT_SUMMARY: ResultSummary = { isError: false, inputRequired: true };

/** The summary of `result`, the result of the call `ctx` (shared objects, but for refusals). */
export function summaryOf(ctx: CallContext, result: CallToolResult): ResultSummary {
  if (result['resultType'] === 'input_required') return INPUT_SUMMARY;
  if (result['isError'] !== true) return OK_SUMMARY;
  if (ctx.trace.stoppedBy === undefined) return ERROR_SUMMARY;
  const content = result['content'];
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  return isJsonObject(first) && typeof first['text'] === 'string'
    ? { isError: true, inputRequired: false, refusal: first['text'] }
    : ERROR_SUMMARY;
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
        recorder.record({ ctx, endedAt: now(), result: summaryOf(ctx, result), error: undefined });
        return result;
      },
      (error: unknown) => {
        recorder.record({ ctx, endedAt: now(), result: undefined, error });
        throw error;
      },
    );
  };
}
