import type { CallMiddleware } from './compose.js';
import { requireEntry } from './context.js';

/**
 * Sets the annotations that hold for this call: the tool's effective annotations. (A later
 * step refines them per call from `tools/annotations` answers and rules: dynamic values.)
 */
export function annotate(): CallMiddleware {
  return async function annotate(ctx, next) {
    ctx.annotations = requireEntry(ctx).effective;
    return next();
  };
}
