import * as z from 'zod';
import type { MetaTool } from './define.js';
import { defineMetaTool } from './define.js';

const input = z.strictObject({});

/** `unequip-toolset`: back to every tool; the toolset and its notes stay saved. */
export const unequipToolset: MetaTool = defineMetaTool({
  name: 'unequip-toolset',
  title: 'Unequip the toolset',
  description:
    'Unequip the current toolset: the tool list shows every available tool again. The toolset and its notes stay saved.',
  input,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  run(_args, ctx) {
    const previous = ctx.toolsets.unequip(ctx.session);
    return Promise.resolve({
      text:
        previous === undefined
          ? 'No toolset was equipped.'
          : `Unequipped toolset "${previous}"; every available tool is listed again.`,
      data: { unequipped: previous ?? null },
    });
  },
});
