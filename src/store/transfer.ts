import type { ToolAnnotations } from '../core/annotations/types.js';
import type { DynamicRule } from '../core/dynamic/rules.js';
import { HintgateError } from '../core/errors.js';
import { NOTE_LIMITS } from '../core/notes/notes.js';
import { insertNotes } from './notes.js';
import { mergeOverride } from './overrides.js';
import type { Sql } from './sql.js';
import {
  bumpToolset,
  deleteMembers,
  insertMembers,
  insertToolset,
  lockToolset,
  uniqueMembers,
  updateDescription,
  updateRules,
} from './toolsets.js';
import type { Toolset, ToolRef, ToolsetMember } from './types.js';
import type { InputIssue } from './validate.js';
import {
  assertValid,
  checkDescription,
  checkKeys,
  checkMembers,
  checkNote,
  checkOverride,
  checkRules,
  checkToolRef,
  checkToolsetName,
  joinPath,
} from './validate.js';

/** The version of the toolset document this code writes and the newest it reads. */
export const TOOLSET_DOCUMENT_VERSION = 1;

/**
 * A toolset as a JSON document, for export and import (`hintgate toolset export|import`).
 *
 * ```json
 * {
 *   "hintgate": "toolset",
 *   "version": 1,
 *   "name": "github-triage",
 *   "description": "Reading and labelling issues",
 *   "members": [
 *     { "kind": "tool", "namespacedName": "github.list_issues" },
 *     { "kind": "ref", "refId": "0123456789abcdef" },
 *     { "kind": "server", "server": "filesystem" }
 *   ],
 *   "notes": [
 *     { "tool": { "namespacedName": "github.list_issues" }, "name": "team", "note": "Ask which team first" }
 *   ],
 *   "overrides": [
 *     { "tool": { "refId": "0123456789abcdef" }, "annotations": { "readOnlyHint": true } }
 *   ],
 *   "rules": [
 *     { "tool": "files.manage", "match": [{ "pointer": "/action", "equals": "read" }],
 *       "set": { "readOnlyHint": true } }
 *   ],
 *   "exportedAt": "2026-01-31T12:00:00.000Z"
 * }
 * ```
 *
 * `hintgate` and `version` are required and say what the file is; `name` and `members` are
 * required; `description`, `notes` (absent in documents written before notes existed),
 * `overrides`, `rules` (dynamic-annotation rules; written only when the toolset has some,
 * so that documents without them stay readable by earlier versions) and `exportedAt` are
 * optional. Notes keep their order. A tool is referred to by
 * `namespacedName`, `refId` or both. Any other key is an error, so that nothing in a file is
 * silently ignored; a document of a newer version is refused.
 */
export interface ToolsetDocument {
  readonly hintgate: 'toolset';
  readonly version: number;
  readonly name: string;
  readonly description?: string;
  readonly members: readonly ToolsetMember[];
  readonly notes?: readonly DocumentNote[];
  readonly overrides?: readonly DocumentOverride[];
  readonly rules?: readonly DynamicRule[];
  readonly exportedAt?: string;
}

/** A note in a {@link ToolsetDocument}. */
export interface DocumentNote {
  readonly tool: ToolRef;
  readonly name: string;
  readonly note: string;
}

/** An override in a {@link ToolsetDocument}. */
export interface DocumentOverride {
  readonly tool: ToolRef;
  readonly annotations: ToolAnnotations;
}

/** How to import: under another name, and whether an existing toolset may be replaced. */
export interface ImportOptions {
  readonly name?: string;
  readonly replace?: boolean;
}

/** What an import did. */
export interface ImportResult {
  readonly toolset: Toolset;
  /** An existing toolset of that name was replaced. */
  readonly replaced: boolean;
}

const DOCUMENT_KEYS = [
  'hintgate',
  'version',
  'name',
  'description',
  'members',
  'notes',
  'overrides',
  'rules',
  'exportedAt',
];

/** A toolset as a document, ready for `JSON.stringify`. */
export function toDocument(toolset: Toolset, exportedAt = new Date()): ToolsetDocument {
  return {
    hintgate: 'toolset',
    version: TOOLSET_DOCUMENT_VERSION,
    name: toolset.name,
    description: toolset.description,
    members: toolset.members,
    notes: toolset.notes.map((note) => ({ tool: note.tool, name: note.name, note: note.note })),
    overrides: toolset.overrides.map((override) => ({
      tool: override.tool,
      annotations: override.annotations,
    })),
    ...(toolset.rules.length === 0 ? {} : { rules: toolset.rules }),
    exportedAt: exportedAt.toISOString(),
  };
}

function sameTool(a: ToolRef, b: ToolRef): boolean {
  return (
    (a.namespacedName !== undefined && a.namespacedName === b.namespacedName) ||
    (a.refId !== undefined && a.refId === b.refId)
  );
}

