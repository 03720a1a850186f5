import type { Hono } from 'hono';
import { errorMessage } from '../../core/errors.js';
import { parseWhen } from '../../core/util/when.js';
import { MAX_AUDIT_LIMIT } from '../../store/audit.js';
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
 * (flattened or namespaced name), `server`, `session`, `principal`, `decision`, `outcome`,
 * `since` and `until` (ISO 8601 dates or a time ago: `10m`) and `limit` (1 to 10,000,
 * default 100); records newest first
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
        if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_AUDIT_LIMIT)
          return badRequest(c, `limit: expected a whole number from 1 to ${MAX_AUDIT_LIMIT}`);
        query['limit'] = Number(limit);
      }
      // Dates as the CLI takes them: ISO 8601, or a time ago (30s, 10m, 2h, 7d).
      for (const key of ['since', 'until']) {
        const value = query[key];
        if (typeof value !== 'string') continue;
        try {
          query[key] = parseWhen(value, key);
        } catch (error) {
          return badRequest(c, errorMessage(error));
        }
      }
      try {
        return c.json({ records: await store.queryAudit(query as AuditQuery) });
      } catch (error) {
        return apiError(c, error);
      }
    });
  };
}
