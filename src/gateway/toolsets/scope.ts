import { HintgateError } from '../../core/errors.js';
import type { MetaTool } from '../meta-tools/define.js';
import type { Catalog } from '../catalog.js';
import type { CallContext, CallToolResult } from '../pipeline/context.js';
import type { ToolsetService } from './service.js';
import type { ViewLookup } from './view.js';

/**
 * What the `resolve` step needs from toolsets: what a called name means for the calling
 * session (a tool of its view, a meta tool, a tool outside its toolset, nothing), and how
 * to run a meta tool, which the gateway answers itself.
 */
export interface CallScope {
  lookup(ctx: CallContext): ViewLookup;
  callLocal(ctx: CallContext): Promise<CallToolResult>;
}

/** The call scope over the toolset service and the meta tools. */
export function createCallScope(
  toolsets: ToolsetService,
  catalog: Catalog,
  metaTools: ReadonlyMap<string, MetaTool>,
): CallScope {
  return {
    lookup: (ctx) => toolsets.view(ctx.session).lookup(ctx.name),
    async callLocal(ctx) {
      const tool = metaTools.get(ctx.name);
      if (tool === undefined) {
        throw new HintgateError('UNKNOWN_TOOL', `Unknown tool: "${ctx.name}"`, {
          tool: ctx.name,
        });
      }
      return tool.call(ctx.params['arguments'], {
        session: ctx.session,
        toolsets,
        catalog,
        signal: ctx.signal,
      });
    },
  };
}
