import { HintgateError } from '../../core/errors.js';
import { DownstreamError } from '../../mcp/errors.js';
import type { Catalog } from '../catalog.js';
import type { CallMiddleware } from './compose.js';

/** Explains why a server whose tool was called is not serving it. */
export type DownReason = (server: string) => string;

/**
 * Finds the called tool in the catalog by flattened name (or namespaced `server.name`). A
 * tool of a server that is down fails with DOWNSTREAM_UNAVAILABLE and the server's reason;
 * any other unknown name with UNKNOWN_TOOL naming it (JSON-RPC -32602).
 */
export function resolve(catalog: Catalog, downReason: DownReason): CallMiddleware {
  return async function resolve(ctx, next) {
    const entry = catalog.resolve(ctx.name);
    if (entry === undefined) {
      ctx.trace.stoppedBy = 'resolve';
      const server = catalog.departedServerOf(ctx.name);
      if (server !== undefined) {
        throw new DownstreamError('DOWNSTREAM_UNAVAILABLE', server, downReason(server));
      }
      const what =
        ctx.name === '' ? 'tools/call without a tool name' : `Unknown tool: "${ctx.name}"`;
      throw new HintgateError('UNKNOWN_TOOL', what, { tool: ctx.name });
    }
    ctx.entry = entry;
    ctx.trace.server = entry.server;
    ctx.trace.tool = entry.name;
    ctx.trace.refId = entry.refId;
    return next();
  };
}
