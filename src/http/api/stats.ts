import type { Hono } from 'hono';
import type { RouteMounter } from '../app.js';

/**
 * `GET /api/stats`, behind the front's checks: what the gateway reports about its calls
 * (`{ cache: { hits, misses, stores, invalidations, unadmitted, entries, bytes }, audit: {
 * enabled, dropped }, replicas: { <server>: [...] } }`).
 */
export function statsApi(stats: () => unknown): RouteMounter {
  return (app: Hono) => {
    app.get('/api/stats', (c) => c.json(stats() as Record<string, unknown>));
  };
}
