import type { Config, ServerConfig } from '../config/schema.js';
import type { ClientIdentity } from '../downstream/connect.js';
import type {
  DownstreamEvents,
  DownstreamOAuth,
  DownstreamStatus,
  ListKind,
  ServerConnection,
} from '../downstream/downstream.js';
import { Downstream } from '../downstream/downstream.js';
import { usesOAuth } from '../downstream/oauth/provider.js';
import { PerUserServer } from '../downstream/per-user.js';
import { inferOpenApiAnnotations } from '../downstream/openapi/annotations.js';
import type { FrontHub } from '../front/hub.js';
import type { ServerAnnotationSettings } from './catalog-entry.js';
import type { Catalog } from './catalog.js';
import type { Directory } from './directory.js';
import type { PinGuard } from './pins/guard.js';
import { compileConfigRules, serverDynamicSettings } from './dynamic/settings.js';
import type { ScopedRule } from './dynamic/spec.js';
import type { ReplicaState } from './replicas.js';
import { Replica, ReplicaGroup, replicaName, replicaServerConfig } from './replicas.js';

/** Options of {@link ServerSet}. */
export interface ServerSetOptions {
  readonly config: Config;
  readonly logDir: string;
  readonly identity: ClientIdentity;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly reconnect: boolean;
  /** Where HTTP servers' OAuth logins are kept. */
  readonly oauth?: DownstreamOAuth | undefined;
  /** The principals with a stored login to a server (for `auth: per-user` servers). */
  readonly loginsOf?: (server: string) => Promise<readonly string[]>;
  readonly catalog: Catalog;
  readonly directory: Directory;
  readonly hub: FrontHub;
  /** Re-checks every listing against the pinned definitions before the catalog serves it. */
  readonly pins?: PinGuard | undefined;
  /** One line per status change, for the gateway's stderr. */
  readonly log: (line: string) => void;
  /** A server sent its clients a log message (the result cache must not keep what it saw). */
  readonly onServerMessage?: (server: string) => void;
  /** The names clients see may have changed (a server's tools or prompts were read again). */
  readonly onNamesChanged?: () => void;
}

/**
 * The enabled downstream servers, and the bridge from what they report to the catalog, the
 * prompt and resource directory and the connected clients: a server coming up adds its
 * tools, one going down removes them (remembering their names, so calls get "server down"),
 * a list change re-reads that one list; clients hear each change once per burst.
 */
export class ServerSet {
  /** Each server's connections: one, one per replica, or one per principal (per-user). */
  private readonly servers = new Map<string, readonly ServerConnection[]>();
  private readonly perUser = new Map<string, PerUserServer>();
  private readonly groups = new Map<string, ReplicaGroup>();
  /** The config's dynamic-annotation rules, compiled once, per server. */
  private readonly rules: ReadonlyMap<string, readonly ScopedRule[]>;

  constructor(private readonly options: ServerSetOptions) {
    this.rules = compileConfigRules(options.config);
    for (const [name, config] of Object.entries(options.config.mcpServers)) {
      if (!config.enabled || config.disabled === true) continue;
      if (config.auth === 'per-user' && usesOAuth(config)) {
        const server = this.perUserServer(name, config);
        this.perUser.set(name, server);
        this.servers.set(name, [server]);
        continue;
      }
      if (config.replicas.length === 0) {
        this.servers.set(name, [this.connection(name, name, config)]);
        continue;
      }
      // One logical server, several connections: the catalog lists its tools once.
      const connections = config.replicas.map((replica, index) =>
        this.connection(
          name,
          replicaName(name, replica, index),
          replicaServerConfig(config, replica),
        ),
      );
      this.servers.set(name, connections);
      this.groups.set(
        name,
        new ReplicaGroup(
          name,
          config.replicas.map(
            (replica, index) =>
              new Replica(
                (connections[index] as Downstream).name,
                connections[index] as Downstream,
                replica.weight,
                replica.categories,
              ),
          ),
          options.config.policy.routing,
        ),
      );
    }
  }

  private connection(server: string, name: string, config: ServerConfig): Downstream {
    const { options } = this;
    return new Downstream({
      name,
      ...(name === server ? {} : { server }),
      config,
      identity: options.identity,
      logDir: options.logDir,
      reconnect: options.reconnect,
      baseEnv: options.baseEnv,
      oauth: options.oauth,
      events: this.eventsOf(server),
    });
  }

  /** An `auth: per-user` server: one connection per principal, each over its own login. */
  private perUserServer(name: string, config: ServerConfig): PerUserServer {
    const { options } = this;
    return new PerUserServer({
      name,
      config,
      // A principal's connection is not retried on its own: its next request opens a new one.
      connect: (principal, events) =>
        new Downstream({
          name,
          principal,
          config,
          identity: options.identity,
          logDir: options.logDir,
          reconnect: false,
          baseEnv: options.baseEnv,
          oauth: options.oauth,
          events,
        }),
      logins: () => options.loginsOf?.(name) ?? Promise.resolve([]),
      events: this.eventsOf(name),
      log: options.log,
      // Who sees the server's tools, prompts and resources changed.
      loginsChanged: () => {
        if (this.options.catalog.entriesOf(name).length > 0) options.hub.changed('tools');
        options.hub.changed('prompts');
        options.hub.changed('resources');
      },
    });
  }

