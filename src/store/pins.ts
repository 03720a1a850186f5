import type { Drift, ToolDefinition } from '../core/pins/index.js';
import type { Sql } from './sql.js';
import { isoTime, optionalIsoTime, present } from './sql.js';
import type { PinDecision, PinQuery, PinStatus, PinTarget, PinWrite, ToolPin } from './types.js';
import type { InputIssue } from './validate.js';
import { joinPath } from './validate.js';

interface PinRow {
  server: string;
  tool: string;
  status: PinStatus;
  hash: string | null;
  definition: ToolDefinition | null;
  pending_hash: string | null;
  pending: ToolDefinition | null;
  drift: Drift | null;
  first_seen: unknown;
  updated_at: unknown;
  decided_by: string | null;
  decided_at: unknown;
  note: string | null;
}

/** Every status a pin can have. */
export const PIN_STATUSES: readonly PinStatus[] = ['pinned', 'pending', 'rejected', 'removed'];

const COLUMNS = `server, tool, status, hash, definition, pending_hash, pending, drift, first_seen,
  updated_at, decided_by, decided_at, note`;
/** The same without the definitions (a listing of thousands of pins stays small). */
const BRIEF_COLUMNS = `server, tool, status, hash, NULL AS definition, pending_hash,
  NULL AS pending, drift, first_seen, updated_at, decided_by, decided_at, note`;

function toPin(row: PinRow): ToolPin {
  return {
    server: row.server,
    tool: row.tool,
    status: row.status,
    ...present('hash', row.hash),
    ...present('definition', row.definition),
    ...present('pendingHash', row.pending_hash),
    ...present('pending', row.pending),
    ...present('drift', row.drift),
    firstSeen: isoTime(row.first_seen),
    updatedAt: isoTime(row.updated_at),
    ...present('decidedBy', row.decided_by),
    ...present('decidedAt', optionalIsoTime(row.decided_at)),
    ...present('note', row.note),
  };
}

const NAME_LIMIT = 500;

function checkName(value: unknown, path: string): InputIssue[] {
  return typeof value === 'string' && value !== '' && value.length <= NAME_LIMIT
    ? []
    : [{ path, message: `must be a non-empty string of at most ${NAME_LIMIT} characters` }];
}

function checkHashed(
  hash: unknown,
  definition: unknown,
  path: string,
  hashKey: string,
): InputIssue[] {
  if (hash === undefined && definition === undefined) return [];
  const issues: InputIssue[] = [];
  if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash))
    issues.push({ path: joinPath(path, hashKey), message: 'must be a SHA-256 in lowercase hex' });
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition))
    issues.push({ path, message: `must be an object beside ${hashKey}` });
  return issues;
}

/** Problems with pins to save. */
export function checkPinWrites(writes: unknown): InputIssue[] {
  if (!Array.isArray(writes)) return [{ path: 'pins', message: 'must be an array' }];
  return writes.flatMap((write: unknown, index): InputIssue[] => {
    const path = `pins[${index}]`;
    if (typeof write !== 'object' || write === null)
      return [{ path, message: 'must be an object' }];
    const pin = write as Record<string, unknown>;
    return [
      ...checkName(pin['server'], joinPath(path, 'server')),
      ...checkName(pin['tool'], joinPath(path, 'tool')),
      ...(PIN_STATUSES.includes(pin['status'] as PinStatus)
        ? []
        : [
            {
              path: joinPath(path, 'status'),
              message: `must be one of ${PIN_STATUSES.join(', ')}`,
            },
          ]),
      ...checkHashed(pin['hash'], pin['definition'], joinPath(path, 'definition'), 'hash'),
      ...checkHashed(pin['pendingHash'], pin['pending'], joinPath(path, 'pending'), 'pendingHash'),
    ];
  });
}

