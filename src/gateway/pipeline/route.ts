import { effectiveHint } from '../../core/annotations/safety.js';
import type { ToolAnnotations } from '../../core/annotations/types.js';
import { DownstreamError } from '../../mcp/rpc-errors.js';
import type { ReplicaGroup, RouteKind } from '../replicas.js';
import type { CallMiddleware, Next } from './compose.js';
import type { CallContext, CallToolResult } from './context.js';
import { requireAnnotations, requireEntry } from './context.js';
import { isTransportFailure } from './retry.js';

/** The replicas of a server that has several; undefined for a server with one connection. */
export type ReplicaLookup = (server: string) => ReplicaGroup | undefined;

/** How a call is routed, from what it may do. */
export function routeKindOf(annotations: ToolAnnotations): RouteKind {
  if (effectiveHint(annotations, 'readOnlyHint')) return 'read';
  if (effectiveHint(annotations, 'destructiveHint')) return 'destructive';
  return effectiveHint(annotations, 'idempotentHint') ? 'idempotent' : 'write';
}

/**
 * Picks the replica that serves the call, for servers with several (others go on as they
 * are): read-only calls to the healthy replica with the fewest calls in flight, destructive
 * ones only to a primary (weight >= 50), idempotent ones preferring `caching` replicas,
 * other writes by weight. It counts calls in flight and feeds each replica's circuit
 * breaker: a transport failure or timeout counts against it, any answer (a tool error
 * included) for it. With no replica able to take the call it fails with
 * DOWNSTREAM_UNAVAILABLE, which `retry` may retry.
 */
export function route(replicasOf: ReplicaLookup): CallMiddleware {
  return function route(ctx, next) {
    const entry = requireEntry(ctx);
    const group = replicasOf(entry.server);
    // Not async: a server with one connection goes on with `next()` as it is.
    return group === undefined ? next() : routed(ctx, next, group);
  };
}

async function routed(ctx: CallContext, next: Next, group: ReplicaGroup): Promise<CallToolResult> {
  const entry = requireEntry(ctx);
  const kind = routeKindOf(requireAnnotations(ctx).annotations);
  const replica = group.pick(kind);
  if (replica === undefined) {
    ctx.trace.stoppedBy = 'route';
    throw new DownstreamError(
      'DOWNSTREAM_UNAVAILABLE',
      entry.server,
      kind === 'destructive'
        ? `no primary replica of server "${entry.server}" is available (calls that may destroy go only to replicas of weight 50 or more)`
        : `no replica of server "${entry.server}" is available`,
    );
  }
  ctx.target = replica.target;
  ctx.trace.replica = replica.name;
  replica.inFlight += 1;
  replica.calls += 1;
  try {
    const result = await next();
    group.succeeded(replica);
    return result;
  } catch (error) {
    if (isTransportFailure(error) && !ctx.signal.aborted) group.failed(replica);
    else if (!ctx.signal.aborted) group.succeeded(replica);
    throw error;
  } finally {
    replica.inFlight -= 1;
  }
}
