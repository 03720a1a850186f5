import type { ToolAnnotations } from '../core/annotations/types.js';
import type { Sql } from './sql.js';
import { COPY_NULL, copyJson, copyText, isoTime, present } from './sql.js';
import type { AuditQuery, AuditRecord, AuditRecordInput } from './types.js';
import type { InputIssue } from './validate.js';
import { joinPath } from './validate.js';

interface AuditRow {
  id: string;
  occurred_at: unknown;
  session_id: string | null;
  client: string | null;
  principal: string | null;
  tool: string;
  namespaced_name: string | null;
  server: string | null;
  replica: string | null;
  annotations: ToolAnnotations | null;
  sources: Record<string, string> | null;
  dynamic: boolean;
  decision: string;
  approver: string | null;
  duration_ms: number | null;
  outcome: string;
  error: string | null;
  retries: number;
  cache_hit: boolean;
  arguments: unknown;
}

/** The most records one query returns. */
export const MAX_AUDIT_LIMIT = 10_000;

function toRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    time: isoTime(row.occurred_at),
    ...present('sessionId', row.session_id),
    ...present('client', row.client),
    ...present('principal', row.principal),
    tool: row.tool,
    ...present('namespacedName', row.namespaced_name),
    ...present('server', row.server),
    ...present('replica', row.replica),
    ...present('annotations', row.annotations),
    ...present('sources', row.sources),
    dynamic: row.dynamic,
    decision: row.decision,
    ...present('approver', row.approver),
    ...present('durationMs', row.duration_ms),
    outcome: row.outcome,
    ...present('error', row.error),
    retries: row.retries,
    cacheHit: row.cache_hit,
    ...present('arguments', row.arguments),
  };
}

function timeParam(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function isTime(value: Date | string): boolean {
  return !Number.isNaN(new Date(value).getTime());
}

/** Problems with an audit query (times that are not times). */
export function checkAuditQuery(query: AuditQuery): InputIssue[] {
  return (['since', 'until'] as const)
    .filter((key) => query[key] !== undefined && !isTime(query[key]))
    .map((key) => ({ path: key, message: 'must be a date' }));
}

/** Problems with records to append, by `records[i].field`. */
export function checkAuditRecords(records: readonly AuditRecordInput[]): InputIssue[] {
  const issues: InputIssue[] = [];
  records.forEach((record, index) => {
    const path = joinPath('records', index);
    for (const key of ['tool', 'decision', 'outcome'] as const) {
      if (typeof record[key] !== 'string' || record[key] === '') {
        issues.push({ path: joinPath(path, key), message: 'must be a non-empty string' });
      }
    }
    if (record.time !== undefined && !isTime(record.time)) {
      issues.push({ path: joinPath(path, 'time'), message: 'must be a date' });
    }
  });
  return issues;
}

/** Half of a surrogate pair with no other half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * What is kept of a record the database refused: who, what, when and how it ended, every
 * text made plain (well-formed, no NUL), without its arguments, annotations or sources, and
 * the reason in `error`.
 */
export function degradedRecord(record: AuditRecordInput, reason: string): AuditRecordInput {
  const plain = (text: string | undefined): string | undefined =>
    text === undefined
      ? undefined
      : text.replace(LONE_SURROGATE, '\ufffd').replaceAll('\u0000', '\\u0000');
  const kept = (key: keyof AuditRecordInput): string | undefined => {
    const value = record[key];
    return typeof value === 'string' ? plain(value) : undefined;
  };
  return {
    ...(record.time === undefined ? {} : { time: record.time }),
    tool: plain(record.tool) ?? 'unknown',
    decision: plain(record.decision) ?? 'unknown',
    outcome: plain(record.outcome) ?? 'unknown',
    ...present('sessionId', kept('sessionId')),
    ...present('client', kept('client')),
    ...present('namespacedName', kept('namespacedName')),
    ...present('server', kept('server')),
    error: plain(`audit record stored without its details: ${reason}`)!.slice(0, 2000),
  };
}

/** The columns {@link degradedCopyLine} keeps, as {@link degradedRecord} keeps its fields. */
const DEGRADED_COLUMNS = new Set([
  'occurred_at',
  'session_id',
  'client',
  'tool',
  'namespaced_name',
  'server',
  'decision',
  'outcome',
]);

/**
 * {@link degradedRecord} for a line of COPY's text format with `columns`: the kept columns as
 * they were (already escaped), the others null or their default, and the reason in `error`.
 */
export function degradedCopyLine(line: string, columns: readonly string[], reason: string): string {
  const values = line.split('\t');
  const error = copyText(degradedRecord({ tool: '', decision: '', outcome: '' }, reason).error!);
  return columns
    .map((column, index) => {
      if (DEGRADED_COLUMNS.has(column)) return values[index] ?? COPY_NULL;
      if (column === 'error') return error;
      if (column === 'retries') return '0';
      if (column === 'dynamic' || column === 'cache_hit') return 'f';
      return COPY_NULL;
    })
    .join('\t');
}

/** The columns of a record, in the order of each line {@link auditCopyLines} makes. */
export const AUDIT_COPY_COLUMNS = [
  'occurred_at',
  'session_id',
  'client',
  'tool',
  'namespaced_name',
  'server',
  'replica',
  'annotations',
  'sources',
  'dynamic',
  'decision',
  'approver',
  'duration_ms',
  'outcome',
  'error',
  'retries',
  'cache_hit',
  'arguments',
  'principal',
] as const;

/**
 * The JSON of objects every call of a tool shares (its annotations, the sources of each),
 * made once: records are built from objects that are never changed once made.
 */
const SHARED_JSON = new WeakMap<object, string>();

function sharedJson(value: object | undefined): string {
  if (value === undefined) return COPY_NULL;
  let json = SHARED_JSON.get(value);
  if (json === undefined) {
    json = copyJson(value);
    SHARED_JSON.set(value, json);
  }
  return json;
}

function optionalText(value: string | undefined): string {
  return value === undefined ? COPY_NULL : copyText(value);
}

/** A number for an integer column: rounded, as the column keeps it; `absent` if not finite. */
function integer(value: number | undefined, absent: string): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(Math.round(value)) : absent;
}

