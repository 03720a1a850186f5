import type { Command } from 'commander';
import { storeCommandOptions } from '../store-commands.js';
import type { NoteOptions } from '../run-note.js';

/** `hintgate note add|edit|rm|list|export|import`. */
export function registerNote(program: Command): void {
  const note = program
    .command('note')
    .description(
      "Manage the notes appended to tools' descriptions in a toolset (tool: server.tool or a refId)",
    );
  storeCommandOptions(
    note
      .command('add <toolset> <tool> <name> <text...>')
      .description(
        "Add a note (name: lowercase letters, digits and hyphens); an existing name is skipped; the tool is checked against a running gateway's catalog",
      )
      .option(
        '--strict',
        'refuse a tool the running gateway does not have, or that cannot be checked (default: write the note and warn)',
      ),
  ).action(
    async (toolset: string, tool: string, name: string, text: string[], options: NoteOptions) => {
      const { runNoteAdd } = await import('../run-note.js');
      await runNoteAdd(toolset, tool, name, text, options);
    },
  );
  storeCommandOptions(
    note.command('edit <toolset> <tool> <name> <text...>').description("Replace a note's text"),
  ).action(
    async (toolset: string, tool: string, name: string, text: string[], options: NoteOptions) => {
      const { runNoteEdit } = await import('../run-note.js');
      await runNoteEdit(toolset, tool, name, text, options);
    },
  );
  storeCommandOptions(
    note.command('rm <toolset> <tool> <name>').description('Remove a note'),
    false,
  ).action(async (toolset: string, tool: string, name: string, options: NoteOptions) => {
    const { runNoteRemove } = await import('../run-note.js');
    await runNoteRemove(toolset, tool, name, options);
  });
  storeCommandOptions(
    note.command('list <toolset> [tool]').description("List a toolset's notes (or one tool's)"),
  ).action(async (toolset: string, tool: string | undefined, options: NoteOptions) => {
    const { runNoteList } = await import('../run-note.js');
    await runNoteList(toolset, tool, options);
  });
  storeCommandOptions(
    note
      .command('export <toolset>')
      .description("Write a toolset's notes as JSON")
      .option('-o, --output <file>', 'write to this file instead of standard output'),
    false,
  ).action(async (toolset: string, options: NoteOptions & { output?: string }) => {
    const { runNoteExport } = await import('../run-note.js');
    await runNoteExport(toolset, options);
  });
  storeCommandOptions(
    note
      .command('import <toolset> [file]')
      .description('Add the notes of a JSON document (note export or toolset export) to a toolset')
      .option(
        '--strict',
        'refuse a tool the running gateway does not have, or that cannot be checked (default: import and warn)',
      ),
  ).action(async (toolset: string, file: string | undefined, options: NoteOptions) => {
    const { runNoteImport } = await import('../run-note.js');
    await runNoteImport(toolset, file, options);
  });
}
