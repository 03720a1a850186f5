import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Principal } from '../gateway/access.js';
import type { HttpSecurity } from './auth.js';
import { authenticate } from './auth.js';
import type { McpEndpoint } from '../front/http-endpoint.js';

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
  app.use('/mcp', check);
  app.use('/api/*', check);
  // The endpoint binds each 2025 session to the principal that opened it.
  app.all('/mcp', (c) => endpoint.fetch(c.req.raw, requestPrincipal(c)?.name));
  for (const mount of options.routes ?? []) mount(app, security);
  app.notFound((c) => c.json({ error: 'not found', path: c.req.path }, 404));
  return app;
}
