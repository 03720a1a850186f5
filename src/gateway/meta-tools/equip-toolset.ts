import * as z from 'zod';
import type { MetaTool } from './define.js';
import { defineMetaTool } from './define.js';
import { orphanCount, orphansJson } from './shapes.js';

const input = z.strictObject({
  name: z.string().min(1, 'must be a toolset name').describe('The saved toolset to equip'),
});

/** `equip-toolset`: this session sees only that toolset's tools (notes included) from now on. */
export const equipToolset: MetaTool = defineMetaTool({
  name: 'equip-toolset',
  title: 'Equip a toolset',
  description:
    'Equip a saved toolset: from now on the tool list holds only its tools, with their notes. Replaces the toolset equipped before, if any.',
  input,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const toolset = await ctx.toolsets.equip(ctx.session, args.name);
    const view = ctx.toolsets.view(ctx.session);
    const orphans = orphanCount(view.orphans);
    const data = {
      equipped: toolset.name,
      tools: view.entries.length,
      notes: toolset.notes.length,
      ...(orphans === 0 ? {} : { orphans: orphansJson(view.orphans) }),
    };
    return {
      text: `Equipped toolset "${toolset.name}": ${view.entries.length} tool(s), ${toolset.notes.length} note(s)${orphans === 0 ? '' : `; ${orphans} entr(y/ies) do not resolve to a tool now (kept, see orphans)`}.`,
      data,
    };
  },
});
