import type { Context, Hono } from 'hono';
import { decidePins, pinTargetOf } from '../../gateway/pins/decide.js';
import { PIN_STATUSES } from '../../store/pins.js';
import type { PinStatus, Store } from '../../store/store.js';
import type { RouteMounter } from '../app.js';
import type { ApproverRole } from './decision.js';
import { readDecision } from './decision.js';
import { apiError, badRequest } from './errors.js';

/**
 * Tool pins over HTTP, behind the front's checks, for the dashboard:
 *
 * - `GET /api/pins[?server=s&status=pending]`: pins with their status and graded drift;
 * - `GET /api/pins/:tool` (`server.tool`): one pin, its drift field by field;
 * - `POST /api/pins/:tool/approve|reject` (or `/api/pins/server/:server/approve|reject` for
 *   every waiting tool of a server), optional body `{ "note": "…", "by": "alice" }`: decided
 *   as `api:<principal>[/<by>]` by a principal with the approver role (403 otherwise),
 *   recorded in the audit log; 404 when nothing waits.
 *
 * The running gateways apply a decision at once and send list_changed.
 */
export function pinsApi(
  store: Pick<Store, 'listPins' | 'decidePins' | 'appendAudit'>,
  approvers: ApproverRole,
): RouteMounter {
  return (app: Hono) => {
    app.get('/api/pins', async (c) => {
      const server = c.req.query('server');
      const status = c.req.query('status');
      if (status !== undefined && !PIN_STATUSES.includes(status as PinStatus))
        return badRequest(c, `status: expected one of ${PIN_STATUSES.join(', ')}`);
      try {
        const pins = await store.listPins({
          ...(server === undefined ? {} : { server }),
          ...(status === undefined ? {} : { status: status as PinStatus }),
        });
        return c.json({ pins });
      } catch (error) {
        return apiError(c, error);
      }
    });
    app.get('/api/pins/:tool', async (c) => {
      const target = pinTargetOf(c.req.param('tool'));
      if (target?.tool === undefined) return badRequest(c, 'tool: expected server.tool');
      try {
        const [pin] = await store.listPins({ server: target.server, tool: target.tool });
        if (pin === undefined)
          return c.json(
            { error: { code: 'NOT_FOUND', message: `no pin for ${c.req.param('tool')}` } },
            404,
          );
        return c.json(pin);
      } catch (error) {
        return apiError(c, error);
      }
    });
    for (const action of ['approve', 'reject'] as const) {
      const decide = async (
        c: Context,
        target: { server: string; tool?: string },
      ): Promise<Response> => {
        // A changed definition is trusted by a person with the approver role, as a call is.
        const decision = await readDecision(c, approvers, 'pins', `hintgate pins ${action}`);
        if (decision instanceof Response) return decision;
        try {
          const pins = await decidePins(store as Store, target, {
            action,
            by: decision.by,
            ...(decision.note === undefined ? {} : { note: decision.note }),
          });
          return c.json({ pins });
        } catch (error) {
          return apiError(c, error);
        }
      };
      app.post(`/api/pins/server/:server/${action}`, (c) =>
        decide(c, { server: c.req.param('server') }),
      );
      app.post(`/api/pins/:tool/${action}`, (c) => {
        const target = pinTargetOf(c.req.param('tool'));
        if (target === undefined) return badRequest(c, 'tool: expected server.tool');
        return decide(c, target);
      });
    }
  };
}