  private eventsOf(server: string): DownstreamEvents {
    const { options } = this;
    return {
      status: (connection) => this.onStatus(server, connection),
      listChanged: (connection, kind) => this.onListChanged(server, connection, kind),
      resourceUpdated: (_connection, params, principal) =>
        options.hub.resourceUpdated(params, principal),
      log: (_connection, params, route, principal) => {
        options.onServerMessage?.(server);
        // A message that may belong to any of several callers' calls reaches none of them.
        if (route === 'server') options.hub.log(params, principal);
      },
    };
  }

  /** True when some server is configured `auth: per-user`. */
  get hasPerUser(): boolean {
    return this.perUser.size > 0;
  }

  /**
   * The `auth: per-user` servers whose tools the principal may not see: those it has no
   * login to (sorted; empty for a gateway without such servers).
   */
  hiddenFrom(principal: string | undefined): readonly string[] {
    if (this.perUser.size === 0) return NONE;
    const hidden: string[] = [];
    for (const [name, server] of this.perUser) if (!server.hasLogin(principal)) hidden.push(name);
    return hidden.length === 0 ? NONE : hidden.sort();
  }

  /**
   * Before a principal's first listing or call: opens its connection to each `auth: per-user`
   * server whose tools are not known yet and to which it has a login, and waits until those
   * tools are in the catalog.
   */
  async prepare(principal: string | undefined): Promise<void> {
    if (this.perUser.size === 0 || principal === undefined) return;
    const waiting = [...this.perUser.values()].filter(
      (server) => server.status.state !== 'up' && server.hasLogin(principal),
    );
    if (waiting.length === 0) return;
    await Promise.all(waiting.map((server) => server.prepare(principal)));
    await this.checked();
  }

  /**
   * Why a principal may not call a server's tools, or undefined: an `auth: per-user`
   * server it has no login to (the error names the command to log in).
   */
  refusal(server: string, principal: string | undefined): Error | undefined {
    const perUser = this.perUser.get(server);
    if (perUser === undefined || perUser.hasLogin(principal)) return undefined;
    return perUser.refusal(principal);
  }

  /**
   * The server named `name`, if enabled; for a server with replicas, the first replica that
   * is up (else the first), which serves its lists, prompts and resources.
   */
  get(name: string): ServerConnection | undefined {
    const connections = this.servers.get(name);
    if (connections === undefined || connections.length === 1) return connections?.[0];
    return connections.find((connection) => connection.status.state === 'up') ?? connections[0];
  }

  /**
   * The server a tool name points to by its prefix (`server_tool`, `<its prefix>_tool` or
   * `server.tool`), when that server is configured but not up (it never came up, or is
   * restarting): a call then learns the server is down, not that the tool is unknown.
   */
  notServing(name: string): string | undefined {
    let found: string | undefined;
    let length = 0;
    for (const server of this.servers.keys()) {
      const prefix = this.options.catalog.prefixFor(server);
      const starts = [`${server}.`, ...(prefix === false ? [] : [`${prefix}_`])];
      const start = starts.find((candidate) => name.startsWith(candidate));
      // The longest matching prefix wins (`git` and `git_hub`).
      if (start === undefined || start.length <= length) continue;
      found = server;
      length = start.length;
    }
    return found !== undefined && this.get(found)?.status.state !== 'up' ? found : undefined;
  }

  /** Servers without a prefix that are not up: a name unknown now may be one of theirs. */
  unprefixedNotServing(): string[] {
    return [...this.servers.keys()].filter(
      (server) =>
        this.options.catalog.prefixFor(server) === false && this.get(server)?.status.state !== 'up',
    );
  }

  /** The replicas of a server that has several, for routing calls among them. */
  replicaGroup(name: string): ReplicaGroup | undefined {
    return this.groups.get(name);
  }

  /** Where every replica stands, by server (servers with replicas only). */
  replicaStates(): Record<string, ReplicaState[]> {
    return Object.fromEntries([...this.groups].map(([name, group]) => [name, group.states()]));
  }

  /** Every enabled server, by name (for a server with replicas, see {@link get}). */
  all(): readonly ServerConnection[] {
    return [...this.servers.keys()]
      .sort((a, b) => a.localeCompare(b))
      .map((name) => this.get(name) as ServerConnection);
  }

  /** Starts connecting every server at once; resolves when each has settled (up or down). */
  async start(): Promise<void> {
    await Promise.all(this.connections().map((server) => server.start()));
    await this.checked();
  }

  /** Resolves when every server has settled once (and its tools were checked). */
  async settled(): Promise<void> {
    await Promise.all(this.connections().map((server) => server.settled()));
    await this.checked();
  }