/**
 * Records as COPY's text format for {@link AUDIT_COPY_COLUMNS}, a line each (every line ends
 * with a line break); a record without a time gets this process's clock's.
 */
export function auditCopyLines(records: readonly AuditRecordInput[]): string {
  // Joined once: a text grown line by line is a tree of thousands of pieces, walked piece by
  // piece when it is flattened to be sent.
  return auditLines(records).join('');
}

/** {@link auditCopyLines}, each record's line on its own (the audit journal writes them so). */
export function auditLines(records: readonly AuditRecordInput[]): string[] {
  const now = new Date().toISOString();
  const lines = new Array<string>(records.length);
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as AuditRecordInput;
    const time = record.time === undefined ? now : timeParam(record.time);
    const args = record.arguments === undefined ? COPY_NULL : copyJson(record.arguments);
    // One line per record, its values in the order of AUDIT_COPY_COLUMNS.
    lines[index] =
      `${time}\t${optionalText(record.sessionId)}\t${optionalText(record.client)}\t` +
      `${copyText(record.tool)}\t${optionalText(record.namespacedName)}\t` +
      `${optionalText(record.server)}\t${optionalText(record.replica)}\t` +
      `${sharedJson(record.annotations)}\t${sharedJson(record.sources)}\t` +
      `${record.dynamic === true ? 't' : 'f'}\t${copyText(record.decision)}\t` +
      `${optionalText(record.approver)}\t${integer(record.durationMs, COPY_NULL)}\t` +
      `${copyText(record.outcome)}\t${optionalText(record.error)}\t` +
      `${integer(record.retries, '0')}\t${record.cacheHit === true ? 't' : 'f'}\t${args}\t` +
      `${optionalText(record.principal)}\n`;
  }
  return lines;
}

/**
 * Appends records in one `COPY`, in order ({@link auditCopyLines}). A record the database
 * refuses (a value that is not a number) fails the batch.
 */
export async function insertAuditRecords(
  sql: Sql,
  records: readonly AuditRecordInput[],
): Promise<void> {
  if (records.length === 0) return;
  await sql.copyFrom('audit_log', AUDIT_COPY_COLUMNS, auditCopyLines(records));
}

/** Records matching every given filter, newest first. */
export async function selectAuditRecords(sql: Sql, query: AuditQuery): Promise<AuditRecord[]> {
  const params: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.tool !== undefined) {
    const tool = param(query.tool);
    where.push(`(tool = ${tool} OR namespaced_name = ${tool})`);
  }
  if (query.server !== undefined) where.push(`server = ${param(query.server)}`);
  if (query.sessionId !== undefined) where.push(`session_id = ${param(query.sessionId)}`);
  if (query.principal !== undefined) where.push(`principal = ${param(query.principal)}`);
  if (query.decision !== undefined) where.push(`decision = ${param(query.decision)}`);
  if (query.outcome !== undefined) where.push(`outcome = ${param(query.outcome)}`);
  if (query.since !== undefined) {
    where.push(`occurred_at >= ${param(timeParam(query.since))}::timestamptz`);
  }
  if (query.until !== undefined) {
    where.push(`occurred_at < ${param(timeParam(query.until))}::timestamptz`);
  }
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 100), 1), MAX_AUDIT_LIMIT);
  const rows = await sql.query<AuditRow>(
    `SELECT id::text AS id, occurred_at, session_id, client, tool, namespaced_name, server,
       replica, annotations, sources, dynamic, decision, approver, duration_ms, outcome, error,
       retries, cache_hit, arguments, principal
     FROM audit_log ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
     ORDER BY occurred_at DESC, id DESC LIMIT ${param(limit)}`,
    params,
  );
  return rows.map(toRecord);
}
