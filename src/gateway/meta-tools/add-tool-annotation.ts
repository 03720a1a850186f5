import * as z from 'zod';
import { HintgateError } from '../../core/errors.js';
import { validateNote } from '../../core/notes/notes.js';
import { describeToolRef, resolveRef } from '../toolsets/resolve.js';
import type { MetaTool } from './define.js';
import { defineMetaTool } from './define.js';

/**
 * Exactly the input schema of the tool-annotations requirements (hypertool's), so that
 * agents written for it work unchanged. Bounds (note length, notes per tool) are checked
 * after parsing, with messages naming the note.
 */
const input = z.object({
  toolRef: z
    .object({
      namespacedName: z
        .string()
        .describe("Tool reference by namespaced name (e.g., 'linear.create_issue')")
        .optional(),
      refId: z.string().describe('Tool reference by unique hash identifier').optional(),
    })
    .describe('Reference to the tool (use namespacedName or refId)'),
  notes: z
    .array(
      z.object({
        name: z
          .string()
          .regex(/^[a-z0-9-]+$/, 'must match ^[a-z0-9-]+$ (lowercase letters, digits and hyphens)')
          .describe("Identifier for this annotation (e.g., 'usage-with-project')"),
        note: z.string().describe('The annotation content to help guide LLM usage'),
      }),
    )
    .min(1, 'must hold at least one note')
    .describe('Array of annotations to add to the tool'),
});

/**
 * `add-tool-annotation`: adds notes to a tool of the equipped toolset. Errors when no
 * toolset is equipped, the reference resolves to no tool, or the tool is not in the
 * toolset; a note name the tool already has is skipped with a warning; the notes are saved
 * at once and appear in the tool's description in the next listing.
 */
export const addToolAnnotation: MetaTool = defineMetaTool({
  name: 'add-tool-annotation',
  title: 'Add notes to a tool',
  description: 'Add contextual annotations to a tool in the current toolset to guide LLM usage',
  input,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const toolset = ctx.toolsets.equipped(ctx.session);
    if (toolset === undefined) {
      throw new HintgateError(
        'INPUT_INVALID',
        'add-tool-annotation: no toolset is equipped; equip one with equip-toolset (or build one with build-toolset) first',
      );
    }
    const { namespacedName, refId } = args.toolRef;
    const ref = {
      ...(namespacedName === undefined ? {} : { namespacedName }),
      ...(refId === undefined ? {} : { refId }),
    };
    if (namespacedName === undefined && refId === undefined) {
      throw new HintgateError(
        'INPUT_INVALID',
        'add-tool-annotation: toolRef needs a namespacedName or a refId',
      );
    }
    const entry = resolveRef(ctx.catalog, ref);
    if (entry === undefined) {
      throw new HintgateError(
        'NOT_FOUND',
        `add-tool-annotation: cannot resolve tool ${describeToolRef(ref)}: no available tool has that ${ref.namespacedName === undefined ? 'refId' : 'namespacedName'}; list-available-tools shows what exists`,
      );
    }
    const view = ctx.toolsets.view(ctx.session);
    if (view.resolved?.members.has(entry) !== true) {
      throw new HintgateError(
        'INPUT_INVALID',
        `add-tool-annotation: tool ${entry.namespacedName} is not in the equipped toolset "${toolset.name}"; notes can only be added to its tools`,
      );
    }
    const problems = args.notes.flatMap((note, index) => {
      const problem = validateNote(note);
      return problem === undefined ? [] : [`notes[${index}]: ${problem}`];
    });
    if (problems.length > 0) {
      throw new HintgateError('INPUT_INVALID', `add-tool-annotation: ${problems.join('; ')}`);
    }
    const tool = { namespacedName: entry.namespacedName, refId: entry.refId };
    const result = await ctx.toolsets.store.addNotes(toolset.name, tool, args.notes);
    await ctx.toolsets.refresh(toolset.name);
    const added = result.added.map((note) => ({ name: note.name, note: note.note }));
    const skipped = result.skipped.map((skip) => ({ name: skip.name, warning: skip.warning }));
    const lines = [
      added.length === 0
        ? `No note added to ${entry.namespacedName} in toolset "${toolset.name}".`
        : `Added ${added.length} note(s) to ${entry.namespacedName} in toolset "${toolset.name}": ${added.map((note) => note.name).join(', ')}.`,
      ...skipped.map((skip) => `Warning: ${skip.warning}`),
    ];
    return {
      text: lines.join('\n'),
      data: {
        toolset: toolset.name,
        tool: { ...tool, name: entry.flattenedName },
        added,
        skipped,
        warnings: skipped.map((skip) => skip.warning),
      },
    };
  },
});