function checkNotes(notes: unknown): InputIssue[] {
  if (!Array.isArray(notes)) return [{ path: 'notes', message: 'must be an array' }];
  const issues: InputIssue[] = [];
  const valid: { tool: ToolRef; name: string }[] = [];
  notes.forEach((entry: unknown, index) => {
    const path = joinPath('notes', index);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      issues.push({ path, message: 'must be { tool, name, note }' });
      return;
    }
    const note = entry as Record<string, unknown>;
    const found = [
      ...checkKeys(note, ['tool', 'name', 'note'], path),
      ...checkToolRef(note['tool'], joinPath(path, 'tool')),
      ...checkNote(note, path),
    ];
    issues.push(...found);
    if (found.length > 0) return;
    const tool = note['tool'] as ToolRef;
    const name = note['name'] as string;
    const earlier = valid.filter((other) => sameTool(other.tool, tool));
    if (earlier.some((other) => other.name === name)) {
      issues.push({
        path: joinPath(path, 'name'),
        message: `note "${name}" repeats for this tool`,
      });
    } else if (earlier.length >= NOTE_LIMITS.notesPerTool) {
      issues.push({
        path,
        message: `more than ${NOTE_LIMITS.notesPerTool} notes for this tool (the limit per tool)`,
      });
    }
    valid.push({ tool, name });
  });
  return issues;
}

function checkOverrides(overrides: unknown): InputIssue[] {
  if (!Array.isArray(overrides)) return [{ path: 'overrides', message: 'must be an array' }];
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  overrides.forEach((entry: unknown, index) => {
    const path = joinPath('overrides', index);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      issues.push({ path, message: 'must be { tool, annotations }' });
      return;
    }
    const override = entry as Record<string, unknown>;
    const found = [
      ...checkKeys(override, ['tool', 'annotations'], path),
      ...checkToolRef(override['tool'], joinPath(path, 'tool')),
      ...checkOverride(override['annotations'], joinPath(path, 'annotations')),
    ];
    issues.push(...found);
    if (found.length > 0) return;
    const tool = override['tool'] as ToolRef;
    const key = `${tool.namespacedName ?? ''}\0${tool.refId ?? ''}`;
    if (seen.has(key)) issues.push({ path: joinPath(path, 'tool'), message: 'repeats a tool' });
    seen.add(key);
  });
  return issues;
}

/**
 * Checks a parsed JSON value and returns it as a {@link ToolsetDocument}; throws
 * `INPUT_INVALID` listing every bad field by its path (`notes[2].name: …`).
 */
export function parseToolsetDocument(value: unknown): ToolsetDocument {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    assertValid('toolset document', [{ path: '', message: 'expected a JSON object' }]);
  }
  const doc = value as Record<string, unknown>;
  const issues: InputIssue[] = [];
  if (doc['hintgate'] !== 'toolset') {
    issues.push({ path: 'hintgate', message: 'must be "toolset" (this is not a toolset file)' });
  }
  const version = doc['version'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    issues.push({ path: 'version', message: 'must be a positive whole number' });
  } else if (version > TOOLSET_DOCUMENT_VERSION) {
    issues.push({
      path: 'version',
      message: `is ${version}, but this hintgate reads toolset documents up to version ${TOOLSET_DOCUMENT_VERSION}; upgrade hintgate`,
    });
  }
  issues.push(...checkKeys(doc, DOCUMENT_KEYS, ''));
  issues.push(...checkToolsetName(doc['name']));
  if (doc['description'] !== undefined) issues.push(...checkDescription(doc['description']));
  issues.push(...checkMembers(doc['members']));
  if (doc['notes'] !== undefined) issues.push(...checkNotes(doc['notes']));
  if (doc['overrides'] !== undefined) issues.push(...checkOverrides(doc['overrides']));
  if (doc['rules'] !== undefined) issues.push(...checkRules(doc['rules']));
  if (doc['exportedAt'] !== undefined && typeof doc['exportedAt'] !== 'string') {
    issues.push({ path: 'exportedAt', message: 'must be a string' });
  }
  assertValid('toolset document', issues);
  return doc as unknown as ToolsetDocument;
}

/**
 * Writes a checked document as toolset `name` in the current transaction: a new toolset, or
 * (with `replace`) the existing one emptied and refilled, keeping its creation time and
 * moving its revision on. CONFLICT when it exists and `replace` is false.
 */
export async function importDocument(
  sql: Sql,
  doc: ToolsetDocument,
  name: string,
  replace: boolean,
): Promise<boolean> {
  const description = doc.description ?? '';
  let id = await insertToolset(sql, name, description);
  const replaced = id === undefined;
  if (id === undefined) {
    if (!replace) {
      throw new HintgateError(
        'CONFLICT',
        `toolset "${name}" already exists; import with replace (--replace) to overwrite it`,
        { toolset: name },
      );
    }
    id = await lockToolset(sql, name);
    await deleteMembers(sql, id, 'all');
    await sql.query('DELETE FROM tool_notes WHERE toolset_id = $1', [id]);
    await sql.query('DELETE FROM annotation_overrides WHERE toolset_id = $1', [id]);
    await updateDescription(sql, id, description);
    await bumpToolset(sql, id);
  }
  await insertMembers(sql, id, uniqueMembers(doc.members));
  const target = { id, name };
  for (const note of doc.notes ?? []) {
    await insertNotes(sql, id, name, note.tool, [{ name: note.name, note: note.note }]);
  }
  for (const override of doc.overrides ?? []) {
    await mergeOverride(sql, target, override.tool, override.annotations);
  }
  await updateRules(sql, id, doc.rules ?? []);
  return replaced;
}
