import type { Hono } from 'hono';
import type { AuditQuery, Store } from '../../store/store.js';
import type { RouteMounter } from '../app.js';
import { apiError, badRequest } from './errors.js';

/** Query parameters of `GET /api/audit` and the filter field each sets. */
const FILTERS = {
  tool: 'tool',
  server: 'server',
  session: 'sessionId',
  principal: 'principal',
  decision: 'decision',
  outcome: 'outcome',
  since: 'since',
  until: 'until',
} as const;

/**
 * The audit log over HTTP, behind the front's checks: `GET /api/audit` with any of `tool`
 * (flattened or namespaced name), `server`, `session`, `principal`, `decision`, `outcome`, `since` and
 * `until` (ISO 8601 dates) and `limit` (default 100, at most 10,000); records newest first
 * as `{ records: [...] }`. Arguments in records are as the audit step kept them (secrets
 * redacted).
 */
export function auditApi(store: Pick<Store, 'queryAudit'>): RouteMounter {
  return (app: Hono) => {
    app.get('/api/audit', async (c) => {
      const query: Record<string, unknown> = {};
      for (const [param, field] of Object.entries(FILTERS)) {
        const value = c.req.query(param);
        if (value !== undefined && value !== '') query[field] = value;
      }
      const limit = c.req.query('limit');
      if (limit !== undefined) {
        if (!/^\d+$/.test(limit)) return badRequest(c, 'limit: expected a whole number');
        query['limit'] = Number(limit);
      }
      for (const key of ['since', 'until']) {
        const value = query[key];
        if (typeof value === 'string' && Number.isNaN(Date.parse(value)))
          return badRequest(c, `${key}: expected a date (ISO 8601)`);
      }
      try {
        return c.json({ records: await store.queryAudit(query as AuditQuery) });
      } catch (error) {
        return apiError(c, error);
      }
    });
  };
}
