import type { Store } from '../../store/store.js';
import type { RouteMounter } from '../app.js';
import type { ApproverRole } from './approvals.js';
import { approvalsApi } from './approvals.js';
import { auditApi } from './audit.js';
import { statsApi } from './stats.js';

/** What the call-path routes read. */
export interface CallApiParts {
  readonly store: Pick<Store, 'listApprovals' | 'getApproval' | 'decideApproval' | 'queryAudit'>;
  readonly stats: () => unknown;
  /** Who may decide approvals. */
  readonly approvers: ApproverRole;
}

/** `/api/approvals`, `/api/audit` and `/api/stats`. */
export function callApiRoutes(parts: CallApiParts): RouteMounter[] {
  return [approvalsApi(parts.store, parts.approvers), auditApi(parts.store), statsApi(parts.stats)];
}
