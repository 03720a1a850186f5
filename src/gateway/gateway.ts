import { join } from 'node:path';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { DEFAULT_TIMEOUTS, namePrefixes } from '../config/schema.js';
import type { ClientIdentity } from '../downstream/connect.js';
import { Sealer } from '../downstream/oauth/seal.js';
import { CredentialVault } from '../downstream/oauth/vault.js';
import { unavailableMessage } from '../downstream/status.js';
import { FrontHub } from '../front/hub.js';
import type { Store } from '../store/store.js';
import type { SessionInfo } from '../front/session.js';
import { AccessControl, PrincipalDirectory, configuredPrincipals } from './access.js';
import { GatewayBackend } from './backend.js';
import type { CallPolicy } from './call-policy.js';
import { createCallPolicy } from './call-policy.js';
import { Catalog } from './catalog.js';
import { Directory } from './directory.js';
import { DynamicResolver } from './dynamic/resolver.js';
import { annotate } from './pipeline/annotate.js';
import type { CallMiddleware } from './pipeline/compose.js';
import { compose } from './pipeline/compose.js';
import type { CallContext, CallToolResult } from './pipeline/context.js';
import { guardedScope } from './pipeline/access.js';
import { forward } from './pipeline/forward.js';
import { resolve } from './pipeline/resolve.js';
import { META_TOOLS, META_TOOLS_BY_NAME } from './meta-tools/index.js';
import { describeNameIssue, nameIssues } from './name-check.js';
import { PinGuard } from './pins/guard.js';
import { ServerSet } from './servers.js';
import { createCallScope } from './toolsets/scope.js';
import { ToolsetService } from './toolsets/service.js';

/** What a gateway is built from. */
export interface GatewayOptions {
  readonly config: Config;
  /** The config file, named in the error of a config that fails at start. */
  readonly configFile?: string;
  /** The data directory (absolute); server logs go to its `logs/`. */
  readonly dataDir: string;
  readonly identity: ClientIdentity;
  /**
   * The open store (toolsets, notes, overrides, approvals, audit). The caller opens it
   * before the gateway starts and closes it after {@link Gateway.close}; tests open a PGlite
   * store in a temporary directory.
   */
  readonly store: Store;
  /** The environment spawned servers inherit from (a safe subset of it). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Retry servers that fail or crash (default true). */
  readonly reconnect?: boolean;
  /** Where status lines go (the CLI: stderr). */
  readonly log?: (line: string) => void;
  /**
   * Where a person decides approval `id`, for the log line of a call that starts waiting
   * (the CLI names its command and the dashboard). Default: the CLI command.
   */
  readonly whereToApprove?: (id: string) => string;
  /**
   * The principals of the HTTP front and their groups (the named tokens of config; the
   * front adds those of validated access tokens). Default: the named tokens of config.
   */
  readonly principals?: PrincipalDirectory;
  /**
   * The secret sealing stored OAuth tokens (config `secretKey`, else `HINTGATE_SECRET_KEY`).
   * Without it, a server asking for OAuth is down with a reason naming the setting.
   */
  readonly secretKey?: string | undefined;
}

/** A running gateway: its servers, catalog and the backend its fronts serve. */
export interface Gateway {
  readonly catalog: Catalog;
  readonly directory: Directory;
  readonly servers: ServerSet;
  readonly hub: FrontHub;
  readonly backend: GatewayBackend;
  /** Equipped toolsets, overrides, notes and the views sessions see. */
  readonly toolsets: ToolsetService;
  /** The store the gateway was given (not closed by {@link Gateway.close}). */
  readonly store: Store;
  /** The configured steps of the call path: cache, audit and replica stats. */
  readonly calls: CallPolicy;
  /** Who may see and call which tools, and who may approve. */
  readonly access: AccessControl;
  /** Tool pins: every listing re-checked against them before it is served. */
  readonly pins: PinGuard;
  /**
   * Starts every server at once; resolves when each has settled (up or down). Rejects with
   * a `ConfigError` when two servers' names meet because of a `prefix` setting.
   */
  start(): Promise<void>;
  /** Closes every server and ends their processes. */
  close(): Promise<void>;
}

/**
 * The path of a call, in the order of the onion: audit, resolve, annotate, access, policy,
 * confirm, cache, rate limit, retry, route, then `terminal` (forward, in a gateway).
 */
export function callPath(
  calls: CallPolicy,
  resolveStep: CallMiddleware,
  annotateStep: CallMiddleware,
  terminal: CallMiddleware,
): (ctx: CallContext) => Promise<CallToolResult> {
  return compose([
    calls.audit,
    resolveStep,
    annotateStep,
    calls.access,
    calls.policy,
    calls.confirm,
    calls.cache,
    calls.rateLimit,
    calls.retry,
    calls.route,
    terminal,
  ]);
}

