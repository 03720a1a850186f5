import { HintgateError } from '../../core/errors.js';
import type { CallContext, CallToolResult } from './context.js';

/** Runs the rest of the pipeline. */
export type Next = () => Promise<CallToolResult>;

/** One step of the call path: does its job, then calls `next` (or answers without it). */
export interface CallMiddleware {
  (ctx: CallContext, next: Next): Promise<CallToolResult>;
  /**
   * The step may call `next` again after an earlier call settled (a retry runs the steps
   * after it once per attempt). For any other step a second call is a bug.
   */
  readonly repeatsNext?: boolean;
}

/** Marks a step as one that calls `next` once per attempt (see {@link CallMiddleware}). */
export function repeatsNext(
  step: (ctx: CallContext, next: Next) => Promise<CallToolResult>,
): CallMiddleware {
  return Object.assign(step, { repeatsNext: true });
}

/**
 * Composes steps into one handler, the first wrapping all the others (an onion): a step sees
 * the call before the later ones and their result after them. Calling `next` twice (except
 * from a step marked {@link repeatsNext}), or a pipeline without a terminal step, is a bug
 * and fails loudly.
 */
export function compose(
  steps: readonly CallMiddleware[],
): (ctx: CallContext) => Promise<CallToolResult> {
  return (ctx) => {
    let last = -1;
    // Not an async function: the steps return promises already, and the hot path saves one
    // promise per step. Misuse still surfaces as a rejection, never a synchronous throw.
    const dispatch = (index: number): Promise<CallToolResult> => {
      if (index <= last && steps[index - 1]?.repeatsNext !== true)
        return Promise.reject(new HintgateError('PIPELINE', 'next() called more than once'));
      last = index;
      const step = steps[index];
      if (step === undefined)
        return Promise.reject(new HintgateError('PIPELINE', 'the pipeline has no terminal step'));
      try {
        return step(ctx, () => dispatch(index + 1));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    return dispatch(0);
  };
}
