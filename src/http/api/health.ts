import type { Hono } from 'hono';
import { errorMessage } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import type { RouteMounter } from '../app.js';

/** A server as `/health` reports it. */
export interface HealthServer {
  readonly name: string;
  /** starting, up, down, … */
  readonly state: string;
  readonly reason?: string;
}

/** What `/health` reads. */
export interface HealthParts {
  readonly servers: () => readonly HealthServer[];
  readonly store: Pick<Store, 'listToolsets'>;
}

/**
 * `GET /health` for process managers and load balancers, outside the bearer check (it tells
 * no data): always 200 while the process serves (liveness), with each server's state and
 * whether the store answers. `GET /health/ready` is 200 only when the store answers and at
 * least one configured server is up (or none is configured), else 503 (readiness).
 */
export function healthApi(parts: HealthParts): RouteMounter {
  const report = async () => {
    let store: { ok: boolean; error?: string };
    try {
      await parts.store.listToolsets();
      store = { ok: true };
    } catch (error) {
      store = { ok: false, error: errorMessage(error) };
    }
    const servers = parts.servers().map((server) => ({
      name: server.name,
      state: server.state,
      ...(server.reason === undefined ? {} : { reason: server.reason }),
    }));
    const up = servers.filter((server) => server.state === 'up').length;
    const ready = store.ok && (servers.length === 0 || up > 0);
    return { ready, store, servers: { up, total: servers.length, list: servers } };
  };
  return (app: Hono) => {
    app.get('/health', async (c) => {
      const { ready, ...rest } = await report();
      return c.json({ status: 'alive', ready, ...rest });
    });
    app.get('/health/ready', async (c) => {
      const { ready, ...rest } = await report();
      return c.json({ status: ready ? 'ready' : 'not ready', ready, ...rest }, ready ? 200 : 503);
    });
  };
}
