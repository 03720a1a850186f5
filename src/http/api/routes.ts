import type { Store } from '../../store/store.js';
import type { RouteMounter } from '../app.js';
import { approvalsApi } from './approvals.js';
import { auditApi } from './audit.js';
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
    | 'listPins'
    | 'decidePins'
    | 'appendAudit'
  >;
  readonly stats: () => unknown;
}

/** `/api/approvals`, `/api/audit`, `/api/pins` and `/api/stats`. */
export function callApiRoutes(parts: CallApiParts): RouteMounter[] {
  return [
    approvalsApi(parts.store),
    auditApi(parts.store),
    pinsApi(parts.store),
    statsApi(parts.stats),
  ];
}
