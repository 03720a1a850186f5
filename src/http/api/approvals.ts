import type { Hono } from 'hono';
import type { ApprovalStatus, Store } from '../../store/store.js';
import type { RouteMounter } from '../app.js';
import { apiError, badRequest, principalOf } from './errors.js';

const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];

/**
 * The approval queue over HTTP, behind the front's checks (bearer token, Host, Origin):
 *
 * - `GET /api/approvals[?status=pending|…|all&limit=100]`: approvals, newest first;
 * - `GET /api/approvals/:id`: one approval;
 * - `POST /api/approvals/:id/approve` and `…/deny`, with an optional JSON body
 *   `{ "note": "…", "by": "alice" }`: decides a pending approval (recorded as decided by
 *   `api:<principal>[/<by>]`); 404 for an unknown id, 409 when it is no longer pending.
 *
 * A call waiting for the approval (on this gateway or another sharing the store) goes on
 * or is refused as soon as the decision is stored.
 */
export function approvalsApi(
  store: Pick<Store, 'listApprovals' | 'getApproval' | 'decideApproval'>,
): RouteMounter {
  return (app: Hono, security) => {
    app.get('/api/approvals', async (c) => {
      // `all` (as the CLI takes it) is the same as no status.
      const given = c.req.query('status');
      const status = given === 'all' ? undefined : given;
      const limit = c.req.query('limit');
      if (status !== undefined && !STATUSES.includes(status as ApprovalStatus))
        return badRequest(c, `status: expected all or one of ${STATUSES.join(', ')}`);
      if (limit !== undefined && !/^\d+$/.test(limit))
        return badRequest(c, 'limit: expected a whole number');
      try {
        const approvals = await store.listApprovals({
          ...(status === undefined ? {} : { status: status as ApprovalStatus }),
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
        let body: unknown = {};
        const text = await c.req.text();
        if (text.trim() !== '') {
          try {
            body = JSON.parse(text);
          } catch {
            return badRequest(c, 'expected a JSON body (or none)');
          }
        }
        const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<
          string,
          unknown
        >;
        const note = fields['note'];
        const by = fields['by'];
        if (note !== undefined && typeof note !== 'string')
          return badRequest(c, 'note: expected a string');
        if (by !== undefined && (typeof by !== 'string' || !/^[\w.@-]{1,64}$/.test(by)))
          return badRequest(c, 'by: expected a name (letters, digits, . _ @ -)');
        try {
          const approval = await store.decideApproval(c.req.param('id'), {
            status,
            by: `api:${principalOf(c.req.raw, security)}${by === undefined ? '' : `/${by}`}`,
            ...(note === undefined ? {} : { note }),
          });
          return c.json(approval);
        } catch (error) {
          return apiError(c, error);
        }
      });
    }
  };
}
