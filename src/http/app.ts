import { Hono } from 'hono';
import type { HttpSecurity } from './auth.js';
import { checkRequest } from './auth.js';
import type { McpEndpoint } from '../front/http-endpoint.js';
import type { DashboardSessions } from './ui/session.js';
import { CSRF_HEADER } from './ui/session.js';

/** Mounts more routes on the app (the `/api` routes of later issues). */
export type RouteMounter = (app: Hono, security: HttpSecurity) => void;

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  readonly endpoint: McpEndpoint;
  readonly security: HttpSecurity;
  /** Extra routes, mounted after `/mcp` and behind the same checks. */
  readonly routes?: readonly RouteMounter[];
  /**
   * The dashboard's sessions: a browser signed in to the dashboard may call `/api` with its
   * session cookie instead of the bearer token (Host checked; a state-changing request must
   * come from this origin with the session's CSRF token in `X-CSRF-Token`).
   */
  readonly sessions?: DashboardSessions;
}

/** The principal recorded for a request that passed the bearer check. */
const TOKEN_PRINCIPAL = 'bearer';

/**
 * The HTTP front as a hono app: `/mcp` (streamable HTTP, both eras) behind the Host, Origin
 * and bearer checks; `/api/*` is left to later routes, behind the same checks.
 */
export function createHttpApp(options: HttpAppOptions): Hono {
  const { endpoint, security } = options;
  const app = new Hono();
  app.use('/mcp', async (c, next) => {
    const refused = checkRequest(c.req.raw, security);
    if (refused !== undefined) return refused;
    await next();
    return undefined;
  });
  const { sessions } = options;
  app.use('/api/*', async (c, next) => {
    const session = sessions?.sessionOf(c.req.raw);
    if (sessions !== undefined && session !== undefined) {
      const refused = sessions.checkHost(c.req.raw);
      if (refused !== undefined) return refused;
      const problem = sessions.refuseUnsafe(c.req.raw, session, c.req.header(CSRF_HEADER));
      if (problem !== undefined) {
        return c.json({ error: { code: 'FORBIDDEN', message: problem } }, 403);
      }
    } else {
      const refused = checkRequest(c.req.raw, security);
      if (refused !== undefined) return refused;
    }
    await next();
    return undefined;
  });
  app.all('/mcp', (c) =>
    endpoint.fetch(c.req.raw, security.token === undefined ? undefined : TOKEN_PRINCIPAL),
  );
  for (const mount of options.routes ?? []) mount(app, security);
  app.notFound((c) => c.json({ error: 'not found', path: c.req.path }, 404));
  return app;
}
