import { DynamicResolver } from '../dynamic/resolver.js';
import type { CatalogEntry } from '../catalog-entry.js';
import type { CallMiddleware, Next } from './compose.js';
import type { CallContext, CallToolResult } from './context.js';
import { requireEntry } from './context.js';

/**
 * Sets the annotations that hold for this call, before policy, cache, retry and route act
 * on them. A static tool's are its effective annotations, as listed (no work). A dynamic
 * tool's are refined for the call's arguments (source `dynamic`, with reasons) by its
 * server's own answer, a rule or a built-in classifier, within the bounds of its static
 * annotations; when nothing applies, or its server fails to answer, the listed worst case
 * holds; the provenance's reasons say which.
 * Without a resolver, no server is ever asked (rules and classifiers still apply).
 */
export function annotate(
  resolver: DynamicResolver = new DynamicResolver(noServer),
): CallMiddleware {
  // Not async: a static tool's call goes on with `next()` as it is, no promise of its own.
  return function annotate(ctx, next) {
    const entry = requireEntry(ctx);
    if (entry.dynamic === undefined) {
      ctx.annotations = entry.effective;
      return next();
    }
    return refine(resolver, entry, ctx, next);
  };
}

/** Sets a dynamic tool's annotations for the call's arguments, then runs the rest. */
async function refine(
  resolver: DynamicResolver,
  entry: CatalogEntry,
  ctx: CallContext,
  next: Next,
): Promise<CallToolResult> {
  const found = await resolver.resolve(entry, ctx.params['arguments'], ctx.signal);
  ctx.annotations = found.annotations;
  ctx.trace.dynamic =
    found.fallback !== undefined ? 'fallback' : (found.resolution?.origin ?? 'none');
  const refused = found.resolution?.adjustments.filter((item) => item.action === 'uncorroborated');
  if (refused !== undefined && refused.length > 0) {
    // Recorded in the audit log: the server claimed "safer" and nothing of ours agreed.
    ctx.trace.disagreement = `uncorroborated server answer: ${refused.map((item) => `${item.field}: ${String(item.resolved)}`).join(', ')} (static values kept)`;
  }
  return next();
}

function noServer(server: string): Promise<never> {
  return Promise.reject(new Error(`no connection to server "${server}"`));
}
