import { HintgateError } from '../core/errors.js';
import { parseWhen } from '../core/util/when.js';
import { MAX_AUDIT_LIMIT } from '../store/audit.js';
import type { AuditQuery, AuditRecord } from '../store/types.js';
import { writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';

export { parseWhen } from '../core/util/when.js';

/** Options of `hintgate audit`. */
export interface AuditOptions extends StoreCommandOptions {
  readonly json?: boolean;
  readonly tool?: string;
  readonly server?: string;
  readonly since?: string;
  readonly until?: string;
  readonly decision?: string;
  readonly outcome?: string;
  readonly session?: string;
  readonly limit?: string;
}

/** `hintgate audit [--tool --server --since --until --decision --outcome --session --limit --json]`. */
export async function runAudit(options: AuditOptions): Promise<void> {
  const limit = options.limit ?? '100';
  if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_AUDIT_LIMIT)
    throw new HintgateError(
      'INPUT_INVALID',
      `--limit: expected a whole number from 1 to ${MAX_AUDIT_LIMIT}, got "${limit}"`,
    );
  const query: AuditQuery = {
    ...(options.tool === undefined ? {} : { tool: options.tool }),
    ...(options.server === undefined ? {} : { server: options.server }),
    ...(options.decision === undefined ? {} : { decision: options.decision }),
    ...(options.outcome === undefined ? {} : { outcome: options.outcome }),
    ...(options.session === undefined ? {} : { sessionId: options.session }),
    ...(options.since === undefined ? {} : { since: parseWhen(options.since, '--since') }),
    ...(options.until === undefined ? {} : { until: parseWhen(options.until, '--until') }),
    limit: Number(limit),
  };
  const records = await withStore(options, (store) => store.queryAudit(query));
  if (options.json === true) return writeOut(formatJson(records));
  if (records.length === 0) return writeOut('(no audit records)\n');
  return writeOut(
    `${formatTable(records, [
      { heading: 'time', cell: (record: AuditRecord) => record.time },
      { heading: 'tool', cell: (record) => record.namespacedName ?? record.tool },
      { heading: 'replica', cell: (record) => record.replica ?? '-' },
      { heading: 'decision', cell: (record) => record.decision },
      { heading: 'approver', cell: (record) => record.approver ?? '-' },
      { heading: 'outcome', cell: (record) => record.outcome },
      { heading: 'ms', cell: (record) => String(record.durationMs ?? '-'), right: true },
      { heading: 'retries', cell: (record) => String(record.retries), right: true },
      { heading: 'cache', cell: (record) => (record.cacheHit ? 'hit' : '-') },
      { heading: 'client', cell: (record) => record.client ?? '-' },
    ])}\n`,
  );
}