/** Problems with a decision on pins. */
export function checkPinDecision(target: unknown, decision: unknown): InputIssue[] {
  const issues: InputIssue[] = [];
  const t = (typeof target === 'object' && target !== null ? target : {}) as Record<
    string,
    unknown
  >;
  issues.push(...checkName(t['server'], 'target.server'));
  if (t['tool'] !== undefined) issues.push(...checkName(t['tool'], 'target.tool'));
  const d = (typeof decision === 'object' && decision !== null ? decision : {}) as Record<
    string,
    unknown
  >;
  if (d['action'] !== 'approve' && d['action'] !== 'reject')
    issues.push({ path: 'decision.action', message: 'must be approve or reject' });
  issues.push(...checkName(d['by'], 'decision.by'));
  if (d['note'] !== undefined && (typeof d['note'] !== 'string' || d['note'].length > 2000))
    issues.push({ path: 'decision.note', message: 'must be a string of at most 2000 characters' });
  return issues;
}

/** Pins matching the query, by server then tool. */
export async function selectPins(sql: Sql, query: PinQuery): Promise<ToolPin[]> {
  const params: unknown[] = [];
  const where: string[] = [];
  if (query.server !== undefined) {
    params.push(query.server);
    where.push(`server = $${params.length}`);
  }
  if (query.tool !== undefined) {
    params.push(query.tool);
    where.push(`tool = $${params.length}`);
  }
  if (query.status !== undefined) {
    params.push(query.status);
    where.push(`status = $${params.length}`);
  }
  const columns = query.definitions === false ? BRIEF_COLUMNS : COLUMNS;
  const rows = await sql.query<PinRow>(
    `SELECT ${columns} FROM tool_pins ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
     ORDER BY server, tool`,
    params,
  );
  return rows.map(toPin);
}

/**
 * Saves pins in one statement: each row replaced whole (its first sighting and the last
 * decision kept), so a re-check writes exactly what it concluded.
 */
export async function upsertPins(sql: Sql, writes: readonly PinWrite[]): Promise<void> {
  const rows = writes.map((write) => ({
    server: write.server,
    tool: write.tool,
    status: write.status,
    hash: write.hash ?? null,
    definition: write.definition ?? null,
    pending_hash: write.pendingHash ?? null,
    pending: write.pending ?? null,
    drift: write.drift ?? null,
  }));
  await sql.query(
    `INSERT INTO tool_pins (server, tool, status, hash, definition, pending_hash, pending, drift)
     SELECT r.server, r.tool, r.status, r.hash, r.definition, r.pending_hash, r.pending, r.drift
     FROM jsonb_to_recordset($1::jsonb) AS r(server text, tool text, status text, hash text,
       definition jsonb, pending_hash text, pending jsonb, drift jsonb)
     ON CONFLICT (server, tool) DO UPDATE SET status = EXCLUDED.status, hash = EXCLUDED.hash,
       definition = EXCLUDED.definition, pending_hash = EXCLUDED.pending_hash,
       pending = EXCLUDED.pending, drift = EXCLUDED.drift, updated_at = now()`,
    [JSON.stringify(rows)],
  );
}

/**
 * Decides the waiting pins of a server (or one tool of it): approving makes the pending
 * definition the pin; rejecting keeps the pin and marks the pending one rejected (it stays
 * held back, and is not raised again while the server lists it unchanged). A rejected
 * definition may still be approved later. Returns the decided pins.
 */
export async function decidePins(
  sql: Sql,
  target: PinTarget,
  decision: PinDecision,
): Promise<ToolPin[]> {
  const params: unknown[] = [decision.by, decision.note ?? null, target.server];
  let where = `server = $3 AND pending IS NOT NULL AND status IN ${
    decision.action === 'approve' ? `('pending', 'rejected')` : `('pending')`
  }`;
  if (target.tool !== undefined) {
    params.push(target.tool);
    where += ` AND tool = $4`;
  }
  const set =
    decision.action === 'approve'
      ? `status = 'pinned', hash = pending_hash, definition = pending, pending_hash = NULL,
         pending = NULL, drift = NULL`
      : `status = 'rejected'`;
  const rows = await sql.query<PinRow>(
    `UPDATE tool_pins SET ${set}, decided_by = $1, note = $2, decided_at = now(),
       updated_at = now()
     WHERE ${where} RETURNING ${COLUMNS}`,
    params,
  );
  return rows.map(toPin).sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
}
