import { randomBytes } from 'node:crypto';
import type { ToolAnnotations } from '../core/annotations/types.js';
import { HintgateError } from '../core/errors.js';
import type { Sql } from './sql.js';
import { isoTime, jsonParam, optionalIsoTime, pgJson, pgText, present } from './sql.js';
import type {
  Approval,
  ApprovalDecision,
  ApprovalInput,
  ApprovalQuery,
  ApprovalStatus,
} from './types.js';

/** Every status an approval can have, in the order of its life. */
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = [
  'pending',
  'approved',
  'denied',
  'expired',
  'withdrawn',
];
import type { InputIssue } from './validate.js';

interface ApprovalRow {
  id: string;
  status: ApprovalStatus;
  created_at: unknown;
  expires_at: unknown;
  session_id: string | null;
  client: string | null;
  requested_by: string | null;
  server: string;
  tool: string;
  arguments: unknown;
  annotations: ToolAnnotations;
  reason: string;
  decided_by: string | null;
  decided_at: unknown;
  note: string | null;
}

// A pending approval past its expiry reads as expired even before anyone marks it so.
const COLUMNS = `id,
  CASE WHEN status = 'pending' AND expires_at <= now() THEN 'expired' ELSE status END AS status,
  created_at, expires_at, session_id, client, requested_by, server, tool, arguments, annotations, reason,
  decided_by, decided_at, note`;

const STATUS_FILTER: Readonly<Record<ApprovalStatus, string>> = {
  pending: `status = 'pending' AND expires_at > now()`,
  expired: `(status = 'expired' OR (status = 'pending' AND expires_at <= now()))`,
  approved: `status = 'approved'`,
  denied: `status = 'denied'`,
  withdrawn: `status = 'withdrawn'`,
};

/** The longest an approval may wait: a day. */
export const MAX_APPROVAL_TIMEOUT_MS = 86_400_000;

function toApproval(row: ApprovalRow): Approval {
  return {
    id: row.id,
    status: row.status,
    createdAt: isoTime(row.created_at),
    expiresAt: isoTime(row.expires_at),
    server: row.server,
    tool: row.tool,
    ...present('sessionId', row.session_id),
    ...present('client', row.client),
    ...present('requestedBy', row.requested_by),
    arguments: row.arguments ?? undefined,
    annotations: row.annotations,
    reason: row.reason,
    ...present('decidedBy', row.decided_by),
    ...present('decidedAt', optionalIsoTime(row.decided_at)),
    ...present('note', row.note),
  };
}

/** Problems with an approval request. */
export function checkApprovalInput(input: ApprovalInput): InputIssue[] {
  const issues: InputIssue[] = [];
  for (const key of ['server', 'tool'] as const) {
    if (typeof input[key] !== 'string' || input[key] === '') {
      issues.push({ path: key, message: 'must be a non-empty string' });
    }
  }
  if (typeof input.reason !== 'string')
    issues.push({ path: 'reason', message: 'must be a string' });
  const timeout = input.timeoutMs;
  if (!Number.isInteger(timeout) || timeout <= 0 || timeout > MAX_APPROVAL_TIMEOUT_MS) {
    issues.push({
      path: 'timeoutMs',
      message: `must be a whole number of milliseconds from 1 to ${MAX_APPROVAL_TIMEOUT_MS}`,
    });
  }
  return issues;
}

/** Problems with a decision. */
export function checkDecision(decision: ApprovalDecision): InputIssue[] {
  const issues: InputIssue[] = [];
  if (
    decision.status !== 'approved' &&
    decision.status !== 'denied' &&
    decision.status !== 'withdrawn'
  ) {
    issues.push({ path: 'status', message: 'must be approved, denied or withdrawn' });
  }
  if (typeof decision.by !== 'string' || decision.by === '') {
    issues.push({ path: 'by', message: 'must name who decided' });
  }
  return issues;
}

