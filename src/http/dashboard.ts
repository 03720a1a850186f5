import type { RouteMounter } from './app.js';
import type { HttpSecurity } from './auth.js';
import { toolsApi } from './api/tools.js';
import type { DashboardGateway } from './ui/data.js';
import { dashboardRoutes } from './ui/routes.js';
import { DashboardSessions, tokenVerifier } from './ui/session.js';

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
  const sessions = new DashboardSessions({ verify: tokenVerifier(security.token), security });
  return { sessions, routes: [toolsApi(gateway), dashboardRoutes({ gateway, sessions })] };
}
