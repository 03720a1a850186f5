import type { ApprovalStatus, StoreEvent } from './types.js';
import { APPROVAL_STATUSES } from './approvals.js';

/** The PostgreSQL NOTIFY channel carrying store changes (per schema when one is set). */
export function changeChannel(schema: string | undefined): string {
  return schema === undefined ? 'hintgate_changes' : `hintgate_changes_${schema}`;
}

/** A change as it travels between processes: the event and the store it came from. */
export interface Change {
  readonly origin: string;
  readonly event: StoreEvent;
}

/** A change as a NOTIFY payload. */
export function encodeChange(origin: string, event: StoreEvent): string {
  return JSON.stringify({ origin, event });
}

/** A NOTIFY payload as a change; undefined when it is not one this version understands. */
export function decodeChange(payload: string): Change | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { origin, event } = value as { origin?: unknown; event?: unknown };
  if (typeof origin !== 'string' || typeof event !== 'object' || event === null) return undefined;
  const fields = event as Record<string, unknown>;
  const name = fields['name'];
  const id = fields['id'];
  const status = fields['status'];
  switch (fields['kind']) {
    case 'toolset':
      return typeof name === 'string' ? { origin, event: { kind: 'toolset', name } } : undefined;
    case 'overrides':
      return { origin, event: { kind: 'overrides' } };
    case 'default-toolset':
      return { origin, event: { kind: 'default-toolset' } };
    case 'pins':
    case 'drift':
    case 'oauth': {
      const kind = fields['kind'];
      const server = fields['server'];
      return typeof server === 'string' ? { origin, event: { kind, server } } : undefined;
    }
    case 'approval':
      return typeof id === 'string' && APPROVAL_STATUSES.includes(status as ApprovalStatus)
        ? { origin, event: { kind: 'approval', id, status: status as ApprovalStatus } }
        : undefined;
    default:
      return undefined;
  }
}
