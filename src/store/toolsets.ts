import type { ToolAnnotations } from '../core/annotations/types.js';
import type { DynamicRule } from '../core/dynamic/rules.js';
import { HintgateError } from '../core/errors.js';
import type { Sql } from './sql.js';
import { isoTime } from './sql.js';
import type { Toolset, ToolsetMember, ToolsetSummary } from './types.js';
import { memberFrom, memberValue, refFrom } from './validate.js';

interface NoteJson {
  namespacedName: string;
  refId: string;
  name: string;
  note: string;
  createdAt: string;
  updatedAt: string;
}

interface OverrideJson {
  namespacedName: string;
  refId: string;
  annotations: ToolAnnotations;
  updatedAt: string;
}

interface ToolsetRow {
  name: string;
  description: string;
  created_at: unknown;
  updated_at: unknown;
  revision: number;
  members: { kind: string; value: string }[];
  notes: NoteJson[];
  overrides: OverrideJson[];
  rules: DynamicRule[];
}

// One round trip for everything tools/list needs; each part in the order it was added.
const SELECT_TOOLSET = `
  SELECT t.name, t.description, t.created_at, t.updated_at, t.revision, t.rules,
    coalesce((SELECT json_agg(json_build_object('kind', m.kind, 'value', m.value)
                ORDER BY m.position)
              FROM toolset_members m WHERE m.toolset_id = t.id), '[]'::json) AS members,
    coalesce((SELECT json_agg(json_build_object('namespacedName', n.namespaced_name,
                'refId', n.ref_id, 'name', n.name, 'note', n.note,
                'createdAt', n.created_at, 'updatedAt', n.updated_at) ORDER BY n.id)
              FROM tool_notes n WHERE n.toolset_id = t.id), '[]'::json) AS notes,
    coalesce((SELECT json_agg(json_build_object('namespacedName', o.namespaced_name,
                'refId', o.ref_id, 'annotations', o.annotations, 'updatedAt', o.updated_at)
                ORDER BY o.id)
              FROM annotation_overrides o WHERE o.toolset_id = t.id), '[]'::json) AS overrides
  FROM toolsets t WHERE t.name = $1`;

function toToolset(row: ToolsetRow): Toolset {
  return {
    name: row.name,
    description: row.description,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    revision: row.revision,
    members: row.members.map((member) => memberFrom(member.kind, member.value)),
    notes: row.notes.map((note) => ({
      tool: refFrom(note.namespacedName, note.refId),
      name: note.name,
      note: note.note,
      createdAt: isoTime(note.createdAt),
      updatedAt: isoTime(note.updatedAt),
    })),
    overrides: row.overrides.map((override) => ({
      toolset: row.name,
      tool: refFrom(override.namespacedName, override.refId),
      annotations: override.annotations,
      updatedAt: isoTime(override.updatedAt),
    })),
    rules: row.rules,
  };
}

/** The not-found error for a toolset. */
export function toolsetNotFound(name: string): HintgateError {
  return new HintgateError('NOT_FOUND', `toolset "${name}" does not exist`, { toolset: name });
}

/** A toolset with its members, notes and overrides, or undefined. */
export async function selectToolset(sql: Sql, name: string): Promise<Toolset | undefined> {
  const [row] = await sql.query<ToolsetRow>(SELECT_TOOLSET, [name]);
  return row === undefined ? undefined : toToolset(row);
}

/** Like {@link selectToolset}, failing with NOT_FOUND. */
export async function requireToolset(sql: Sql, name: string): Promise<Toolset> {
  const toolset = await selectToolset(sql, name);
  if (toolset === undefined) throw toolsetNotFound(name);
  return toolset;
}

/** A toolset's id, failing with NOT_FOUND. */
export async function toolsetId(sql: Sql, name: string): Promise<number> {
  const [row] = await sql.query<{ id: number }>('SELECT id FROM toolsets WHERE name = $1', [name]);
  if (row === undefined) throw toolsetNotFound(name);
  return row.id;
}

/** Every toolset with its counts, by name. */
export async function selectToolsetSummaries(sql: Sql): Promise<ToolsetSummary[]> {
  const rows = await sql.query<{
    name: string;
    description: string;
    created_at: unknown;
    updated_at: unknown;
    revision: number;
    member_count: number;
    note_count: number;
    override_count: number;
    rule_count: number;
  }>(
    `SELECT t.name, t.description, t.created_at, t.updated_at, t.revision,
       (SELECT count(*)::int FROM toolset_members m WHERE m.toolset_id = t.id) AS member_count,
       (SELECT count(*)::int FROM tool_notes n WHERE n.toolset_id = t.id) AS note_count,
       (SELECT count(*)::int FROM annotation_overrides o WHERE o.toolset_id = t.id)
         AS override_count,
       jsonb_array_length(t.rules) AS rule_count
     FROM toolsets t ORDER BY t.name`,
  );
  return rows.map((row) => ({
    name: row.name,
    description: row.description,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    revision: row.revision,
    memberCount: row.member_count,
    noteCount: row.note_count,
    overrideCount: row.override_count,
    ruleCount: row.rule_count,
  }));
}