  /** Resolves when the pin checks started so far are applied. */
  private async checked(): Promise<void> {
    // A server that just came up reports it on the next turn; its check starts then.
    await new Promise<void>((resolve) => setImmediate(resolve));
    let seen: Promise<void>[] = [];
    for (;;) {
      const now = [...this.checks.values()];
      if (now.length === seen.length && now.every((check, index) => check === seen[index])) return;
      seen = now;
      await Promise.all(now);
    }
  }

  /** Closes every server (ending every spawned process group), all at once. */
  async close(): Promise<void> {
    await Promise.all(this.connections().map((server) => server.close()));
  }

  private connections(): ServerConnection[] {
    return [...this.servers.values()].flat();
  }

  private onStatus(name: string, connection: ServerConnection): void {
    const { catalog, directory, hub } = this.options;
    // For a server with replicas, the server is up while any replica is: the catalog follows
    // the replica serving its lists, whichever connection changed.
    const server = this.get(name) as ServerConnection;
    const changed = connection.status;
    if (server.status.state === 'up') {
      this.setTools(name, server);
      this.notifyDirectory(directory.setServer(name, server.snapshot));
    } else {
      this.pending.delete(name);
      if (catalog.removeServer(name, { remember: true }).changed) hub.changed('tools');
      this.notifyDirectory(directory.removeServer(name));
    }
    if (changed.state === 'up') {
      this.options.log(
        `server "${connection.name}" is up: ${connection.snapshot.tools.length} tool(s), protocol ${changed.protocolVersion}`,
      );
    } else if (changed.state === 'down') {
      this.options.log(describeDown(connection.name, changed));
    }
  }

  /** How a server's tools are annotated: trust, defaults, and how its calls are resolved. */
  private annotationSettings(name: string, server: ServerConnection): ServerAnnotationSettings {
    return {
      trust: server.config.trust,
      defaultAnnotations: server.config.defaultAnnotations,
      dynamic: serverDynamicSettings(
        server.config,
        server.snapshot.capabilities,
        this.rules.get(name) ?? [],
      ),
      // An OpenAPI server is listed by hintgate itself: its tools' hints come from HTTP methods.
      infer: server.config.openapi === undefined ? undefined : inferOpenApiAnnotations,
    };
  }

  /** Which listing of each server is the latest sent to the pin check. */
  private readonly pending = new Map<string, number>();
  private listings = 0;
  /** Each server's latest pin check, applied or not. */
  private readonly checks = new Map<string, Promise<void>>();

  /**
   * A server's tools into the catalog: re-checked against their pins first when pinning is
   * on (only the latest listing of a server still up is applied), then held-back tools
   * remembered so their calls are refused with the reason.
   */
  private setTools(name: string, server: ServerConnection): void {
    const { catalog, hub, pins } = this.options;
    const tools = server.snapshot.tools;
    const settings = this.annotationSettings(name, server);
    if (pins === undefined) {
      if (catalog.setServer(name, tools, settings).changed) {
        hub.changed('tools');
        this.options.onNamesChanged?.();
      }
      return;
    }
    const listing = ++this.listings;
    this.pending.set(name, listing);
    // Inference and refIds now, while the check may wait for the pins to load.
    catalog.prepare(name, tools, settings);
    const check = pins.check(name, tools).then(
      (result) => {
        if (this.pending.get(name) !== listing || this.get(name) !== server) return;
        if (server.status.state !== 'up') return;
        catalog.setHeld(name, result.held);
        if (catalog.setServer(name, result.served, settings).changed) {
          hub.changed('tools');
          this.options.onNamesChanged?.();
        }
      },
      (error: unknown) => {
        this.options.log(`pins: could not check ${name}'s tools: ${String(error)}`);
      },
    );
    this.checks.set(name, check);
  }

  /** Connects a server's connections that are down again now (its OAuth login changed). */
  retryNow(name: string): void {
    for (const connection of this.servers.get(name) ?? []) connection.retryNow();
  }

  /** Re-checks a server's current listing (its pins changed: a person decided). */
  recheck(name: string): void {
    const server = this.get(name);
    if (server?.status.state === 'up') this.setTools(name, server);
  }

  private onListChanged(name: string, server: ServerConnection, kind: ListKind): void {
    const { directory } = this.options;
    // Replicas list the same things; the one serving the server's lists speaks for it.
    if (server !== this.get(name)) return;
    const snapshot = server.snapshot;
    if (kind === 'tools') {
      this.setTools(name, server);
    } else {
      this.notifyDirectory(directory.setServer(name, snapshot));
    }
  }

  private notifyDirectory(change: { prompts: boolean; resources: boolean }): void {
    if (change.prompts) {
      this.options.hub.changed('prompts');
      this.options.onNamesChanged?.();
    }
    if (change.resources) this.options.hub.changed('resources');
  }
}

const NONE: readonly string[] = [];

/** "server "x" is down: reason; retrying in 2 s". */
export function describeDown(
  name: string,
  status: Extract<DownstreamStatus, { state: 'down' }>,
): string {
  const retry =
    status.retryAt === undefined
      ? ''
      : `; retrying in ${Math.max(0, Math.round((status.retryAt - Date.now()) / 100) / 10)} s`;
  return `server "${name}" is down: ${status.reason}${retry}`;
}