/**
 * Wires a gateway: the downstream servers from config, the catalog and directory they fill,
 * the call pipeline (audit, resolve, annotate, access, policy, confirm, cache, rate limit,
 * retry, route, forward: the order of the onion), and the backend and hub the fronts use.
 * Holds no logic of its own.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { config } = options;
  const prefixOf = namePrefixes(config.mcpServers);
  const catalog = new Catalog({ prefixOf });
  const directory = new Directory({ prefixOf });
  const hub = new FrontHub();
  const log = options.log ?? (() => undefined);
  const metaToolNames =
    config.toolsets.configurationMode === 'never' ? [] : META_TOOLS.map((tool) => tool.name);
  const checkNames = () => nameIssues({ catalog, directory, prefixOf, metaTools: metaToolNames });
  // Names that meet once the gateway serves (a server came up late, or changed its tools)
  // cannot stop it: they are said once each on its log.
  let started = false;
  const said = new Set<string>();
  const sayNameIssues = (): void => {
    if (!started) return;
    for (const issue of checkNames()) {
      const line = describeNameIssue(issue);
      if (said.has(line)) continue;
      said.add(line);
      log(line);
    }
  };
  const pins = new PinGuard({
    config,
    store: options.store,
    tools: () => catalog.entries(),
    log,
  });
  const servers = new ServerSet({
    pins,
    config,
    oauth: {
      vault: new CredentialVault(
        options.store,
        options.secretKey === undefined ? undefined : Sealer.fromSecret(options.secretKey),
      ),
    },
    loginsOf: async (server) =>
      (await options.store.listOAuthCredentials())
        .filter((login) => login.server === server && login.principal !== '')
        .map((login) => login.principal),
    logDir: join(options.dataDir, 'logs'),
    identity: options.identity,
    baseEnv: options.baseEnv,
    reconnect: options.reconnect ?? true,
    catalog,
    directory,
    hub,
    log: options.log ?? (() => undefined),
    // Called only once servers run, after `calls` below exists.
    onServerMessage: (server) => calls.noteServerMessage(server),
    onNamesChanged: sayNameIssues,
  });
  const downReason = (server: string): string => {
    const status = servers.get(server)?.status;
    return status === undefined
      ? `server "${server}" is not available`
      : unavailableMessage(server, status, Date.now());
  };
  // Dynamic annotations: a server that resolves its tools itself is asked through its
  // connection (the one serving its lists), within its own `dynamic.timeoutMs`.
  const dynamic = new DynamicResolver((server, method, params, { signal, timeoutMs }) => {
    const downstream = servers.get(server);
    if (downstream === undefined) return Promise.reject(new Error(`no server named "${server}"`));
    return downstream.request(method, params, { signal, timeoutMs });
  });
  const toolsets = new ToolsetService({
    store: options.store,
    catalog,
    defaultToolset: config.toolsets.default,
    configurationMode: config.toolsets.configurationMode,
    localTools: META_TOOLS,
    notify: (affects) => hub.toolsChangedFor(affects),
    log: options.log ?? (() => undefined),
  });
  hub.onSessionClosed((id) => toolsets.forgetSession(id));
  // A person's decision on pins (this process, the CLI through the admin endpoint, another
  // replica through PostgreSQL) is applied at once; clients hear list_changed.
  const unwatchPins = options.store.watch((event) => {
    const names =
      event.kind === 'pins'
        ? [event.server]
        : event.kind === 'resync'
          ? Object.keys(config.mcpServers)
          : [];
    for (const name of names) {
      void pins.reload(name).then(
        () => servers.recheck(name),
        (error: unknown) => log(`pins: could not reload ${name}'s pins: ${String(error)}`),
      );
    }
  });
  // A login or logout (the CLI, another replica) lets a server that waits for one try at once.
  const unwatchLogins = options.store.watch((event) => {
    if (event.kind === 'oauth') servers.retryNow(event.server);
  });
  let loading: Promise<void> | undefined;
  const loadToolsets = (): Promise<void> => (loading ??= toolsets.start());
  const access = new AccessControl(
    config.access,
    options.principals ?? new PrincipalDirectory(configuredPrincipals(config)),
  );
  const toolsetOf = (session: SessionInfo): string | undefined =>
    toolsets.view(session).toolsetName;
  const calls = createCallPolicy({
    policy: config.policy,
    store: options.store,
    replicasOf: (server) => servers.replicaGroup(server),
    replicaStates: () => servers.replicaStates(),
    log: options.log ?? (() => undefined),
    access: { control: access, toolsetOf },
    ...(options.whereToApprove === undefined ? {} : { whereToApprove: options.whereToApprove }),
  });
  const handleCall = callPath(
    calls,
    resolve(
      catalog,
      downReason,
      guardedScope(createCallScope(toolsets, catalog, META_TOOLS_BY_NAME), access, toolsetOf),
      (name) => servers.notServing(name),
      () => servers.unprefixedNotServing(),
      (server, principal) => servers.refusal(server, principal),
    ),
    annotate(dynamic),
    forward(
      (server) => servers.get(server),
      (server) => (config.mcpServers[server]?.timeouts ?? DEFAULT_TIMEOUTS).callMs,
      config.policy.timeouts,
      config.policy.waiting.progressMs,
    ),
  );
  const backend = new GatewayBackend({
    serverInfo: { name: options.identity.name, version: options.identity.version },
    catalog,
    directory,
    servers,
    toolsets,
    toolsetsLoaded: loadToolsets,
    handleCall,
    access,
    dynamic,
    startupWaitMs: config.gateway.startupWaitMs,
  });
  return {
    catalog,
    directory,
    servers,
    hub,
    backend,
    toolsets,
    store: options.store,
    start: async () => {
      const loaded = loadToolsets();
      backend.startClock();
      await Promise.all([servers.start(), loaded]);
      const issues = checkNames();
      if (issues.length > 0) throw new ConfigError(options.configFile ?? 'config', issues);
      started = true;
    },
    calls,
    access,
    pins,
    close: async () => {
      unwatchPins();
      unwatchLogins();
      toolsets.close();
      // The audit records of answered calls first: closing servers may take a while.
      await calls.flush();
      await servers.close();
      await calls.close();
      await pins.flushed();
    },
  };
}
