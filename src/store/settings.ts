import { HintgateError } from '../core/errors.js';
import type { Sql } from './sql.js';
import { isoTime, jsonParam } from './sql.js';
import type { DefaultToolsetChoice, StoredDefaultToolset } from './types.js';
import type { InputIssue } from './validate.js';
import { checkToolsetName } from './validate.js';

/** The key of the default toolset in `gateway_settings`. */
const DEFAULT_TOOLSET = 'default-toolset';

interface SettingRow {
  value: unknown;
  updated_at: unknown;
  updated_by: string | null;
}

/** A choice of default toolset, or `config` to forget the choice. */
export type DefaultToolsetWrite = DefaultToolsetChoice | { readonly kind: 'config' };

/** Problems with a default-toolset write, naming the field. */
export function checkDefaultToolsetWrite(choice: unknown, by: unknown): InputIssue[] {
  const issues: InputIssue[] = [];
  const kind = (choice as { kind?: unknown } | null)?.kind;
  if (kind === 'toolset') {
    issues.push(...checkToolsetName((choice as { name?: unknown }).name, 'choice.name'));
  } else if (kind !== 'none' && kind !== 'config') {
    issues.push({ path: 'choice.kind', message: 'expected "toolset", "none" or "config"' });
  }
  if (by !== undefined && (typeof by !== 'string' || by === '' || by.length > 200)) {
    issues.push({ path: 'by', message: 'expected a name of 1 to 200 characters' });
  }
  return issues;
}

/** The stored default toolset, or undefined when none was chosen. */
export async function selectDefaultToolset(sql: Sql): Promise<StoredDefaultToolset | undefined> {
  const [row] = await sql.query<SettingRow>(
    'SELECT value, updated_at, updated_by FROM gateway_settings WHERE key = $1',
    [DEFAULT_TOOLSET],
  );
  if (row === undefined) return undefined;
  const value = row.value as { name?: unknown } | null;
  const choice: DefaultToolsetChoice =
    typeof value?.name === 'string' ? { kind: 'toolset', name: value.name } : { kind: 'none' };
  return {
    ...choice,
    updatedAt: isoTime(row.updated_at),
    ...(row.updated_by === null ? {} : { by: row.updated_by }),
  };
}

/**
 * Stores the default toolset (a toolset that exists, held against a concurrent delete for
 * the transaction, else NOT_FOUND), or forgets it (`config`).
 */
export async function writeDefaultToolset(
  sql: Sql,
  choice: DefaultToolsetWrite,
  by: string | undefined,
): Promise<void> {
  if (choice.kind === 'config') {
    await sql.query('DELETE FROM gateway_settings WHERE key = $1', [DEFAULT_TOOLSET]);
    return;
  }
  if (choice.kind === 'toolset') {
    const [row] = await sql.query('SELECT id FROM toolsets WHERE name = $1 FOR SHARE', [
      choice.name,
    ]);
    if (row === undefined) {
      throw new HintgateError('NOT_FOUND', `toolset "${choice.name}" does not exist`, {
        toolset: choice.name,
      });
    }
  }
  const value = choice.kind === 'toolset' ? { name: choice.name } : { none: true };
  await sql.query(
    `INSERT INTO gateway_settings (key, value, updated_by) VALUES ($1, $2::jsonb, $3)
     ON CONFLICT (key) DO UPDATE
       SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`,
    [DEFAULT_TOOLSET, jsonParam(value), by ?? null],
  );
}

/**
 * After a toolset is deleted: a default chosen to be that toolset becomes none (a toolset
 * created later under the same name is not the default by accident). True when it was.
 */
export async function forgetDeletedDefault(sql: Sql, name: string): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE gateway_settings SET value = '{"none": true}'::jsonb, updated_at = now()
     WHERE key = $1 AND value->>'name' = $2 RETURNING key`,
    [DEFAULT_TOOLSET, name],
  );
  return rows.length > 0;
}
