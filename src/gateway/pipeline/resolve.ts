import { HintgateError } from '../../core/errors.js';
import { DownstreamError } from '../../mcp/rpc-errors.js';
import type { Catalog } from '../catalog.js';
import type { CallScope } from '../toolsets/scope.js';
import type { ViewLookup } from '../toolsets/view.js';
import type { CallMiddleware } from './compose.js';
import type { CallContext } from './context.js';

/** A lookup that found no tool of the session's view. */
type ScopeMiss = Exclude<ViewLookup, { kind: 'tool' | 'local' }>;

/** Explains why a server whose tool was called is not serving it. */
export type DownReason = (server: string) => string;

/**
 * The configured server, not serving now and never listed, whose tool `name` would be
 * (by its `server_` or `server.` prefix), if any.
 */
export type PendingServerOf = (name: string) => string | undefined;

/** Configured servers without a prefix that are not serving now (their tools' names are unknown). */
export type UnprefixedDown = () => readonly string[];

/**
 * Why the calling principal may not reach a server at all (an `auth: per-user` server it has
 * no login to), or undefined.
 */
export type ServerRefusal = (server: string, principal: string | undefined) => Error | undefined;

/** How deeply `arguments` may nest: deeper input is refused before any step walks it. */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * What is wrong with a call's `arguments`, or undefined: they must be absent or a JSON
 * object, nested at most {@link MAX_ARGUMENT_DEPTH} deep (walked without recursion, so no
 * input can overflow the stack here).
 */
export function argumentsProblem(args: unknown): string | undefined {
  if (args === undefined) return undefined;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    const kind = args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`;
    return `arguments must be an object, got ${kind}`;
  }
  // Most calls pass flat arguments: nothing to walk, and nothing allocated to find that out.
  let nested = false;
  for (const key in args) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null) {
      nested = true;
      break;
    }
  }
  if (!nested) return undefined;
  const stack: [unknown, number][] = [[args, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, depth] = item;
    if (depth > MAX_ARGUMENT_DEPTH)
      return `arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`;
    const children = Array.isArray(value) ? value : Object.values(value as object);
    for (const child of children)
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * Finds the called tool in what the calling session sees (its toolset, or the whole
 * catalog) by flattened name (or namespaced `server.name`); the entry it sets carries the
 * overrides that apply to that session. A tool of a server that is down fails with
 * DOWNSTREAM_UNAVAILABLE and the server's reason (so does a name with the prefix of a
 * server that never came up; an unknown name while a server without a prefix is down says
 * so); a principal that cannot reach the tool's server at all (an `auth: per-user` server
 * it has no login to) gets `refusal`'s error, naming the command to log in; `arguments` that are not an object, or nest too deeply, are
 * refused with INVALID_ARGUMENTS (-32602) saying what is wrong; a tool outside the equipped toolset, and
 * any other unknown name, with UNKNOWN_TOOL naming it (JSON-RPC -32602).
 *
 * Meta tools (`equip-toolset`, …) are answered here, by the gateway itself: `ctx.entry`
 * (server `hintgate`) and `ctx.annotations` are set and `trace.stoppedBy` is `resolve`, so that
 * the steps before this one (audit) record them, and the call does not go on to policy,
 * cache, retry, route or forward (the configuration mode decides whether the model has
 * them at all). Without a `scope` every session sees the whole catalog and no meta tools.
 */
export function resolve(
  catalog: Catalog,
  downReason: DownReason,
  scope: CallScope = wholeCatalog(catalog),
  pendingServerOf: PendingServerOf = () => undefined,
  unprefixedDown: UnprefixedDown = () => [],
  refusal: ServerRefusal = () => undefined,
): CallMiddleware {
  // Not async: a call of a known tool goes on with `next()` as it is, no promise of its own.
  return function resolve(ctx, next) {
    const problem = argumentsProblem(ctx.params['arguments']);
    if (problem !== undefined) {
      ctx.trace.stoppedBy = 'resolve';
      return Promise.reject(
        new HintgateError('INVALID_ARGUMENTS', `${problem} (tool "${ctx.name}")`, {
          tool: ctx.name,
        }),
      );
    }
    const found = scope.lookup(ctx);
    if (found.kind === 'local') {
      ctx.entry = found.entry;
      ctx.annotations = found.entry.effective;
      ctx.trace.server = found.entry.server;
      ctx.trace.tool = found.entry.name;
      ctx.trace.refId = found.entry.refId;
      ctx.trace.stoppedBy = 'resolve';
      return scope.callLocal(ctx).then((result) => {
        ctx.trace.outcome = result['isError'] === true ? 'tool-error' : 'ok';
        return result;
      });
    }
    if (found.kind !== 'tool') return Promise.reject(notFound(ctx, found));
    const { entry } = found;
    ctx.entry = entry;
    ctx.trace.server = entry.server;
    ctx.trace.tool = entry.name;
    ctx.trace.refId = entry.refId;
    // Refused before policy could ask anyone to approve a call that cannot be made.
    const refused = refusal(entry.server, ctx.session.principal);
    if (refused !== undefined) {
      ctx.trace.stoppedBy = 'resolve';
      return Promise.reject(refused);
    }
    return next();
  };

  /** The error of a call whose tool the session does not see (why, as precisely as known). */
  function notFound(ctx: CallContext, found: ScopeMiss): Error {
    ctx.trace.stoppedBy = 'resolve';
    const server =
      found.kind === 'missing'
        ? (catalog.departedServerOf(ctx.name) ?? pendingServerOf(ctx.name))
        : undefined;
    if (server !== undefined) {
      return (
        refusal(server, ctx.session.principal) ??
        new DownstreamError('DOWNSTREAM_UNAVAILABLE', server, downReason(server))
      );
    }
    // A tool held back by pinning never reaches its server before a person approves it.
    const held = found.kind === 'missing' ? catalog.heldReason(ctx.name) : undefined;
    if (held !== undefined) return new HintgateError('FORBIDDEN', held, { tool: ctx.name });
    if (found.kind === 'outside') {
      return new HintgateError(
        'UNKNOWN_TOOL',
        `Unknown tool: "${ctx.name}" is not in the equipped toolset "${found.toolset}"`,
        { tool: ctx.name, toolset: found.toolset },
      );
    }
    const what = ctx.name === '' ? 'tools/call without a tool name' : `Unknown tool: "${ctx.name}"`;
    // A server serving its tools under their own names tells nothing by a prefix: say
    // which of those are down, since the tool may be one of theirs.
    const down = ctx.name === '' ? [] : unprefixedDown();
    const maybe =
      down.length === 0
        ? ''
        : `; it may be a tool of a server whose tools keep their own names: ${down.map(downReason).join('; ')}`;
    return new HintgateError('UNKNOWN_TOOL', `${what}${maybe}`, { tool: ctx.name });
  }
}

/** The scope of a gateway without toolsets: every tool, no meta tools. */
function wholeCatalog(catalog: Catalog): CallScope {
  return {
    lookup(ctx) {
      const entry = catalog.resolve(ctx.name);
      return entry === undefined ? { kind: 'missing' } : { kind: 'tool', entry };
    },
    callLocal(ctx) {
      return Promise.reject(
        new HintgateError('UNKNOWN_TOOL', `Unknown tool: "${ctx.name}"`, { tool: ctx.name }),
      );
    },
  };
}
