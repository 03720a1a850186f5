import type { Store } from '../../store/store.js';
import type { RouteMounter } from '../app.js';
import type { ApproverRole } from './decision.js';
import { approvalsApi } from './approvals.js';
import { auditApi } from './audit.js';
import type { HealthServer } from './health.js';
import { healthApi } from './health.js';
import { pinsApi } from './pins.js';
import { statsApi } from './stats.js';

/** What the call-path routes read. */
export interface CallApiParts {
  readonly store: Pick<
    Store,
    | 'listApprovals'
    | 'getApproval'
    | 'decideApproval'
    | 'queryAudit'
    | 'listToolsets'
    | 'listPins'
    | 'decidePins'
    | 'appendAudit'
  >;
  readonly stats: () => unknown;
  /** Who may decide approvals. */
  readonly approvers: ApproverRole;
  /** The servers' states, for `/health` (none: only the store is checked). */
  readonly servers?: () => readonly HealthServer[];
}

/** `/api/approvals`, `/api/audit`, `/api/pins`, `/api/stats` and `/health`. */
export function callApiRoutes(parts: CallApiParts): RouteMounter[] {
  return [
    approvalsApi(parts.store, parts.approvers),
    auditApi(parts.store),
    pinsApi(parts.store, parts.approvers),
    statsApi(parts.stats),
    healthApi({ store: parts.store, servers: parts.servers ?? (() => []) }),
  ];
}
