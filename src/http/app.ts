import { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Principal } from '../gateway/access.js';
import { ANONYMOUS } from '../gateway/access.js';
import type { HttpSecurity } from './auth.js';
import { authenticate } from './auth.js';
import type { McpEndpoint } from '../front/http-endpoint.js';
import type { DashboardSessions } from './ui/session.js';
import { CSRF_HEADER } from './ui/session.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** Who made the request, set by the front's checks (undefined: auth off, no token). */
    principal: Principal | undefined;
  }
}

/** Mounts more routes on the app (the `/api` routes). */
export type RouteMounter = (app: Hono, security: HttpSecurity) => void;

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  readonly endpoint: McpEndpoint;
  readonly security: HttpSecurity;
  /** Extra routes, mounted after `/mcp` and behind the same checks. */
  readonly routes?: readonly RouteMounter[];
  /** Told of each principal a request authenticated as (groups of OAuth principals). */
  readonly onPrincipal?: (principal: Principal) => void;
  /**
   * The dashboard's sessions: a browser signed in to the dashboard may call `/api` with its
   * session cookie instead of the bearer token (Host checked; a state-changing request must
   * come from this origin with the session's CSRF token in `X-CSRF-Token`).
   */
  readonly sessions?: DashboardSessions;
}

/** The principal that passed the front's checks for this request. */
export function requestPrincipal(c: Context): Principal | undefined {
  return c.get('principal');
}

/**
 * The HTTP front as a hono app: `/mcp` (streamable HTTP, both eras) behind the Host, Origin
 * and bearer checks, each request carrying its principal to the gateway; `/api/*` behind the
 * same checks. A 2025 session belongs to the principal that opened it: another principal's
 * request in it is answered as for an unknown session.
 */
export function createHttpApp(options: HttpAppOptions): Hono {
  const { endpoint, security } = options;
  const app = new Hono();
  const check = async (c: Context, next: () => Promise<void>): Promise<Response | undefined> => {
    const checked = await authenticate(c.req.raw, security);
    if (checked instanceof Response) return checked;
    if (checked.principal !== undefined) options.onPrincipal?.(checked.principal);
    c.set('principal', checked.principal);
    await next();
    return undefined;
  };
  const { sessions } = options;
  app.use('/mcp', check);
  app.use('/api/*', async (c, next) => {
    const session = sessions?.sessionOf(c.req.raw);
    if (sessions === undefined || session === undefined) return check(c as Context, next);
    // A browser signed in to the dashboard: its session stands for the principal that signed in.
    const refused = sessions.checkHost(c.req.raw);
    if (refused !== undefined) return refused;
    const problem = sessions.refuseUnsafe(c.req.raw, session, c.req.header(CSRF_HEADER));
    if (problem !== undefined)
      return c.json({ error: { code: 'FORBIDDEN', message: problem } }, 403);
    c.set('principal', principalNamed(security, session.principal));
    await next();
    return undefined;
  });
  // The endpoint binds each 2025 session to the principal that opened it.
  app.all('/mcp', (c) =>
    endpoint.fetch(c.req.raw, requestPrincipal(c)?.name, nodeResponseOf(c.env)),
  );
  for (const mount of options.routes ?? []) mount(app, security);
  app.notFound((c) => c.json({ error: 'not found', path: c.req.path }, 404));
  return app;
}

/** The Node response `@hono/node-server` passes a request with (in `env`), if it did. */
function nodeResponseOf(env: unknown): ServerResponse | undefined {
  if (typeof env !== 'object' || env === null || !('outgoing' in env)) return undefined;
  const { outgoing } = env;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}

/** The principal of a name a dashboard session carries (with its token's groups). */
function principalNamed(security: HttpSecurity, name: string): Principal | undefined {
  if (name === ANONYMOUS) return undefined;
  return (
    security.tokens.find((entry) => entry.principal.name === name)?.principal ?? {
      name,
      groups: [],
    }
  );
}
