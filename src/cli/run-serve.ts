import { dirname } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Hono } from 'hono';
import { PrincipalDirectory } from '../gateway/access.js';
import { createGateway } from '../gateway/gateway.js';
import { endEarly } from '../downstream/launch.js';
import type { AdminCatalog, AdminServer } from '../http/admin.js';
import type { HttpListener } from '../http/listen.js';
import type { McpEndpoint } from '../front/http-endpoint.js';
import type { StdioFront } from '../front/stdio.js';
import { serveFrontStdio } from '../front/stdio.js';
import { DeferredStore } from '../store/deferred.js';
import { RemoteStore } from '../store/remote.js';
import { StartReads, loadSnapshot, saveSnapshot } from '../store/snapshot.js';
import type { Store } from '../store/store.js';
import { openStore, storeOptionsFrom } from '../store/store.js';
import type { HeldLock } from '../store/lock.js';
import { acquireLock } from '../store/lock.js';
import { codeCacheCheckpoint } from './code-cache.js';
import { budgetForCalls } from './jit.js';
import { openStoreForCli } from './store-access.js';
import { loadCliConfig } from './config-file.js';
import { messageFor } from './exit.js';
import { openStatusLog } from './status-log.js';
import { secretKeyOf } from './secret-key.js';
import { VERSION } from './version.js';
import { whenQuiet } from './quiet.js';
import { collectGarbageNow, trimHeapWhenIdle } from './heap-trim.js';

/**
 * How long after the start settles its functions go into the code cache (a few ms of
 * serializing, kept off the first listings).
 */
const CHECKPOINT_DELAY_MS = 1000;

/** Options of `hintgate serve`. */
export interface ServeOptions {
  readonly config?: string;
  readonly stdio?: boolean;
  readonly http?: string;
  /** False with --no-auth. */
  readonly auth: boolean;
  /** `--token`: visible to every local user (the process's arguments); prefer the file. */
  readonly token?: string;
  /** `--token-file`: a file holding the token. */
  readonly tokenFile?: string;
  /** `--store`: a postgres:// URL, overriding the config's `store`. */
  readonly store?: string;
  /** `--data-dir`: replaces the config's `dataDir`. */
  readonly dataDir?: string;
  /** False with --no-fast-path (for measuring the SDK path). */
  readonly fastPath: boolean;
}

/**
 * Runs the gateway until SIGINT, SIGTERM or the stdio client leaving: every server started at
 * once, the stdio and/or HTTP fronts, then every server's process group ended. Status lines
 * go to stderr and, once the data directory is known, to `<dataDir>/logs/gateway.log`.
 */
export async function runServe(options: ServeOptions, config?: LoadedConfig): Promise<void> {
  const loaded =
    config ?? (await loadCliConfig(options.config, { documents: true, dataDir: options.dataDir }));
  const statusLog = openStatusLog(loaded.dataDir, {
    onError: (message) => process.stderr.write(`hintgate: ${message}\n`),
  });
  const say = (line: string): void => {
    process.stderr.write(`hintgate: ${line}\n`);
    statusLog.write(line);
  };
  say(`hintgate ${VERSION} serving ${loaded.file}; data directory ${loaded.dataDir}`);
  try {
    await serve(options, loaded, say);
  } catch (error) {
    statusLog.write(`stopped: ${messageFor(error)}`);
    throw error;
  }
}

