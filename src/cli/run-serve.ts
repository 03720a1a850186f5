import { createGateway } from '../gateway/gateway.js';
import type { AdminServer } from '../http/admin.js';
import type { HttpListener } from '../http/listen.js';
import type { McpEndpoint } from '../front/http-endpoint.js';
import type { StdioFront } from '../front/stdio.js';
import { serveFrontStdio } from '../front/stdio.js';
import { openStore, storeOptionsFrom } from '../store/store.js';
import { loadCliConfig } from './config-file.js';
import { VERSION } from './version.js';

/** Options of `hintgate serve`. */
export interface ServeOptions {
  readonly config?: string;
  readonly stdio?: boolean;
  readonly http?: string;
  /** False with --no-auth. */
  readonly auth: boolean;
  readonly token?: string;
  /** `--store`: a postgres:// URL, overriding the config's `store`. */
  readonly store?: string;
  /** False with --no-fast-path (for measuring the SDK path). */
  readonly fastPath: boolean;
}

function say(line: string): void {
  process.stderr.write(`hintgate: ${line}\n`);
}

/**
 * Runs the gateway until SIGINT, SIGTERM or the stdio client leaving: every server started at
 * once, the stdio and/or HTTP fronts, then every server's process group ended.
 */
export async function runServe(options: ServeOptions): Promise<void> {
  const loaded = await loadCliConfig(options.config);
  const { config } = loaded;
  const listenAt = options.http ?? (options.stdio === true ? undefined : config.http.listen);
  const useStdio = options.stdio === true || listenAt === undefined;
  // Decide and check the HTTP front before starting anything. The HTTP stack is loaded only
  // when it is used (a stdio gateway starts faster without it).
  const http =
    listenAt === undefined
      ? undefined
      : {
          ...(await import('../http/auth.js')),
          ...(await import('../http/listen.js')),
          ...(await import('../http/app.js')),
          ...(await import('../front/http-endpoint.js')),
          ...(await import('../http/api/routes.js')),
        };
  const address = listenAt === undefined ? undefined : http?.parseListenAddress(listenAt);
  const security =
    address === undefined
      ? undefined
      : http?.httpSecurity({
          host: address.host,
          token: options.token ?? process.env['HINTGATE_TOKEN'] ?? config.http.token,
          tokens: config.http.tokens,
          authDisabled: !options.auth || !config.http.auth,
          allowedHosts: config.http.allowedHosts,
          allowedOrigins: config.http.allowedOrigins,
        });

  // The store is opened before anything starts (a data directory held by another gateway
  // fails here, clearly) and closed last, after the servers.
  const store = await openStore({
    ...storeOptionsFrom(options.store ?? config.store, loaded.dataDir),
    onWarning: (message) => say(`store: ${message}`),
  });
  // The embedded store is this process's alone: the CLI reaches it through a loopback admin
  // endpoint recorded in the lock file. (PostgreSQL: the CLI opens the database itself.)
  let admin: AdminServer | undefined;
  if (store.kind === 'pglite') {
    try {
      admin = await (await import('../http/admin.js')).startAdminServer(store);
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  const gateway = createGateway({
    config,
    dataDir: loaded.dataDir,
    store,
    identity: { name: 'hintgate', version: VERSION },
    baseEnv: process.env,
    log: say,
  });
  const started = gateway.start();

  let stdio: StdioFront | undefined;
  let endpoint: McpEndpoint | undefined;
  let listener: HttpListener | undefined;
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (why: string): Promise<void> => {
    shuttingDown ??= (async () => {
      say(`shutting down (${why})`);
      await stdio?.close();
      await endpoint?.close();
      await listener?.close();
      await gateway.close();
      await admin?.close();
      await store.close();
    })();
    return shuttingDown;
  };
  const ended = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });

  try {
    if (http !== undefined && address !== undefined && security !== undefined) {
      endpoint = http.createMcpEndpoint({
        backend: gateway.backend,
        hub: gateway.hub,
        fastPath: options.fastPath,
      });
      listener = await http.listen(
        http.createHttpApp({
          endpoint,
          security,
          routes: http.callApiRoutes({ store, stats: () => gateway.calls.stats() }),
        }),
        address.host,
        address.port,
      );
      say(
        `listening on ${listener.url}${http?.authRequired(security) === true ? '' : ' (no auth)'}`,
      );
    }
  } catch (error) {
    await gateway.close();
    await admin?.close();
    await store.close();
    throw error;
  }
  if (useStdio) {
    stdio = serveFrontStdio({
      backend: gateway.backend,
      hub: gateway.hub,
      input: process.stdin,
      output: process.stdout,
      fastPath: options.fastPath,
      onerror: (error) => say(`stdio: ${error.message}`),
    });
  }
  void started.then(() => {
    const servers = gateway.servers.all();
    const up = servers.filter((server) => server.status.state === 'up').length;
    say(`${up} of ${servers.length} server(s) up, ${gateway.catalog.size} tool(s)`);
  });

  const why = await Promise.race([
    ended,
    stdio === undefined
      ? new Promise<string>(() => undefined)
      : stdio.closed.then(() => 'stdin closed'),
  ]);
  await shutdown(why);
  // Nothing should be left, but never hang on a stray handle once everything is closed.
  setTimeout(() => process.exit(process.exitCode ?? 0), 1000).unref();
  if (stdio !== undefined) process.stdin.destroy();
}
