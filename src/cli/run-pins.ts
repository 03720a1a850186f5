import { userInfo } from 'node:os';
import { HintgateError } from '../core/errors.js';
import { decidePins, pinTargetOf } from '../gateway/pins/decide.js';
import { PIN_STATUSES } from '../store/pins.js';
import type { PinStatus, PinTarget, ToolPin } from '../store/types.js';
import { writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';
import { say } from './store-commands.js';

/** Options of the `pins` subcommands. */
export interface PinsOptions extends StoreCommandOptions {
  readonly json?: boolean;
  readonly server?: string;
  readonly status?: string;
  readonly note?: string;
  readonly by?: string;
}

function grades(pin: ToolPin): string {
  if (pin.drift === undefined) return '-';
  const renamed = pin.drift.renamedFrom === undefined ? '' : ` (from ${pin.drift.renamedFrom})`;
  return `${pin.drift.grades.join(', ')}${renamed}`;
}

/** `hintgate pins list [--server S] [--status s]`. */
export async function runPinsList(options: PinsOptions): Promise<void> {
  const status = options.status;
  if (status !== undefined && status !== 'all' && !PIN_STATUSES.includes(status as PinStatus)) {
    throw new HintgateError(
      'INPUT_INVALID',
      `--status: expected one of ${PIN_STATUSES.join(', ')} or all, got "${status}"`,
    );
  }
  const pins = await withStore(options, (store) =>
    store.listPins({
      ...(options.server === undefined ? {} : { server: options.server }),
      ...(status === undefined || status === 'all' ? {} : { status: status as PinStatus }),
    }),
  );
  if (options.json === true) return writeOut(formatJson(pins));
  if (pins.length === 0) return writeOut('(no pinned tools)\n');
  return writeOut(
    `${formatTable(pins, [
      { heading: 'tool', cell: (pin: ToolPin) => `${pin.server}.${pin.tool}` },
      { heading: 'status', cell: (pin) => pin.status },
      { heading: 'drift', cell: grades },
      { heading: 'hash', cell: (pin) => (pin.hash ?? '-').slice(0, 12) },
      { heading: 'updated', cell: (pin) => pin.updatedAt },
    ])}\n`,
  );
}

function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
  return text.length > 400 ? `${text.slice(0, 399)}…` : text;
}

/** A drift as people read it: one block per changed field, then the suspicious text. */
export function formatPinDiff(pin: ToolPin): string {
  const name = `${pin.server}.${pin.tool}`;
  const drift = pin.drift;
  if (drift === undefined || pin.pending === undefined)
    return `${name}: ${pin.status}, nothing waits (hash ${pin.hash ?? '-'})\n`;
  const lines = [
    `${name}: ${pin.status} — ${drift.kind} tool: ${drift.grades.join(', ')}`,
    ...(drift.renamedFrom === undefined ? [] : [`renamed from: ${drift.renamedFrom}`]),
    `pinned:  ${pin.hash ?? '(nothing: a new tool)'}`,
    `pending: ${pin.pendingHash ?? '-'}`,
  ];
  for (const change of drift.changes) {
    lines.push('', `${change.path}  [${change.grade}]`);
    lines.push(`  - ${show(change.before)}`, `  + ${show(change.after)}`);
  }
  if (drift.kind === 'new' && drift.renamedFrom === undefined)
    lines.push('', `definition: ${JSON.stringify(pin.pending, null, 2)}`);
  for (const finding of drift.findings) {
    lines.push('', `suspicious text in ${finding.field} (${finding.kind}): ${finding.message}`);
    lines.push(`  ${finding.excerpt}`);
  }
  return `${lines.join('\n')}\n`;
}

function targetOf(tool: string | undefined, server: string | undefined): PinTarget {
  if (tool !== undefined) {
    const target = pinTargetOf(tool);
    if (target === undefined)
      throw new HintgateError(
        'INPUT_INVALID',
        `tool "${tool}": expected server.tool (e.g. notes.get_note)`,
      );
    if (server !== undefined && server !== target.server)
      throw new HintgateError('INPUT_INVALID', `--server ${server} differs from "${tool}"`);
    return target;
  }
  if (server === undefined)
    throw new HintgateError('INPUT_INVALID', 'name a tool (server.tool) or give --server');
  return { server };
}

/** `hintgate pins diff <tool>`. */
export async function runPinsDiff(tool: string, options: PinsOptions): Promise<void> {
  const target = targetOf(tool, undefined);
  const [pin] = await withStore(options, (store) =>
    store.listPins({
      server: target.server,
      ...(target.tool === undefined ? {} : { tool: target.tool }),
    }),
  );
  if (pin === undefined) throw new HintgateError('NOT_FOUND', `no pin for ${tool}`, { tool });
  if (options.json === true) return writeOut(formatJson(pin));
  return writeOut(formatPinDiff(pin));
}

/** `hintgate pins approve|reject [<tool>] [--server S]`. */
export async function runPinsDecide(
  tool: string | undefined,
  action: 'approve' | 'reject',
  options: PinsOptions,
): Promise<void> {
  const target = targetOf(tool, options.server);
  const by = `cli:${options.by ?? userName()}`;
  const decided = await withStore(options, (store) =>
    decidePins(store, target, {
      action,
      by,
      ...(options.note === undefined ? {} : { note: options.note }),
    }),
  );
  if (options.json === true) return writeOut(formatJson(decided));
  for (const pin of decided)
    say(`${action === 'approve' ? 'approved' : 'rejected'} ${pin.server}.${pin.tool} (${by})`);
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
