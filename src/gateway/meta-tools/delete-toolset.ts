import * as z from 'zod';
import type { MetaTool } from './define.js';
import { defineMetaTool } from './define.js';

const input = z.strictObject({
  name: z.string().min(1, 'must be a toolset name').describe('The saved toolset to delete'),
  confirm: z
    .literal(true, 'must be true: deleting a toolset also deletes its notes and overrides')
    .describe('Must be true: the toolset, its notes and its overrides are deleted for good'),
});

/** `delete-toolset`: deletes a saved toolset with its notes and overrides. Destructive. */
export const deleteToolset: MetaTool = defineMetaTool({
  name: 'delete-toolset',
  title: 'Delete a toolset',
  description:
    'Delete a saved toolset with its notes and overrides, for good (set confirm to true). Sessions that had it equipped see every tool again.',
  input,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const wasEquipped = ctx.toolsets.equippedName(ctx.session) === args.name;
    await ctx.toolsets.store.deleteToolset(args.name);
    await ctx.toolsets.refresh(args.name);
    return {
      text: `Deleted toolset "${args.name}" with its notes and overrides${wasEquipped ? '; it was equipped, so every available tool is listed again' : ''}.`,
      data: { deleted: args.name, wasEquipped },
    };
  },
});
