import * as z from 'zod';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { MetaTool } from './define.js';
import { defineMetaTool } from './define.js';
import { orphanCount, orphansJson } from './shapes.js';

const input = z.strictObject({});

/**
 * `get-active-toolset`: the equipped toolset: its tools with their notes and overrides, and
 * what does not resolve now (orphaned members, notes and overrides). Read-only.
 */
export const getActiveToolset: MetaTool = defineMetaTool({
  name: 'get-active-toolset',
  title: 'Get the active toolset',
  description:
    'Show the equipped toolset: its tools (namespacedName, refId, name in the tool list), their notes and overridden annotations, and any member, note or override whose tool cannot be found now (orphaned; kept until the tool comes back).',
  input,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  run(_args, ctx) {
    const view = ctx.toolsets.view(ctx.session);
    const resolved = view.resolved;
    if (resolved === undefined) {
      const data = {
        equipped: null,
        tools: view.entries.length,
        ...(ctx.toolsets.defaultToolset === undefined
          ? {}
          : { default: ctx.toolsets.defaultToolset }),
      };
      return Promise.resolve({
        text: `No toolset is equipped: all ${view.entries.length} available tool(s) are listed. Use list-saved-toolsets and equip-toolset to choose one.`,
        data,
      });
    }
    const { toolset } = resolved;
    const tools = view.entries.map((entry) => {
      const meta = (entry.listed['_meta'] as JsonObject)['dev.hintgate/tool'] as JsonObject;
      const notes = toolset.notes
        .filter(
          (note) =>
            note.tool.namespacedName === entry.namespacedName || note.tool.refId === entry.refId,
        )
        .map((note) => ({ name: note.name, note: note.note }));
      const overridden = meta['overrides'] as Record<string, string> | undefined;
      const overrides: JsonObject = {};
      for (const field of Object.keys(overridden ?? {})) {
        overrides[field] = entry.effective.annotations[field];
      }
      return {
        name: entry.flattenedName,
        namespacedName: entry.namespacedName,
        refId: entry.refId,
        ...(notes.length === 0 ? {} : { notes }),
        ...(overridden === undefined ? {} : { overrides, overrideScopes: overridden }),
      };
    });
    const orphans = orphanCount(view.orphans);
    const data = {
      equipped: toolset.name,
      description: toolset.description,
      revision: toolset.revision,
      members: toolset.members as unknown as JsonObject[],
      tools,
      orphans: orphansJson(view.orphans),
    };
    return Promise.resolve({
      text: `Toolset "${toolset.name}" is equipped: ${tools.length} tool(s), ${toolset.notes.length} note(s)${orphans === 0 ? '' : `, ${orphans} orphaned entr(y/ies) (their tool cannot be found now; kept)`}.\n\n${JSON.stringify(data, null, 2)}`,
      data,
    });
  },
});
