import type { Hono } from 'hono';
import type { ApprovalStatus, Store } from '../../store/store.js';
import type { RouteMounter } from '../app.js';
import type { ApproverRole } from './decision.js';
import { forbidden, readDecision } from './decision.js';
import { apiError, badRequest } from './errors.js';
import { APPROVAL_STATUSES } from '../../store/approvals.js';

/**
 * The approval queue over HTTP, behind the front's checks (bearer token, Host, Origin):
 *
 * - `GET /api/approvals[?status=pending|approved|denied|expired|withdrawn|all&limit=100]`: approvals,
 *   newest first, pending ones by default;
 * - `GET /api/approvals/:id`: one approval;
 * - `POST /api/approvals/:id/approve` and `…/deny`, with an optional JSON body
 *   `{ "note": "…", "by": "alice" }`: decides a pending approval (recorded as decided by
 *   `api:<principal>[/<by>]`); 404 for an unknown id, 409 when it is no longer pending.
 *   Only a principal with the approver role may decide (403 otherwise), never the principal
 *   that made the call, and never an anonymous request (auth off, no token): a person
 *   approves, not the caller.
 *
 * A call waiting for the approval (on this gateway or another sharing the store) goes on
 * or is refused as soon as the decision is stored.
 */
export function approvalsApi(
  store: Pick<Store, 'listApprovals' | 'getApproval' | 'decideApproval'>,
  approvers: ApproverRole,
): RouteMounter {
  return (app: Hono) => {
    app.get('/api/approvals', async (c) => {
      // Pending ones unless asked otherwise, as `hintgate approvals list`; `all` for every one.
      const status = c.req.query('status') ?? 'pending';
      const limit = c.req.query('limit');
      if (status !== 'all' && !APPROVAL_STATUSES.includes(status as ApprovalStatus))
        return badRequest(c, `status: expected one of ${APPROVAL_STATUSES.join(', ')} or all`);
      if (limit !== undefined && !/^\d+$/.test(limit))
        return badRequest(c, 'limit: expected a whole number');
      try {
        const approvals = await store.listApprovals({
          ...(status === 'all' ? {} : { status: status as ApprovalStatus }),
          ...(limit === undefined ? {} : { limit: Number(limit) }),
        });
        return c.json({ approvals });
      } catch (error) {
        return apiError(c, error);
      }
    });
    app.get('/api/approvals/:id', async (c) => {
      try {
        const approval = await store.getApproval(c.req.param('id'));
        if (approval === undefined)
          return c.json(
            { error: { code: 'NOT_FOUND', message: `no approval ${c.req.param('id')}` } },
            404,
          );
        return c.json(approval);
      } catch (error) {
        return apiError(c, error);
      }
    });
    for (const [action, status] of [
      ['approve', 'approved'],
      ['deny', 'denied'],
    ] as const) {
      app.post(`/api/approvals/:id/${action}`, async (c) => {
        const decision = await readDecision(
          c,
          approvers,
          'approvals',
          `hintgate approvals ${action}`,
        );
        if (decision instanceof Response) return decision;
        const { principal } = decision;
        const id = c.req.param('id');
        try {
          const asked = await store.getApproval(id);
          if (asked?.requestedBy !== undefined && asked.requestedBy === principal.name)
            return forbidden(
              c,
              `${principal.name} made this call and may not decide its approval; another approver must`,
            );
          const approval = await store.decideApproval(id, {
            status,
            by: decision.by,
            ...(decision.note === undefined ? {} : { note: decision.note }),
          });
          return c.json(approval);
        } catch (error) {
          return apiError(c, error);
        }
      });
    }
  };
}