async function serve(
  options: ServeOptions,
  loaded: LoadedConfig,
  say: (line: string) => void,
): Promise<void> {
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
          ...(await import('../http/oauth-resource.js')),
          ...(await import('../http/dashboard.js')),
        };
  const address = listenAt === undefined ? undefined : http?.parseListenAddress(listenAt);
  const configDir = dirname(loaded.file);
  const namedTokens =
    http === undefined ? [] : http.readNamedTokens(config.http.tokens, process.env, configDir);
  const principals = new PrincipalDirectory(namedTokens.map((named) => named.principal));
  const resource =
    config.http.oauth === undefined ? undefined : http?.oauthResource(config.http.oauth);
  const security =
    address === undefined
      ? undefined
      : http?.httpSecurity({
          host: address.host,
          token:
            options.tokenFile === undefined
              ? (options.token ?? process.env['HINTGATE_TOKEN'] ?? config.http.token)
              : http.readTokenFile(options.tokenFile, process.cwd(), '--token-file'),
          tokens: namedTokens,
          uiToken: process.env['HINTGATE_UI_TOKEN'] ?? config.http.uiToken,
          ...(resource === undefined
            ? {}
            : { verifier: resource.verify, challenge: resource.challenge }),
          authDisabled: !options.auth || !config.http.auth,
          allowedHosts: config.http.allowedHosts,
          allowedOrigins: config.http.allowedOrigins,
        });

  // The store opens while the servers start (PGlite starts in a process of its own, and
  // creates its database on the first run): what needs it (pins, toolsets, the audit log)
  // waits for it, nothing else does. It is closed last, after the servers. An
  // embedded store another gateway holds (one per desktop client on the same config) is
  // used through that gateway's admin endpoint, as the CLI does.
  const storeSpec = options.store ?? config.store;
  const target = storeOptionsFrom(storeSpec, loaded.dataDir);
  // The embedded store is this process's alone: the CLI reaches it through a loopback admin
  // endpoint recorded in the lock file. (PostgreSQL: the CLI opens the database itself.)
  let admin: AdminServer | undefined;
  // The CLI checks tools it is told about against this gateway's catalog, once it has one.
  const catalog: { of?: () => AdminCatalog } = {};
  const onWarning = (message: string): void => say(`store: ${message}`);
  // What the last gateway on this embedded store left for the first listing to read while
  // PGlite opens (see store/snapshot.ts). With it, the store opens once the servers are up
  // (or sooner if something needs it, and at the latest after LAZY_OPEN_MS), so that it does
  // not compete with them; the data directory is held from now on all the same, and the CLI
  // waits for the admin endpoint as it would for any gateway starting.
  const startReads =
    target.kind === 'pglite' ? new StartReads(loadSnapshot(target.dataDir, VERSION)) : undefined;
  const heldLock =
    target.kind === 'pglite' && startReads?.hasSnapshot === true
      ? holdDataDir(target.dataDir, onWarning)
      : undefined;
  // Once the gateway is up, its heap is collected while the embedded store waits to copy
  // the audit journal: after a burst of calls (whose records the copy takes) the heap holds
  // several times what is live, and with the database's process growing as it copies, the
  // two together passed 300 MiB.
  let collectWhileQuiet = false;
  const auditJournal = {
    onQuiet: (): Promise<void> => (collectWhileQuiet ? collectGarbageNow() : Promise.resolve()),
  };
  const open = async (): Promise<Store> => {
    if (heldLock !== undefined && target.kind === 'pglite') {
      // The snapshot says the database is as this version left it: its process starts when
      // something needs it, not while the first calls arrive.
      return openStore({
        ...target,
        lock: heldLock,
        onWarning,
        deferDatabase: true,
        auditJournal,
      });
    }
    const opened = await openStoreForCli({
      store: storeSpec,
      dataDir: loaded.dataDir,
      onWarning,
      auditJournal,
    });
    if (opened instanceof RemoteStore) say(`store: ${opened.location}`);
    return opened;
  };
  // The snapshot's answers are checked against the store once the gateway is quiet: the check
  // starts the embedded database's process, half a second of CPU its clients need more.
  let cancelConfirm: (() => void) | undefined;
  let closingStore = false;
  const store = new DeferredStore(
    target.kind,
    target.kind === 'pglite' ? target.dataDir : 'the PostgreSQL store (connecting)',
    open,
    {
      ...(startReads === undefined ? {} : { startReads }),
      onWarning,
      confirmWhen: (confirm) => {
        // Not once the store is closing (an open still under way when shutdown began).
        if (!closingStore) cancelConfirm = whenQuiet(confirm);
      },
    },
  );
  if (heldLock === undefined) store.open();
  else {
    say(
      `store: first listing from the last run's snapshot; the database starts when something needs it or the gateway is quiet`,
    );
    setTimeout(() => store.open(), LAZY_OPEN_MS).unref();
  }
  // Started beside the first reads of the store, not before them: loading the HTTP stack it
  // needs took 100-250 ms off the first listing's path when 10 servers start at once. Until
  // it is up, the CLI waits for it (`openStoreForCli`, up to 10 s).
  const adminStarting = store.opened.then(
    async (opened) => {
      if (opened.kind !== 'pglite' || opened instanceof RemoteStore) return;
      try {
        admin = await (
          await import('../http/admin.js')
        ).startAdminServer(opened, { catalog: () => catalog.of?.() });
      } catch (error) {
        say(
          `store: the admin endpoint could not start (${messageFor(error)}); the CLI cannot reach the store while this gateway runs`,
        );
      }
    },
    () => undefined,
  );
  // Where a person decides a waiting call, for the log line that announces it: the CLI on
  // this config (and data directory), and the dashboard once HTTP serves it.
  let dashboardAt: string | undefined;
  const cliArgs = [
    `--config ${shellWord(loaded.file)}`,
    ...(options.dataDir === undefined ? [] : [`--data-dir ${shellWord(options.dataDir)}`]),
    ...(options.store === undefined ? [] : ['--store <the same store>']),
  ].join(' ');
  const whereToApprove = (id: string): string => {
    const command = `with "hintgate approvals approve ${id} ${cliArgs}" (or deny)`;
    return dashboardAt === undefined
      ? command
      : `in the dashboard at ${dashboardAt}/approvals or ${command}`;
  };
  const gateway = createGateway({
    config,
    configFile: loaded.file,
    whereToApprove,
    dataDir: loaded.dataDir,
    store,
    identity: { name: 'hintgate', version: VERSION },
    baseEnv: process.env,
    log: say,
    principals,
    secretKey: secretKeyOf(config),
  });
  catalog.of = () => ({
    servers: gateway.servers.all().map((server) => ({
      name: server.name,
      state: server.status.state,
      ...(server.status.state === 'down' ? { reason: server.status.reason } : {}),
    })),
    tools: gateway.catalog.entries().map((entry) => ({
      server: entry.server,
      namespacedName: entry.namespacedName,
      flattenedName: entry.flattenedName,
      refId: entry.refId,
    })),
  });
  const started = gateway.start();

  let stdio: StdioFront | undefined;
  let endpoint: McpEndpoint | undefined;
  let listener: HttpListener | undefined;
  let shuttingDown: Promise<void> | undefined;
  let stopTrimming: (() => void) | undefined;
  const shutdown = (why: string): Promise<void> => {
    shuttingDown ??= (async () => {
      say(`shutting down (${why})`);
      stopTrimming?.();
      endEarly();
      await stdio?.close();
      await endpoint?.close();
      await listener?.close();
      await gateway.close();
      await closeStore();
    })();
    return shuttingDown;
  };
  /** Closes the store, after the admin endpoint; keeps what the next start reads. */
  const closeStore = async (): Promise<void> => {
    closingStore = true;
    cancelConfirm?.();
    // A lazy store never opened is closed first: that ends the wait of the admin endpoint.
    if (!store.begun) await store.close();
    // The admin endpoint starts once the store is open: let an open under way finish.
    await adminStarting;
    await admin?.close();
    const opened = store.current;
    const local =
      target.kind === 'pglite' && opened !== undefined && !(opened instanceof RemoteStore);
    // Read before the store closes, saved once it has (the snapshot names its last state),
    // unless something may have changed them meanwhile (a request still being handled).
    const changes = startReads?.changes;
    // A database that never ran in this process is as the snapshot on disk names it (every
    // write would have run it): that snapshot stays, and nothing starts the database to
    // read it again.
    const untouched = local && !store.databaseUsed();
    const reads =
      local && !untouched ? await startReads?.snapshot(opened).catch(() => undefined) : undefined;
    await store.close();
    heldLock?.release();
    if (!local) return;
    // Started while closing after all (a copy of an earlier run's journal already queued): the
    // snapshot on disk no longer names it, and goes.
    if (untouched && !store.databaseUsed()) return;
    try {
      saveSnapshot(
        target.dataDir,
        VERSION,
        !untouched && startReads?.changes === changes ? reads : undefined,
      );
    } catch (error) {
      say(`store: could not save the start snapshot: ${messageFor(error)}`);
    }
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
      const dashboard = http.dashboard(gateway, security);
      listener = await http.listen(
        http.createHttpApp({
          endpoint,
          security,
          sessions: dashboard.sessions,
          routes: [
            ...http.callApiRoutes({
              store,
              stats: () => gateway.calls.stats(),
              approvers: gateway.access,
              servers: () =>
                gateway.servers.all().map((server) => ({
                  name: server.name,
                  state: server.status.state,
                  ...(server.status.state === 'down' ? { reason: server.status.reason } : {}),
                })),
            }),
            ...(resource === undefined ? [] : [(app: Hono) => resource.mount(app)]),
            ...dashboard.routes,
          ],
          onPrincipal: (principal) => principals.remember(principal),
        }),
        address.host,
        address.port,
      );
      say(`listening on ${listener.url}${security.authRequired ? '' : ' (no auth)'}`);
      dashboardAt = listener.url.replace(/\/mcp$/, '/ui');
      say(`dashboard at ${dashboardAt}`);
    }
  } catch (error) {
    endEarly();
    await gateway.close();
    // The start still loading the toolsets would otherwise read a store closed under it.
    await started.catch(() => undefined);
    await closeStore();
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
  // A config that fails only once the servers have listed (two servers' names meet), or a
  // store that cannot be opened, ends the gateway like a config that fails to load.
  const storeFailed = store.opened.then(
    () => new Promise<never>(() => undefined),
    (error: unknown) => error,
  );
  const failed = started.then(
    () => {
      // Every server has had its try: a process started early for none of them is ended.
      endEarly();
      store.open();
      // Calls from now on: V8 optimizes sooner (jit.ts), and the code cache is made under it.
      budgetForCalls();
      // What the start compiled goes into the code cache, once the first listings are out.
      setTimeout(codeCacheCheckpoint, CHECKPOINT_DELAY_MS).unref();
      // The memory the start's allocations grew is given back once the gateway is idle.
      if (shuttingDown === undefined) {
        stopTrimming = trimHeapWhenIdle();
        collectWhileQuiet = true;
      }
      const servers = gateway.servers.all();
      const up = servers.filter((server) => server.status.state === 'up').length;
      say(`${up} of ${servers.length} server(s) up, ${gateway.catalog.size} tool(s)`);
      return new Promise<never>(() => undefined);
    },
    (error: unknown) => error,
  );

  const why = await Promise.race([
    ended,
    stdio === undefined
      ? new Promise<string>(() => undefined)
      : stdio.closed.then(() => 'stdin closed'),
    failed,
    storeFailed,
  ]);
  await shutdown(typeof why === 'string' ? why : messageFor(why));
  // Nothing should be left, but never hang on a stray handle once everything is closed.
  setTimeout(() => process.exit(process.exitCode ?? 0), 1000).unref();
  if (stdio !== undefined) process.stdin.destroy();
  if (typeof why !== 'string') throw why;
}

/** At most this long after start, a lazily opened store opens (servers still starting). */
const LAZY_OPEN_MS = 2_000;

/**
 * The data directory's lock, taken now for a store to be opened later; undefined if another
 * process holds it (the store is then reached as usual, through that gateway).
 */
function holdDataDir(dataDir: string, onWarning: (message: string) => void): HeldLock | undefined {
  try {
    return acquireLock(dataDir, { onWarning });
  } catch {
    return undefined;
  }
}

/** A word a POSIX shell reads back as itself (single-quoted when it needs to be). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