/**
 * Locks a toolset's row until the transaction ends and returns its id: every write to a
 * toolset starts here, so concurrent writers to one toolset take turns and see each other's
 * committed work (bounds stay true, positions stay unique).
 */
export async function lockToolset(sql: Sql, name: string): Promise<number> {
  const [row] = await sql.query<{ id: number }>(
    'SELECT id FROM toolsets WHERE name = $1 FOR UPDATE',
    [name],
  );
  if (row === undefined) throw toolsetNotFound(name);
  return row.id;
}

/** Records that a locked toolset changed: a new revision and update time. */
export async function bumpToolset(sql: Sql, id: number): Promise<void> {
  await sql.query('UPDATE toolsets SET revision = revision + 1, updated_at = now() WHERE id = $1', [
    id,
  ]);
}

/** Creates an empty toolset; undefined when the name is taken. */
export async function insertToolset(
  sql: Sql,
  name: string,
  description: string,
): Promise<number | undefined> {
  const [row] = await sql.query<{ id: number }>(
    `INSERT INTO toolsets (name, description) VALUES ($1, $2)
     ON CONFLICT (name) DO NOTHING RETURNING id`,
    [name, description],
  );
  return row?.id;
}

/** Replaces a locked toolset's rules; true when they changed. */
export async function updateRules(
  sql: Sql,
  id: number,
  rules: readonly DynamicRule[],
): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE toolsets SET rules = $2::jsonb WHERE id = $1 AND rules <> $2::jsonb RETURNING id',
    [id, JSON.stringify(rules)],
  );
  return rows.length > 0;
}

/** Sets a locked toolset's description. */
export async function updateDescription(sql: Sql, id: number, description: string): Promise<void> {
  await sql.query('UPDATE toolsets SET description = $2 WHERE id = $1', [id, description]);
}

/** Appends members after the existing ones, skipping those already present; returns how many. */
export async function insertMembers(
  sql: Sql,
  id: number,
  members: readonly ToolsetMember[],
): Promise<number> {
  if (members.length === 0) return 0;
  const items = members.map((member) => ({ kind: member.kind, value: memberValue(member) }));
  const rows = await sql.query(
    `INSERT INTO toolset_members (toolset_id, position, kind, value)
     SELECT $1, (base.position + e.n)::integer, e.item->>'kind', e.item->>'value'
     FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(item, n),
       (SELECT coalesce(max(position), 0) AS position
        FROM toolset_members WHERE toolset_id = $1) base
     ORDER BY e.n
     ON CONFLICT DO NOTHING RETURNING kind`,
    [id, JSON.stringify(items)],
  );
  return rows.length;
}

/** Removes members; returns how many were there. */
export async function deleteMembers(
  sql: Sql,
  id: number,
  members: readonly ToolsetMember[] | 'all',
): Promise<number> {
  if (members === 'all') {
    const rows = await sql.query(
      'DELETE FROM toolset_members WHERE toolset_id = $1 RETURNING kind',
      [id],
    );
    return rows.length;
  }
  if (members.length === 0) return 0;
  const items = members.map((member) => ({ kind: member.kind, value: memberValue(member) }));
  const rows = await sql.query(
    `DELETE FROM toolset_members m
     USING jsonb_array_elements($2::jsonb) AS e(item)
     WHERE m.toolset_id = $1 AND m.kind = e.item->>'kind' AND m.value = e.item->>'value'
     RETURNING m.kind`,
    [id, JSON.stringify(items)],
  );
  return rows.length;
}

/** Deletes a toolset with its members, notes and overrides; false when there was none. */
export async function deleteToolsetRow(sql: Sql, name: string): Promise<boolean> {
  const rows = await sql.query('DELETE FROM toolsets WHERE name = $1 RETURNING id', [name]);
  return rows.length > 0;
}

/** The same members without repeats, first occurrence kept. */
export function uniqueMembers(members: readonly ToolsetMember[]): ToolsetMember[] {
  const seen = new Set<string>();
  return members.filter((member) => {
    const key = `${member.kind}\0${memberValue(member)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
