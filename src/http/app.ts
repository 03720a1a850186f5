import { Hono } from 'hono';
import type { HttpSecurity } from './auth.js';
import { checkRequest, requestPrincipal } from './auth.js';
import type { McpEndpoint } from '../front/http-endpoint.js';

/** Mounts more routes on the app (the `/api` routes of later issues). */
export type RouteMounter = (app: Hono, security: HttpSecurity) => void;

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  readonly endpoint: McpEndpoint;
  readonly security: HttpSecurity;
  /** Extra routes, mounted after `/mcp` and behind the same checks. */
  readonly routes?: readonly RouteMounter[];
}

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
  app.use('/api/*', async (c, next) => {
    const refused = checkRequest(c.req.raw, security);
    if (refused !== undefined) return refused;
    await next();
    return undefined;
  });
  // The principal: the named token's name, `bearer` for the plain token, none without auth.
  app.all('/mcp', (c) => endpoint.fetch(c.req.raw, requestPrincipal(c.req.raw, security)));
  for (const mount of options.routes ?? []) mount(app, security);
  app.notFound((c) => c.json({ error: 'not found', path: c.req.path }, 404));
  return app;
}
