import type { RouteMounter } from './app.js';
import type { HttpSecurity } from './auth.js';
import { toolsApi } from './api/tools.js';
import type { DashboardGateway } from './ui/data.js';
import { dashboardRoutes } from './ui/routes.js';
import { DashboardSessions } from './ui/session.js';
import { principalForToken } from './auth.js';

/** The dashboard of a gateway: its sessions and its routes (pages and the catalog API). */
export interface Dashboard {
  readonly sessions: DashboardSessions;
  readonly routes: readonly RouteMounter[];
}

/**
 * The dashboard at `/ui` and the catalog API (`/api/servers`, `/api/tools`), signed in with
 * the front's bearer token (no login when auth is off on loopback).
 */
export function dashboard(gateway: DashboardGateway, security: HttpSecurity): Dashboard {
  // A token typed at the login page signs in as the principal it stands for (a named token).
  const verify = security.authRequired
    ? (secret: string) => principalForToken(security, secret)?.name
    : undefined;
  const sessions = new DashboardSessions({ verify, security });
  return { sessions, routes: [toolsApi(gateway), dashboardRoutes({ gateway, sessions })] };
}
