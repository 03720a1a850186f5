import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HintgateError, errorMessage } from '../core/errors.js';
import type { RemoteStoreMethod } from '../store/remote.js';
import { REMOTE_MAX_ARGS, isRemoteStoreMethod, toRemoteError } from '../store/remote.js';
import type { Store } from '../store/store.js';
import type { AdminEndpoint } from '../store/types.js';
import { checkRequest, httpSecurity } from './auth.js';
import type { HttpListener } from './listen.js';
import { listen } from './listen.js';
import { streamStoreEvents } from './store-events.js';
import { HTTP_STATUS_FOR } from './api/errors.js';

/**
 * What `GET /admin/catalog` answers: the gateway's servers with their state, and its tools by
 * every name, so that the CLI can check a tool it is told about before writing it.
 */
export interface AdminCatalog {
  readonly servers: readonly {
    readonly name: string;
    readonly state: string;
    readonly reason?: string;
  }[];
  readonly tools: readonly {
    readonly server: string;
    readonly namespacedName: string;
    readonly flattenedName: string;
    readonly refId: string;
  }[];
}

/** What the admin endpoint serves besides the store. */
export interface AdminOptions {
  /** The gateway's catalog; undefined while the gateway is not built yet. */
  readonly catalog?: () => AdminCatalog | undefined;
}

/** The largest request the admin endpoint reads (a toolset import of 10,000 members fits). */
const ADMIN_BODY_LIMIT = 32 * 1024 * 1024;

/**
 * The admin app: `POST /admin/store` runs one allowlisted store method with JSON arguments,
 * `GET /admin/events` streams the store's change events, `GET /admin/catalog` gives the
 * gateway's servers and tools ({@link AdminCatalog}; 503 while it starts), `GET /admin` says
 * whose endpoint this is. Every request needs the bearer token; browsers are refused (no
 * Origin accepted) and the Host header must be a loopback name (DNS rebinding).
 */
export function createAdminApp(store: Store, token: string, options: AdminOptions = {}): Hono {
  const security = httpSecurity({
    host: '127.0.0.1',
    token,
    authDisabled: false,
    allowedHosts: [],
    allowedOrigins: [],
  });
  const app = new Hono();
  app.use('*', async (c, next) => {
    if (c.req.header('origin') !== undefined) {
      return c.json({ error: { code: 'FORBIDDEN', message: 'no browser access' } }, 403);
    }
    const refused = checkRequest(c.req.raw, security);
    if (refused !== undefined) return refused;
    await next();
    return undefined;
  });
  app.get('/admin', (c) =>
    c.json({ pid: process.pid, store: { kind: store.kind, location: store.location } }),
  );
  app.post(
    '/admin/store',
    bodyLimit({
      maxSize: ADMIN_BODY_LIMIT,
      onError: (c) =>
        c.json({ error: { code: 'INPUT_INVALID', message: 'request larger than 32 MiB' } }, 413),
    }),
    async (c) => {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch (error) {
        return c.json(
          { error: { code: 'INPUT_INVALID', message: `not JSON: ${errorMessage(error)}` } },
          400,
        );
      }
      const { method, args = [] } = (typeof body === 'object' && body !== null ? body : {}) as {
        method?: unknown;
        args?: unknown;
      };
      if (!isRemoteStoreMethod(method)) {
        return c.json(
          {
            error: {
              code: 'INPUT_INVALID',
              message: `unknown store method ${JSON.stringify(method)}`,
            },
          },
          400,
        );
      }
      if (!Array.isArray(args) || args.length > REMOTE_MAX_ARGS) {
        return c.json(
          {
            error: {
              code: 'INPUT_INVALID',
              message: `args must be an array of at most ${REMOTE_MAX_ARGS}`,
            },
          },
          400,
        );
      }
      // JSON has no undefined: a null argument means "not given".
      const values = (args as unknown[]).map((arg) => (arg === null ? undefined : arg));
      try {
        const result = await callStore(store, method, values);
        return c.json(result === undefined ? {} : { result });
      } catch (error) {
        const remote = toRemoteError(error);
        return c.json({ error: remote }, HTTP_STATUS_FOR[remote.code]);
      }
    },
  );
  app.get('/admin/events', (c) => streamStoreEvents(c, store));
  app.get('/admin/catalog', (c) => {
    const catalog = options.catalog?.();
    if (catalog === undefined) {
      return c.json(
        { error: { code: 'STORE_UNAVAILABLE', message: 'the gateway has no catalog yet' } },
        503,
      );
    }
    return c.json(catalog);
  });
  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: 'not found' } }, 404));
  return app;
}

/** A running admin endpoint. */
export interface AdminServer {
  /** What was recorded in the lock (`url` ends in `/admin`). */
  readonly endpoint: AdminEndpoint;
  /** Stops listening and clears the record in the lock. */
  close(): Promise<void>;
}

/**
 * Serves the admin endpoint on 127.0.0.1 at a free port with a fresh random token, and
 * records both in the lock file (`store.setAdminEndpoint`) so that the CLI can find it.
 */
export async function startAdminServer(
  store: Store,
  options: AdminOptions = {},
): Promise<AdminServer> {
  const token = randomBytes(24).toString('hex');
  let listener: HttpListener;
  try {
    listener = await listen(createAdminApp(store, token, options), '127.0.0.1', 0);
  } catch (error) {
    throw new HintgateError(
      'STORE_UNAVAILABLE',
      `cannot start the admin endpoint: ${errorMessage(error)}`,
      undefined,
      { cause: error },
    );
  }
  const endpoint: AdminEndpoint = { url: `http://127.0.0.1:${listener.port}/admin`, token };
  try {
    await store.setAdminEndpoint(endpoint);
  } catch (error) {
    await listener.close();
    throw error;
  }
  let closed = false;
  return {
    endpoint,
    async close() {
      if (closed) return;
      closed = true;
      await store.setAdminEndpoint(undefined).catch(() => undefined);
      await listener.close();
    },
  };
}

/** Runs one allowlisted store method with the arguments a client sent. */
function callStore(store: Store, method: RemoteStoreMethod, args: unknown[]): Promise<unknown> {
  const run = store[method].bind(store) as (...params: unknown[]) => Promise<unknown>;
  return run(...args);
}