/** Puts a call in the queue, pending until decided or expired. */
export async function insertApproval(sql: Sql, input: ApprovalInput): Promise<Approval> {
  const id = randomBytes(6).toString('hex');
  const [row] = await sql.query<ApprovalRow>(
    `INSERT INTO approvals (id, expires_at, session_id, client, server, tool, arguments,
       annotations, reason, requested_by)
     VALUES ($1, now() + make_interval(secs => $2::double precision / 1000), $3, $4, $5, $6,
       $7::jsonb, $8::jsonb, $9, $10)
     RETURNING ${COLUMNS}`,
    [
      id,
      input.timeoutMs,
      pgText(input.sessionId ?? null),
      pgText(input.client ?? null),
      pgText(input.server),
      pgText(input.tool),
      jsonParam(input.arguments),
      pgJson(input.annotations ?? {}),
      pgText(input.reason),
      input.requestedBy === undefined ? null : pgText(input.requestedBy),
    ],
  );
  if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
  return toApproval(row);
}

/** One approval, or undefined. */
export async function selectApproval(sql: Sql, id: string): Promise<Approval | undefined> {
  const [row] = await sql.query<ApprovalRow>(`SELECT ${COLUMNS} FROM approvals WHERE id = $1`, [
    id,
  ]);
  return row === undefined ? undefined : toApproval(row);
}

/** Approvals, newest first, optionally of one status. */
export async function selectApprovals(sql: Sql, query: ApprovalQuery): Promise<Approval[]> {
  const where = query.status === undefined ? '' : `WHERE ${STATUS_FILTER[query.status]}`;
  const rows = await sql.query<ApprovalRow>(
    `SELECT ${COLUMNS} FROM approvals ${where} ORDER BY created_at DESC, id LIMIT $1`,
    [Math.min(Math.max(query.limit ?? 100, 1), 10_000)],
  );
  return rows.map(toApproval);
}

/** The outcome of deciding: decided, or the approval as it stands when it was not pending. */
export type DecideOutcome =
  | { readonly kind: 'decided'; readonly approval: Approval }
  | { readonly kind: 'not-pending'; readonly approval: Approval }
  | { readonly kind: 'missing' };

/**
 * Decides a pending approval that has not expired, atomically: of two deciders, one wins
 * and the other is told the status the first one set. An overdue approval found here is
 * marked expired on the way.
 */
export async function decide(
  sql: Sql,
  id: string,
  decision: ApprovalDecision,
): Promise<DecideOutcome> {
  const [row] = await sql.query<ApprovalRow>(
    `UPDATE approvals SET status = $2, decided_by = $3, decided_at = now(), note = $4
     WHERE id = $1 AND status = 'pending' AND expires_at > now()
     RETURNING ${COLUMNS}`,
    [id, decision.status, pgText(decision.by), pgText(decision.note ?? null)],
  );
  if (row !== undefined) return { kind: 'decided', approval: toApproval(row) };
  await expireOverdue(sql, id);
  const current = await selectApproval(sql, id);
  return current === undefined ? { kind: 'missing' } : { kind: 'not-pending', approval: current };
}

/** Marks overdue pending approvals (all, or one) expired; returns those it marked. */
export async function expireOverdue(sql: Sql, id?: string): Promise<Approval[]> {
  const rows = await sql.query<ApprovalRow>(
    `UPDATE approvals SET status = 'expired', decided_at = now()
     WHERE status = 'pending' AND expires_at <= now() AND ($1::text IS NULL OR id = $1)
     RETURNING ${COLUMNS}`,
    [id ?? null],
  );
  return rows.map(toApproval);
}

/** The error for a decision that came too late: CONFLICT naming the current status. */
export function notPendingError(
  approval: Approval,
  wanted: ApprovalDecision['status'],
): HintgateError {
  const when = approval.status === 'expired' ? approval.expiresAt : approval.decidedAt;
  const by = approval.decidedBy === undefined ? '' : ` by ${approval.decidedBy}`;
  return new HintgateError(
    'CONFLICT',
    `approval ${approval.id} is already ${approval.status}${by}${when === undefined ? '' : ` (${when})`}; it can no longer be ${wanted}`,
    { id: approval.id, status: approval.status },
  );
}
