import type { ToolAnnotations } from '../core/annotations/types.js';
import { HintgateError } from '../core/errors.js';
import type { Sql } from './sql.js';
import { isoTime } from './sql.js';
import type { AnnotationOverride, ToolRef } from './types.js';
import { assertValid, checkOverride, describeRef, refColumns, refFrom } from './validate.js';

interface OverrideRow {
  id: number;
  toolset: string | null;
  namespaced_name: string;
  ref_id: string;
  annotations: ToolAnnotations;
  updated_at: unknown;
}

/** Where an override lives: a locked toolset (its id and name) or the global scope. */
export type OverrideTarget = { readonly id: number; readonly name: string } | undefined;

// The row for exactly this reference in this scope ($1 NULL: global).
const SAME_OVERRIDE = `(CASE WHEN $1::integer IS NULL THEN toolset_id IS NULL ELSE toolset_id = $1 END)
  AND namespaced_name = $2 AND ref_id = $3`;

function toOverride(row: OverrideRow): AnnotationOverride {
  return {
    ...(row.toolset === null ? {} : { toolset: row.toolset }),
    tool: refFrom(row.namespaced_name, row.ref_id),
    annotations: row.annotations,
    updatedAt: isoTime(row.updated_at),
  };
}

function scopeName(target: OverrideTarget): string {
  return target === undefined ? 'globally' : `in toolset "${target.name}"`;
}

async function lockOverride(
  sql: Sql,
  target: OverrideTarget,
  tool: ToolRef,
): Promise<OverrideRow | undefined> {
  const [row] = await sql.query<OverrideRow>(
    `SELECT id, NULL::text AS toolset, namespaced_name, ref_id, annotations, updated_at
     FROM annotation_overrides WHERE ${SAME_OVERRIDE} FOR UPDATE`,
    [target?.id ?? null, ...refColumns(tool)],
  );
  return row === undefined ? undefined : { ...row, toolset: target?.name ?? null };
}

/**
 * Merges fields into a tool's override (creating it), field by field: given fields replace
 * stored ones, others stay. The merged result must be valid annotations.
 */
export async function mergeOverride(
  sql: Sql,
  target: OverrideTarget,
  tool: ToolRef,
  annotations: ToolAnnotations,
): Promise<AnnotationOverride> {
  // Inserting first (or finding the row there) gives a row to lock even when two writers
  // create the same override at once.
  await sql.query(
    `INSERT INTO annotation_overrides (toolset_id, namespaced_name, ref_id, annotations)
     VALUES ($1, $2, $3, '{}'::jsonb) ON CONFLICT DO NOTHING`,
    [target?.id ?? null, ...refColumns(tool)],
  );
  const row = await lockOverride(sql, target, tool);
  if (row === undefined) throw new HintgateError('INTERNAL', 'override row vanished');
  const merged: ToolAnnotations = { ...row.annotations, ...annotations };
  assertValid(`override for ${describeRef(tool)}`, checkOverride(merged));
  return saveOverride(sql, row, merged);
}

async function saveOverride(
  sql: Sql,
  row: OverrideRow,
  annotations: ToolAnnotations,
): Promise<AnnotationOverride> {
  const [saved] = await sql.query<{ updated_at: unknown }>(
    `UPDATE annotation_overrides SET annotations = $2::jsonb, updated_at = now()
     WHERE id = $1 RETURNING updated_at`,
    [row.id, JSON.stringify(annotations)],
  );
  return toOverride({ ...row, annotations, updated_at: saved?.updated_at });
}

/**
 * Removes fields from a tool's override, or all of it when `fields` is undefined; the
 * override goes away when no field is left. Returns what remains; NOT_FOUND when the tool
 * has no override in that scope.
 */
export async function removeOverrideFields(
  sql: Sql,
  target: OverrideTarget,
  tool: ToolRef,
  fields: readonly string[] | undefined,
): Promise<AnnotationOverride | undefined> {
  const row = await lockOverride(sql, target, tool);
  if (row === undefined) {
    throw new HintgateError(
      'NOT_FOUND',
      `tool ${describeRef(tool)} has no annotation override ${scopeName(target)}`,
      { toolset: target?.name, tool },
    );
  }
  const remaining = Object.fromEntries(
    Object.entries(row.annotations).filter(
      ([key]) => fields !== undefined && !fields.includes(key),
    ),
  ) as ToolAnnotations;
  if (Object.keys(remaining).length === 0) {
    await sql.query('DELETE FROM annotation_overrides WHERE id = $1', [row.id]);
    return undefined;
  }
  return saveOverride(sql, row, remaining);
}

/** Overrides of one toolset, or the global ones, in the order they were created. */
export async function selectOverrides(
  sql: Sql,
  target: OverrideTarget,
): Promise<AnnotationOverride[]> {
  const rows = await sql.query<OverrideRow>(
    `SELECT id, NULL::text AS toolset, namespaced_name, ref_id, annotations, updated_at
     FROM annotation_overrides
     WHERE CASE WHEN $1::integer IS NULL THEN toolset_id IS NULL ELSE toolset_id = $1 END
     ORDER BY id`,
    [target?.id ?? null],
  );
  return rows.map((row) => toOverride({ ...row, toolset: target?.name ?? null }));
}
