import * as z from 'zod';
import type { MetaTool } from './define.js';
import { defineMetaTool } from './define.js';

const input = z.strictObject({});

/** `list-saved-toolsets`: the saved toolsets with their counts, and which one is equipped. */
export const listSavedToolsets: MetaTool = defineMetaTool({
  name: 'list-saved-toolsets',
  title: 'List saved toolsets',
  description:
    'List the saved toolsets: name, description, how many members, notes and overrides each has, and which one is equipped.',
  input,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(_args, ctx) {
    const equipped = ctx.toolsets.equippedName(ctx.session);
    const summaries = await ctx.toolsets.store.listToolsets();
    const toolsets = summaries.map((summary) => ({
      name: summary.name,
      description: summary.description,
      members: summary.memberCount,
      notes: summary.noteCount,
      overrides: summary.overrideCount,
      equipped: summary.name === equipped,
      ...(summary.name === ctx.toolsets.defaultToolset ? { default: true } : {}),
    }));
    const data = { equipped: equipped ?? null, toolsets };
    return {
      text: `${toolsets.length} saved toolset(s)${equipped === undefined ? ', none equipped' : `, "${equipped}" equipped`}.\n\n${JSON.stringify(data, null, 2)}`,
      data,
    };
  },
});
