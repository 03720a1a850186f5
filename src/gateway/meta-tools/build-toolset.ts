import * as z from 'zod';
import { HintgateError } from '../../core/errors.js';
import type { ToolsetMember } from '../../store/types.js';
import { TOOLSET_LIMITS, TOOLSET_NAME } from '../../store/validate.js';
import type { MetaTool } from './define.js';
import { defineMetaTool } from './define.js';

const toolChoice = z
  .strictObject({
    namespacedName: z
      .string()
      .optional()
      .describe("A tool by namespaced name, e.g. 'github.create_issue'"),
    refId: z.string().optional().describe('A tool by its refId (list-available-tools shows it)'),
    server: z.string().optional().describe('Every tool of this server, now and later'),
  })
  .superRefine((choice, ctx) => {
    const given = [choice.namespacedName, choice.refId, choice.server].filter(
      (value) => value !== undefined,
    ).length;
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: 'give exactly one of namespacedName, refId, server',
      });
    }
  });

const input = z.strictObject({
  name: z
    .string()
    .max(TOOLSET_LIMITS.nameLength, `must be at most ${TOOLSET_LIMITS.nameLength} characters`)
    .regex(
      TOOLSET_NAME,
      'must be lowercase letters, digits, "-" and "_", starting with a letter or digit',
    )
    .describe('The new toolset\'s name, e.g. "github-triage"'),
  description: z
    .string()
    .max(
      TOOLSET_LIMITS.descriptionLength,
      `must be at most ${TOOLSET_LIMITS.descriptionLength} characters`,
    )
    .optional()
    .describe('What the toolset is for'),
  tools: z
    .array(toolChoice)
    .min(1, 'must hold at least one tool or server')
    .max(TOOLSET_LIMITS.members, `must hold at most ${TOOLSET_LIMITS.members} entries`)
    .describe('The tools: each { namespacedName }, { refId } or { server }'),
  equip: z.boolean().default(false).describe('Equip the new toolset at once (default false)'),
});

/**
 * `build-toolset`: saves a new toolset from tools that exist now (each reference is checked
 * against the catalog), optionally equipping it. Creates; never replaces.
 */
export const buildToolset: MetaTool = defineMetaTool({
  name: 'build-toolset',
  title: 'Build a toolset',
  description:
    'Save a new named toolset: a chosen set of tools (by namespacedName or refId from list-available-tools, or whole servers). Notes can be added later with add-tool-annotation. Fails if the name is taken.',
  input,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, ctx) {
    const problems: string[] = [];
    const members: ToolsetMember[] = args.tools.map((choice, index) => {
      if (choice.server !== undefined) {
        if (ctx.catalog.entriesOf(choice.server).length === 0) {
          problems.push(`tools[${index}]: server "${choice.server}" has no tools in the catalog`);
        }
        return { kind: 'server', server: choice.server };
      }
      if (choice.refId !== undefined) {
        if (ctx.catalog.getByRefId(choice.refId) === undefined) {
          problems.push(`tools[${index}]: no tool has refId "${choice.refId}"`);
        }
        return { kind: 'ref', refId: choice.refId };
      }
      const name = choice.namespacedName ?? '';
      if (ctx.catalog.getByNamespacedName(name) === undefined) {
        problems.push(`tools[${index}]: no tool is named "${name}"`);
      }
      return { kind: 'tool', namespacedName: name };
    });
    if (problems.length > 0) {
      throw new HintgateError(
        'INPUT_INVALID',
        `build-toolset: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}. Use list-available-tools to see what exists.`,
      );
    }
    const store = ctx.toolsets.store;
    const created = await store.createToolset({
      name: args.name,
      ...(args.description === undefined ? {} : { description: args.description }),
      members,
    });
    if (args.equip) await ctx.toolsets.equip(ctx.session, created.name);
    const tools = ctx.toolsets.view(ctx.session);
    const count = args.equip ? tools.entries.length : undefined;
    const data = {
      toolset: created.name,
      members: created.members.length,
      equipped: args.equip,
      ...(count === undefined ? {} : { tools: count }),
    };
    return {
      text: `Saved toolset "${created.name}" with ${created.members.length} member(s)${args.equip ? ` and equipped it (${count ?? 0} tool(s))` : '; equip it with equip-toolset'}.`,
      data,
    };
  },
});
