import { writeFile } from 'node:fs/promises';
import { HintgateError } from '../core/errors.js';
import type { ToolNote } from '../core/notes/notes.js';
import type { StoredNote, ToolRef } from '../store/types.js';
import { assertValid, checkNote, checkToolRef, joinPath } from '../store/validate.js';
import { readInput, writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';
import { formatRef, parseToolArgument, say } from './store-commands.js';
import { checkedWrite, reportCheck } from './tool-check.js';

/** Options of the `note` subcommands. */
export interface NoteOptions extends StoreCommandOptions {
  readonly json?: boolean;
  /** `note add`: refuse a tool that does not exist, or that cannot be checked. */
  readonly strict?: boolean;
}

/** `hintgate note add <toolset> <tool> <name> <text...>`. */
export async function runNoteAdd(
  toolset: string,
  tool: string,
  name: string,
  text: readonly string[],
  options: NoteOptions,
): Promise<void> {
  const ref = parseToolArgument(tool);
  const outcome = await withStore(options, (store) =>
    checkedWrite(store, [{ kind: 'tool', ref }], options.strict === true, () =>
      store.addNotes(toolset, ref, [{ name, note: text.join(' ') }]),
    ),
  );
  const result = outcome.value;
  if (options.json === true) {
    await writeOut(formatJson(result));
  } else {
    for (const note of result.added)
      say(`added note "${note.name}" to ${formatRef(ref)} in "${toolset}"`);
    for (const skip of result.skipped) say(`warning: ${skip.warning}`);
  }
  reportCheck(outcome, say);
}

/** `hintgate note edit <toolset> <tool> <name> <text...>`. */
export async function runNoteEdit(
  toolset: string,
  tool: string,
  name: string,
  text: readonly string[],
  options: NoteOptions,
): Promise<void> {
  const ref = parseToolArgument(tool);
  const note = await withStore(options, (store) =>
    store.editNote(toolset, ref, name, text.join(' ')),
  );
  if (options.json === true) return writeOut(formatJson(note));
  say(`edited note "${name}" of ${formatRef(ref)} in "${toolset}"`);
}

/** `hintgate note rm <toolset> <tool> <name>`. */
export async function runNoteRemove(
  toolset: string,
  tool: string,
  name: string,
  options: NoteOptions,
): Promise<void> {
  const ref = parseToolArgument(tool);
  await withStore(options, (store) => store.removeNote(toolset, ref, name));
  say(`removed note "${name}" of ${formatRef(ref)} from "${toolset}"`);
}

/** `hintgate note list <toolset> [tool]`. */
export async function runNoteList(
  toolset: string,
  tool: string | undefined,
  options: NoteOptions,
): Promise<void> {
  const ref = tool === undefined ? undefined : parseToolArgument(tool);
  const notes = await withStore(options, (store) => store.listNotes(toolset, ref));
  if (options.json === true) return writeOut(formatJson(notes));
  if (notes.length === 0) return writeOut('(no notes)\n');
  return writeOut(
    `${formatTable(notes, [
      { heading: 'tool', cell: (note: StoredNote) => formatRef(note.tool) },
      { heading: 'name', cell: (note) => note.name },
      { heading: 'note', cell: (note) => note.note.replace(/\s+/g, ' ') },
    ])}\n`,
  );
}

/** The document `note export` writes and `note import` reads. */
export interface NotesDocument {
  readonly hintgate: 'notes';
  readonly version: 1;
  readonly toolset: string;
  readonly notes: readonly {
    readonly tool: ToolRef;
    readonly name: string;
    readonly note: string;
  }[];
}

/** `hintgate note export <toolset>`: a toolset's notes as JSON. */
export async function runNoteExport(
  toolset: string,
  options: NoteOptions & { readonly output?: string },
): Promise<void> {
  const notes = await withStore(options, (store) => store.listNotes(toolset));
  const document: NotesDocument = {
    hintgate: 'notes',
    version: 1,
    toolset,
    notes: notes.map((note) => ({ tool: note.tool, name: note.name, note: note.note })),
  };
  const text = formatJson(document);
  if (options.output === undefined || options.output === '-') return writeOut(text);
  await writeFile(options.output, text);
  say(`exported ${notes.length} note(s) of "${toolset}" to ${options.output}`);
}

/**
 * `hintgate note import <toolset> [file]`: adds the notes of a document (from `note export`,
 * or `toolset export`, whose notes have the same shape) to a toolset; names a tool already
 * has are skipped with a warning, like add-tool-annotation.
 */
export async function runNoteImport(
  toolset: string,
  file: string | undefined,
  options: NoteOptions,
): Promise<void> {
  const groups = parseNotes(await readInput(file), file ?? 'standard input');
  const targets = groups.map((group) => ({ kind: 'tool' as const, ref: group.tool }));
  const checked = await withStore(options, (store) =>
    checkedWrite(store, targets, options.strict === true, async () => {
      let added = 0;
      const warnings: string[] = [];
      for (const group of groups) {
        const result = await store.addNotes(toolset, group.tool, group.notes);
        added += result.added.length;
        warnings.push(...result.skipped.map((skip) => skip.warning));
      }
      return { added, warnings };
    }),
  );
  const outcome = checked.value;
  if (options.json === true) {
    await writeOut(formatJson(outcome));
  } else {
    say(`imported ${outcome.added} note(s) into "${toolset}"`);
    for (const warning of outcome.warnings) say(`warning: ${warning}`);
  }
  reportCheck(checked, say);
}

function parseNotes(text: string, where: string): { tool: ToolRef; notes: ToolNote[] }[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HintgateError('INPUT_INVALID', `${where}: not JSON: ${(error as Error).message}`);
  }
  const list = (value as { notes?: unknown } | null)?.notes;
  if (!Array.isArray(list)) {
    throw new HintgateError(
      'INPUT_INVALID',
      `${where}: expected a document with a "notes" array (from note export or toolset export)`,
    );
  }
  const issues = list.flatMap((item: unknown, index) => {
    const path = joinPath('notes', index);
    const tool = (item as { tool?: unknown } | null)?.tool;
    return [...checkToolRef(tool, joinPath(path, 'tool')), ...checkNote(item, path)];
  });
  assertValid(`notes in ${where}`, issues);
  // One addNotes per tool, in the order the document first names each tool.
  const groups = new Map<string, { tool: ToolRef; notes: ToolNote[] }>();
  for (const item of list as { tool: ToolRef; name: string; note: string }[]) {
    const key = `${item.tool.namespacedName ?? ''}\0${item.tool.refId ?? ''}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { tool: item.tool, notes: [] };
      groups.set(key, group);
    }
    group.notes.push({ name: item.name, note: item.note });
  }
  return [...groups.values()];
}
