import { userInfo } from 'node:os';
import { HintgateError } from '../core/errors.js';
import type { Approval, ApprovalStatus } from '../store/types.js';
import { writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';
import { say } from './store-commands.js';
import { APPROVAL_STATUSES } from '../store/approvals.js';

/** Options of the `approvals` subcommands. */
export interface ApprovalsOptions extends StoreCommandOptions {
  readonly json?: boolean;
  readonly status?: string;
  readonly limit?: string;
  readonly note?: string;
  readonly by?: string;
}

/** `hintgate approvals list`. */
export async function runApprovalsList(options: ApprovalsOptions): Promise<void> {
  const status = options.status ?? 'pending';
  if (status !== 'all' && !APPROVAL_STATUSES.includes(status as ApprovalStatus)) {
    throw new HintgateError(
      'INPUT_INVALID',
      `--status: expected one of ${APPROVAL_STATUSES.join(', ')} or all, got "${status}"`,
    );
  }
  const limit = wholeNumber(options.limit ?? '100', '--limit');
  const approvals = await withStore(options, (store) =>
    store.listApprovals({
      ...(status === 'all' ? {} : { status: status as ApprovalStatus }),
      limit,
    }),
  );
  if (options.json === true) return writeOut(formatJson(approvals));
  if (approvals.length === 0)
    return writeOut(`(no ${status === 'all' ? '' : `${status} `}approvals)\n`);
  return writeOut(
    `${formatTable(approvals, [
      { heading: 'id', cell: (approval: Approval) => approval.id },
      { heading: 'status', cell: (approval) => approval.status },
      { heading: 'tool', cell: (approval) => approval.tool },
      { heading: 'client', cell: (approval) => approval.client ?? '-' },
      { heading: 'created', cell: (approval) => approval.createdAt },
      {
        heading: 'expires / decided',
        cell: (approval) =>
          approval.status === 'pending'
            ? `expires ${approval.expiresAt}`
            : `${approval.decidedBy ?? ''} ${approval.decidedAt ?? ''}`.trim(),
      },
      { heading: 'arguments', cell: (approval) => clip(JSON.stringify(approval.arguments) ?? '') },
    ])}\n`,
  );
}

/** `hintgate approvals show <id>`. */
export async function runApprovalsShow(id: string, options: ApprovalsOptions): Promise<void> {
  const approval = await withStore(options, (store) => store.getApproval(id));
  if (approval === undefined) throw new HintgateError('NOT_FOUND', `no approval ${id}`, { id });
  if (options.json === true) return writeOut(formatJson(approval));
  const lines = [
    `approval ${approval.id}: ${approval.status}`,
    `tool:      ${approval.tool} (server ${approval.server})`,
    `client:    ${approval.client ?? '-'} (session ${approval.sessionId ?? '-'})`,
    `why:       ${approval.reason}`,
    `created:   ${approval.createdAt}`,
    `expires:   ${approval.expiresAt}`,
    ...(approval.decidedBy === undefined
      ? []
      : [`decided:   by ${approval.decidedBy} at ${approval.decidedAt ?? '?'}`]),
    ...(approval.note === undefined ? [] : [`note:      ${approval.note}`]),
    `arguments: ${JSON.stringify(approval.arguments, null, 2)}`,
  ];
  return writeOut(`${lines.join('\n')}\n`);
}

/** `hintgate approvals approve|deny <id>`. */
export async function runApprovalsDecide(
  id: string,
  status: 'approved' | 'denied',
  options: ApprovalsOptions,
): Promise<void> {
  const by = `cli:${options.by ?? userName()}`;
  const approval = await withStore(options, (store) =>
    store.decideApproval(id, {
      status,
      by,
      ...(options.note === undefined ? {} : { note: options.note }),
    }),
  );
  if (options.json === true) return writeOut(formatJson(approval));
  say(`${status} ${approval.id}: ${approval.tool} (${by})`);
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

function wholeNumber(value: string, option: string): number {
  if (!/^\d+$/.test(value))
    throw new HintgateError('INPUT_INVALID', `${option}: expected a whole number, got "${value}"`);
  return Number(value);
}

function clip(text: string, length = 60): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
