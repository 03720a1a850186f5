import type { RouteMounter } from './app.js';
import type { HttpSecurity } from './auth.js';
import { toolsApi } from './api/tools.js';
import type { DashboardGateway } from './ui/data.js';
import { dashboardRoutes } from './ui/routes.js';
import { DashboardSessions } from './ui/session.js';
import { dashboardPrincipalFor } from './auth.js';

/** The dashboard of a gateway: its sessions and its routes (pages and the catalog API). */
export interface Dashboard {
  readonly sessions: DashboardSessions;
  readonly routes: readonly RouteMounter[];
}

/**
 * The dashboard at `/ui` and the catalog API (`/api/servers`, `/api/tools`), signed in with
 * a bearer token of the front or the dashboard's own `http.uiToken`. With auth off (loopback)
 * a browser needs no login, and may still sign in with a token to act as its principal.
 */
export function dashboard(gateway: DashboardGateway, security: HttpSecurity): Dashboard {
  // A token typed at the login page signs in as the principal it stands for.
  const verify =
    security.tokens.length > 0 || security.uiToken !== undefined
      ? (secret: string) => dashboardPrincipalFor(security, secret)?.name
      : undefined;
  const sessions = new DashboardSessions({
    verify,
    loginRequired: security.authRequired,
    security,
  });
  return { sessions, routes: [toolsApi(gateway), dashboardRoutes({ gateway, sessions })] };
}
