import { HintgateError } from '../core/errors.js';
import type { ToolNote } from '../core/notes/notes.js';
import { NOTE_LIMITS } from '../core/notes/notes.js';
import type { Sql } from './sql.js';
import { isoTime } from './sql.js';
import type { AddNotesResult, StoredNote, ToolRef } from './types.js';
import { describeRef, refColumns, refFrom } from './validate.js';

interface NoteRow {
  namespaced_name: string;
  ref_id: string;
  name: string;
  note: string;
  created_at: unknown;
  updated_at: unknown;
}

const NOTE_COLUMNS = 'namespaced_name, ref_id, name, note, created_at, updated_at';

// A note belongs to a tool when either of its references matches one given.
const MATCHES_TOOL = `(($2 <> '' AND namespaced_name = $2) OR ($3 <> '' AND ref_id = $3))`;

function toNote(row: NoteRow): StoredNote {
  return {
    tool: refFrom(row.namespaced_name, row.ref_id),
    name: row.name,
    note: row.note,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

function noteNotFound(toolset: string, tool: ToolRef, name: string): HintgateError {
  return new HintgateError(
    'NOT_FOUND',
    `note "${name}" does not exist for tool ${describeRef(tool)} in toolset "${toolset}"`,
    { toolset, tool, name },
  );
}

/**
 * Adds notes to a tool of a locked toolset, in order. A name the tool already has (or that
 * comes twice in `notes`) is skipped with a warning; the others are added. Fails without
 * adding anything when the tool would hold more than {@link NOTE_LIMITS.notesPerTool} notes.
 */
export async function insertNotes(
  sql: Sql,
  toolsetId: number,
  toolset: string,
  tool: ToolRef,
  notes: readonly ToolNote[],
): Promise<AddNotesResult> {
  const existing = await sql.query<{ name: string }>(
    `SELECT name FROM tool_notes WHERE toolset_id = $1 AND ${MATCHES_TOOL}`,
    [toolsetId, ...refColumns(tool)],
  );
  const names = new Set(existing.map((row) => row.name));
  const toAdd: ToolNote[] = [];
  const skipped: { name: string; warning: string }[] = [];
  for (const note of notes) {
    if (names.has(note.name)) {
      skipped.push({
        name: note.name,
        warning: `note "${note.name}" already exists for tool ${describeRef(tool)}; skipped (edit it to change its text)`,
      });
      continue;
    }
    names.add(note.name);
    toAdd.push({ name: note.name, note: note.note });
  }
  const total = existing.length + toAdd.length;
  if (total > NOTE_LIMITS.notesPerTool) {
    throw new HintgateError(
      'INPUT_INVALID',
      `tool ${describeRef(tool)} in toolset "${toolset}" would have ${total} notes; the limit is ${NOTE_LIMITS.notesPerTool} per tool`,
      { toolset, tool, limit: NOTE_LIMITS.notesPerTool, existing: existing.length },
    );
  }
  if (toAdd.length === 0) return { added: [], skipped };
  const rows = await sql.query<NoteRow & { id: number }>(
    `INSERT INTO tool_notes (toolset_id, namespaced_name, ref_id, name, note)
     SELECT $1, $2, $3, e.item->>'name', e.item->>'note'
     FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS e(item, n)
     ORDER BY e.n
     RETURNING id, ${NOTE_COLUMNS}`,
    [toolsetId, ...refColumns(tool), JSON.stringify(toAdd)],
  );
  rows.sort((a, b) => a.id - b.id);
  return { added: rows.map(toNote), skipped };
}

/** Replaces the text of a tool's note in a locked toolset; NOT_FOUND when there is none. */
export async function updateNote(
  sql: Sql,
  toolsetId: number,
  toolset: string,
  tool: ToolRef,
  name: string,
  text: string,
): Promise<StoredNote> {
  const rows = await sql.query<NoteRow & { id: number }>(
    `UPDATE tool_notes SET note = $5, updated_at = now()
     WHERE toolset_id = $1 AND name = $4 AND ${MATCHES_TOOL}
     RETURNING id, ${NOTE_COLUMNS}`,
    [toolsetId, ...refColumns(tool), name, text],
  );
  rows.sort((a, b) => a.id - b.id);
  const [first] = rows;
  if (first === undefined) throw noteNotFound(toolset, tool, name);
  return toNote(first);
}

/** Removes a tool's note from a locked toolset; NOT_FOUND when there is none. */
export async function deleteNote(
  sql: Sql,
  toolsetId: number,
  toolset: string,
  tool: ToolRef,
  name: string,
): Promise<void> {
  const rows = await sql.query(
    `DELETE FROM tool_notes WHERE toolset_id = $1 AND name = $4 AND ${MATCHES_TOOL} RETURNING id`,
    [toolsetId, ...refColumns(tool), name],
  );
  if (rows.length === 0) throw noteNotFound(toolset, tool, name);
}

/** A toolset's notes in the order they were added, all of them or those of one tool. */
export async function selectNotes(
  sql: Sql,
  toolsetId: number,
  tool: ToolRef | undefined,
): Promise<StoredNote[]> {
  const rows =
    tool === undefined
      ? await sql.query<NoteRow>(
          `SELECT ${NOTE_COLUMNS} FROM tool_notes WHERE toolset_id = $1 ORDER BY id`,
          [toolsetId],
        )
      : await sql.query<NoteRow>(
          `SELECT ${NOTE_COLUMNS} FROM tool_notes WHERE toolset_id = $1 AND ${MATCHES_TOOL}
           ORDER BY id`,
          [toolsetId, ...refColumns(tool)],
        );
  return rows.map(toNote);
}
