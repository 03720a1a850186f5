import type { Client, PriorDiscovery } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/schema.js';
import { HintgateError, errorMessage } from '../core/errors.js';
import type { Era } from '../mcp/era.js';
import { modernEnvelope, neutralResult } from '../mcp/era.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import type { ServerRequestRelay } from '../mcp/relay.js';
import { DownstreamError } from '../mcp/rpc-errors.js';
import type { ClientIdentity, Connection } from './connect.js';
import { DOWNSTREAM_CLIENT_CAPABILITIES, connectServer } from './connect.js';
import type { LogRoute } from './inflight.js';
import type { ConnectionAuth } from './oauth/connection-auth.js';
import { connectionAuth } from './oauth/connection-auth.js';
import { loginCommand, usesOAuth } from './oauth/provider.js';
import type { CredentialVault } from './oauth/vault.js';
import { InflightCalls } from './inflight.js';
import { ListenStream } from './listen.js';
import { RawLane, requestMeta } from './raw-lane.js';
import {
  declaresHeaders,
  requestViaClient,
  shapeForEra,
  withoutProgressToken,
} from './requests.js';
import type { DownstreamSnapshot, ListKind } from './snapshot.js';
import { EMPTY_SNAPSHOT, readSnapshot, rereadList } from './snapshot.js';
import type { DownstreamStatus } from './status.js';
import { STABLE_AFTER_MS, backoffDelay, stripServerPrefix, unavailableMessage } from './status.js';

export type { DownstreamStatus } from './status.js';
export type { DownstreamSnapshot, ListKind } from './snapshot.js';

/**
 * What the gateway holds per configured server: one {@link Downstream}, or for an
 * `auth: per-user` server a `PerUserServer` (one connection per principal).
 */
export type ServerConnection = Pick<
  Downstream,
  | 'name'
  | 'config'
  | 'status'
  | 'snapshot'
  | 'start'
  | 'settled'
  | 'close'
  | 'retryNow'
  | 'callTool'
  | 'request'
  | 'subscribeResource'
  | 'unsubscribeResource'
>;

/** What a server tells the gateway outside of answers. */
export interface DownstreamEvents {
  /** Status changed (its snapshot changes with it when it comes up or goes down). */
  status?(server: ServerConnection): void;
  /** A list was re-read after the server said it changed. */
  listChanged?(server: ServerConnection, kind: ListKind): void;
  /**
   * `notifications/resources/updated`. `principal` names the principal whose own connection
   * (`auth: per-user`) it came over: it concerns that principal's clients alone.
   */
  resourceUpdated?(server: ServerConnection, params: JsonObject, principal?: string): void;
  /**
   * `notifications/message` (logging) that went to no call's client: the server's own (no
   * call in flight: `server`), or dropped because calls of several callers were (`ambiguous`).
   * `principal` as for {@link resourceUpdated}.
   */
  log?(
    server: ServerConnection,
    params: JsonObject,
    route: Exclude<LogRoute, 'call'>,
    principal?: string,
  ): void;
}

/** Options of one call through a server. */
export interface DownstreamCallOptions {
  readonly signal?: AbortSignal | undefined;
  /** Overrides the configured timeout (ms). */
  readonly timeoutMs?: number | undefined;
  /** Progress of this call, as the server reports it (the params, without the token). */
  readonly onProgress?: ((progress: JsonObject) => void) | undefined;
  /** Capabilities of the client on whose behalf the call runs (a 2026 server checks them). */
  readonly clientCapabilities?: JsonObject | undefined;
  /** Where the server's elicitation or sampling requests during this call go. */
  readonly relay?: ServerRequestRelay | undefined;
  /** Where the server's log messages during this call go (its client, not every client). */
  readonly onLog?: ((params: JsonObject) => void) | undefined;
  /**
   * Who the call is for (one session of one principal): the server's log messages and
   * requests are routed to a call only while one caller has calls in flight.
   */
  readonly caller?: string | undefined;
  /**
   * The least severe log level the call's client wants from the server: a 2026 server is
   * asked for it in the request's envelope (a 2025 server sends what it sends).
   */
  readonly logLevel?: string | undefined;
  /**
   * The principal the call is for: an `auth: per-user` server sends it over that principal's
   * own connection (see `PerUserServer`); other servers ignore it.
   */
  readonly principal?: string | undefined;
}

/** The OAuth side of a downstream connection. */
export interface DownstreamOAuth {
  readonly vault: CredentialVault;
  /** Refresh this long before the access token expires (default 60 s). */
  readonly refreshAheadMs?: number;
}

/** Everything {@link Downstream} needs. */
export interface DownstreamOptions {
  readonly name: string;
  /**
   * The logical server, when this connection is one of its replicas (`name` is then
   * `server#replica`): its OAuth login is the server's, stored under this name.
   */
  readonly server?: string;
  readonly config: ServerConfig;
  readonly identity: ClientIdentity;
  /** Directory of the per-server log files. */
  readonly logDir: string;
  /** Retry after a failed start or a crash (the gateway does; lint does not). */
  readonly reconnect: boolean;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly events?: DownstreamEvents;
  /**
   * Where an HTTP server's OAuth login is kept (`hintgate auth login`); without it, and for a
   * server configured `auth: none`, no token is sent.
   */
  readonly oauth?: DownstreamOAuth | undefined;
  /**
   * Whose login the connection uses: '' (the default) for the server's shared login, a
   * principal's name for one connection of an `auth: per-user` server.
   */
  readonly principal?: string;
  /** Clock and randomness, injectable for tests. */
  readonly now?: () => number;
  readonly random?: () => number;
}

/** A call's `_meta` for one log level and client capabilities (see `Downstream.metaFor`). */
interface MadeMeta {
  readonly logLevel: string | undefined;
  readonly capabilities: JsonObject | undefined;
  /** The connection's own envelope it was made with (a reconnection makes another). */
  readonly base: JsonObject | undefined;
  readonly envelope: JsonObject | undefined;
  readonly json: string | undefined;
}

/**
 * One logical downstream server: connects (within its timeout), negotiates the era, lists
 * tools, prompts and resources (following pagination, keeping every unknown field), follows
 * list changes from both eras (2025 notifications, 2026 `subscriptions/listen`), reports
 * its status, and reconnects with exponential backoff after a failed start or a crash.
 * Calls to a server that is not up fail at once with `DOWNSTREAM_UNAVAILABLE`.
 *
 * tools/call to a spawned server travels on a raw lane (see {@link RawLane}); everything
 * else goes through the SDK client.
 */
export class Downstream {
  readonly name: string;
  readonly config: ServerConfig;
  private statusValue: DownstreamStatus;
  private snapshotValue: DownstreamSnapshot = EMPTY_SNAPSHOT;
  private connection: Connection | undefined;
  private lane: RawLane | undefined;
  private envelope: JsonObject | undefined;
  private lastMeta: MadeMeta | undefined;
  private prior: PriorDiscovery | undefined;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private firstSettle: Promise<void>;
  private resolveFirstSettle!: () => void;
  private readonly inflight = new InflightCalls();
  private readonly listener: ListenStream;
  private readonly now: () => number;
  private readonly random: () => number;
  private generation = 0;
  private lastFailure: unknown;
  /** The OAuth token provider of the current connection attempt, if any. */
  private auth: ConnectionAuth | undefined;

  constructor(private readonly options: DownstreamOptions) {
    this.name = options.name;
    this.config = options.config;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.statusValue = { state: 'starting', since: this.now(), attempt: 0 };
    this.listener = new ListenStream(
      options.config.timeouts.requestMs,
      (generation) =>
        generation === this.generation && !this.closed && this.statusValue.state === 'up',
    );
    this.firstSettle = new Promise((resolve) => {
      this.resolveFirstSettle = resolve;
    });
  }

  /** Where the server stands now. */
  get status(): DownstreamStatus {
    return this.statusValue;
  }

  /** What the server offers; empty unless it is up. */
  get snapshot(): DownstreamSnapshot {
    return this.snapshotValue;
  }

  /** Why the server is down: the error of the last failed connection attempt (or loss). */
  get failure(): unknown {
    return this.statusValue.state === 'down' ? this.lastFailure : undefined;
  }

  /** The SDK client, while connected. */
  get client(): Client | undefined {
    return this.connection?.client;
  }

  /** Resolves once the first connection attempt has ended, up or down. */
  settled(): Promise<void> {
    return this.firstSettle;
  }

  /** Starts connecting; see {@link settled}. */
  start(): Promise<void> {
    void this.connect();
    return this.firstSettle;
  }

  /** Calls a tool; resolves with the result made era-neutral (see `neutralResult`). */
  async callTool(params: JsonObject, options: DownstreamCallOptions = {}): Promise<JsonObject> {
    const connection = this.requireUp();
    const timeoutMs = options.timeoutMs ?? this.config.timeouts.callMs;
    const done = this.inflight.add({
      caller: options.caller,
      relay: options.relay,
      onLog: options.onLog,
    });
    try {
      if (this.lane !== undefined) {
        // The common call (no `_meta` of its own, no progress) takes its session's `_meta` as
        // made once; any other is shaped for the era here and merged by the lane.
        const plain = params['_meta'] === undefined && options.onProgress === undefined;
        const made = plain ? this.metaFor(options.logLevel, options.clientCapabilities) : undefined;
        const result = await this.lane.request(
          'tools/call',
          plain ? params : this.forEra(params, options),
          {
            timeoutMs,
            signal: options.signal,
            onProgress: options.onProgress,
            resetTimeoutOnProgress: true,
            envelope: made?.envelope ?? this.envelopeFor(options.clientCapabilities),
            metaJson: made?.json,
          },
        );
        return neutralResult(result);
      }
      return await requestViaClient(
        connection.client,
        this.name,
        'tools/call',
        withoutProgressToken(this.forEra(params, options)),
        {
          timeoutMs,
          signal: options.signal,
          onProgress: options.onProgress,
          // A 2026 server over HTTP reads the parameters its tool declares for headers
          // (SEP-2243) from `Mcp-Param-*` headers too: the SDK client mirrors them.
          tool:
            connection.client.getProtocolEra() === 'modern' ? this.headerTool(params) : undefined,
        },
      );
    } finally {
      done();
    }
  }

  /**
   * Any other request (prompts/get, resources/read, completion/complete, resources/subscribe
   * ...), through the SDK client, result made era-neutral.
   */
  async request(
    method: string,
    params: JsonObject,
    options: DownstreamCallOptions = {},
  ): Promise<JsonObject> {
    const connection = this.requireUp();
    const done = this.inflight.add({
      caller: options.caller,
      relay: options.relay,
      onLog: options.onLog,
    });
    try {
      return await requestViaClient(
        connection.client,
        this.name,
        method,
        withoutProgressToken(this.forEra(params, options)),
        {
          timeoutMs: options.timeoutMs ?? this.config.timeouts.requestMs,
          signal: options.signal,
          onProgress: options.onProgress,
        },
      );
    } finally {
      done();
    }
  }

  /**
   * Subscribes to updates of a resource: `resources/subscribe` on a 2025 server; on a 2026
   * server the URI joins the filter of the `subscriptions/listen` stream, which is reopened.
   */
  async subscribeResource(uri: string, options: DownstreamCallOptions = {}): Promise<JsonObject> {
    if (this.statusValue.state !== 'up' || this.statusValue.era === 'legacy') {
      return this.request('resources/subscribe', { uri }, options);
    }
    this.listener.resourceUris.add(uri);
    await this.listener.reopen();
    return {};
  }

  /** Undoes {@link subscribeResource}. */
  async unsubscribeResource(uri: string, options: DownstreamCallOptions = {}): Promise<JsonObject> {
    if (this.statusValue.state !== 'up' || this.statusValue.era === 'legacy') {
      return this.request('resources/unsubscribe', { uri }, options);
    }
    this.listener.resourceUris.delete(uri);
    await this.listener.reopen();
    return {};
  }

  /** Stops retrying and closes the connection (ending the process group of a spawned server). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    const connection = this.connection;
    this.connection = undefined;
    this.lane?.failAll(
      new DownstreamError(
        'DOWNSTREAM_UNAVAILABLE',
        this.name,
        `server "${this.name}" is shutting down`,
      ),
    );
    this.lane = undefined;
    this.setStatus({ state: 'closed', since: this.now() }, EMPTY_SNAPSHOT);
    this.resolveFirstSettle();
    if (connection !== undefined) {
      await connection.client.close().catch(() => undefined);
      await connection.transport.close().catch(() => undefined);
    }
  }

  private get principal(): string {
    return this.options.principal ?? '';
  }

  private requireUp(): Connection {
    const status = this.statusValue;
    if (status.state === 'up' && this.connection !== undefined) return this.connection;
    throw new DownstreamError(
      'DOWNSTREAM_UNAVAILABLE',
      this.name,
      unavailableMessage(this.name, status, this.now()),
    );
  }

  /**
   * The listed definition of the tool a call names, when it declares parameters for headers
   * (SEP-2243): the SDK client mirrors them. Looked up in a map made once per listing.
   */
  private headerTool(params: JsonObject): JsonObject | undefined {
    const name = params['name'];
    return typeof name === 'string' ? headerToolsOf(this.snapshotValue).get(name) : undefined;
  }

  /**
   * The params as this server's era wants them: never the client's own 2026 envelope; for a
   * 2026 server, the client's capabilities (the SDK client stamps hintgate's own otherwise,
   * and the server must see what the client can answer) and the log level the client wants.
   */
  private forEra(params: JsonObject, options: DownstreamCallOptions): JsonObject {
    const era = this.statusValue.state === 'up' ? this.statusValue.era : 'legacy';
    return shapeForEra(params, era, options.logLevel, options.clientCapabilities);
  }

  /**
   * The `_meta` of a call whose params carry none and that wants no progress, as JSON (what
   * `forEra` and the lane's merge with the envelope make of it), and the envelope it holds:
   * made once for the calls of one session (its capabilities are one object, its log level
   * one string) instead of once a call; the last one made is kept.
   */
  private metaFor(logLevel: string | undefined, capabilities: JsonObject | undefined): MadeMeta {
    const last = this.lastMeta;
    if (
      last !== undefined &&
      last.logLevel === logLevel &&
      last.capabilities === capabilities &&
      last.base === this.envelope
    )
      return last;
    const envelope = this.envelopeFor(capabilities);
    const shaped = this.forEra({}, { logLevel, clientCapabilities: capabilities })['_meta'];
    const meta = requestMeta(shaped, envelope);
    const made: MadeMeta = {
      logLevel,
      capabilities,
      base: this.envelope,
      envelope,
      json: meta === undefined ? undefined : JSON.stringify(meta),
    };
    this.lastMeta = made;
    return made;
  }

  private envelopeFor(clientCapabilities: JsonObject | undefined): JsonObject | undefined {
    if (this.envelope === undefined || clientCapabilities === undefined) return this.envelope;
    return modernEnvelope({ ...this.options.identity }, clientCapabilities);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const generation = ++this.generation;
    this.attempt++;
    this.setStatus({ state: 'starting', since: this.now(), attempt: this.attempt }, EMPTY_SNAPSHOT);
    if (this.config.auth === 'per-user' && usesOAuth(this.config) && this.principal === '') {
      // Each principal has its own login and connection (`PerUserServer`); a connection
      // for nobody in particular would have no login to use.
      this.failed(
        new DownstreamError(
          'DOWNSTREAM_UNAVAILABLE',
          this.name,
          `server "${this.name}" is configured "auth: per-user": it is reached only over each principal's own login (\`${loginCommand(this.name, '<name>')}\`)`,
        ),
      );
      return;
    }
    let connection: Connection;
    try {
      connection = await connectServer({
        name: this.name,
        config: this.config,
        identity: this.options.identity,
        logDir: this.options.logDir,
        baseEnv: this.options.baseEnv,
        prior: this.prior,
        prepare: (client) => this.prepare(client, generation),
        authProvider: this.authProvider(generation),
      });
    } catch (error) {
      this.failed(error);
      return;
    }
    if (this.closed || generation !== this.generation) {
      await connection.client.close().catch(() => undefined);
      await connection.transport.close().catch(() => undefined);
      return;
    }
    this.prior = connection.prior;
    this.connection = connection;
    const era: Era = connection.prior.kind === 'modern' ? 'modern' : 'legacy';
    const client = connection.client;
    this.envelope =
      era === 'modern'
        ? modernEnvelope({ ...this.options.identity }, { ...DOWNSTREAM_CLIENT_CAPABILITIES })
        : undefined;
    if (connection.child !== undefined) {
      const lane = new RawLane(this.name, connection.child);
      connection.child.interceptor = lane.accept;
      this.lane = lane;
    }
    client.onclose = () => this.lost(generation);
    try {
      const snapshot = await readSnapshot(
        client,
        this.name,
        connection.capabilities,
        this.config.timeouts.requestMs,
        connection.child === undefined,
      );
      if (this.closed || generation !== this.generation) return;
      this.setStatus(
        {
          state: 'up',
          since: this.now(),
          era,
          protocolVersion: client.getNegotiatedProtocolVersion() ?? 'unknown',
        },
        snapshot,
      );
      this.resolveFirstSettle();
      if (era === 'modern') this.listener.open(client, generation, snapshot.capabilities);
    } catch (error) {
      if (generation !== this.generation) return;
      this.connection = undefined;
      this.lane = undefined;
      client.onclose = () => undefined;
      await client.close().catch(() => undefined);
      await connection.transport.close().catch(() => undefined);
      this.failed(error);
    }
  }

  /**
   * Connects again now when the server is down (its OAuth login changed, say), instead of
   * waiting for the next retry.
   */
  retryNow(): void {
    if (this.closed) return;
    // Up: the stored login is read again, and a removed one stops being used at once.
    if (this.statusValue.state === 'up') void this.auth?.revalidate();
    if (this.statusValue.state !== 'down') return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    void this.connect();
  }

  /** The bearer token provider of an OAuth-protected HTTP server, for one connection. */
  private authProvider(generation: number): ConnectionAuth | undefined {
    const oauth = this.options.oauth;
    const { url } = this.config;
    this.auth = undefined;
    if (oauth === undefined || url === undefined || !usesOAuth(this.config)) return undefined;
    return (this.auth = connectionAuth({
      server: this.options.server ?? this.name,
      url,
      principal: this.principal,
      vault: oauth.vault,
      settings: this.config.oauth,
      ...(oauth.refreshAheadMs === undefined ? {} : { refreshAheadMs: oauth.refreshAheadMs }),
      now: this.now,
      onLoginRequired: (error) => this.loginLost(generation, error),
    }));
  }

  /**
   * The server refused the stored login while up: it is down until someone logs in again
   * (the call that found out fails with the same reason).
   */
  private loginLost(generation: number, error: Error): void {
    if (generation !== this.generation || this.closed || this.statusValue.state !== 'up') return;
    const connection = this.connection;
    this.connection = undefined;
    this.generation++;
    this.listener.drop();
    this.lane = undefined;
    this.failed(error);
    if (connection !== undefined) {
      connection.client.onclose = () => undefined;
      void connection.client.close().catch(() => undefined);
    }
  }

  private prepare(client: Client, generation: number): void {
    client.onerror = () => undefined;
    const changed = (kind: ListKind) => () => {
      if (generation === this.generation) void this.refresh(kind, generation);
    };
    client.setNotificationHandler('notifications/tools/list_changed', changed('tools'));
    client.setNotificationHandler('notifications/prompts/list_changed', changed('prompts'));
    client.setNotificationHandler('notifications/resources/list_changed', changed('resources'));
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      this.options.events?.resourceUpdated?.(
        this,
        { ...notification.params },
        this.options.principal,
      );
    });
    client.setNotificationHandler('notifications/message', (notification) => {
      // The logger names its server: a client sees messages of many servers.
      const given = notification.params.logger;
      const params = {
        ...notification.params,
        logger: typeof given === 'string' ? `${this.name}/${given}` : this.name,
      };
      const route = this.inflight.routeLog(params);
      if (route !== 'call') this.options.events?.log?.(this, params, route, this.options.principal);
    });
    for (const method of ['elicitation/create', 'sampling/createMessage'] as const)
      client.setRequestHandler(method, this.inflight.relayHandler(this.name, method) as never);
  }

  private async refresh(kind: ListKind, generation: number): Promise<void> {
    const client = this.connection?.client;
    if (client === undefined || this.statusValue.state !== 'up') return;
    try {
      const next = await rereadList(
        client,
        this.name,
        this.snapshotValue,
        kind,
        this.config.timeouts.requestMs,
        this.connection?.child === undefined,
      );
      if (generation !== this.generation || this.statusValue.state !== 'up') return;
      this.snapshotValue = next;
      this.options.events?.listChanged?.(this, kind);
    } catch {
      // The next change notification or reconnect reads the list again.
    }
  }

  private lost(generation: number): void {
    if (generation !== this.generation || this.closed) return;
    const child = this.connection?.child;
    this.connection = undefined;
    this.listener.drop();
    const exit = child?.exit;
    let reason = 'the connection closed';
    if (exit !== undefined) {
      const tail = exit.stderrTail.split('\n').slice(-2).join(' | ').trim();
      reason = `the process exited (${exit.signal ?? `code ${String(exit.code)}`})${tail === '' ? '' : `; stderr: ${tail}`}`;
    }
    const garbage = child?.garbageSummary;
    if (garbage !== undefined) reason += `; ${garbage}`;
    const failure = child?.failure;
    const error =
      failure ??
      new DownstreamError(
        'DOWNSTREAM_CRASHED',
        this.name,
        `server "${this.name}" crashed: ${reason}`,
      );
    this.lane?.failAll(error);
    this.lane = undefined;
    const upFor = this.statusValue.state === 'up' ? this.now() - this.statusValue.since : 0;
    if (upFor >= STABLE_AFTER_MS) this.attempt = 0;
    this.failed(error);
  }

  private failed(error: unknown): void {
    if (this.closed) return;
    this.lastFailure = error;
    const code = error instanceof HintgateError ? error.code : 'DOWNSTREAM_UNAVAILABLE';
    const reason = stripServerPrefix(errorMessage(error), this.name);
    const delay = this.options.reconnect
      ? backoffDelay(this.config.reconnect, this.attempt, this.random)
      : undefined;
    this.setStatus(
      {
        state: 'down',
        since: this.now(),
        reason,
        code,
        attempt: this.attempt,
        ...(delay === undefined ? {} : { retryAt: this.now() + delay }),
      },
      EMPTY_SNAPSHOT,
    );
    this.resolveFirstSettle();
    if (delay !== undefined) {
      this.retryTimer = setTimeout(() => void this.connect(), delay);
      this.retryTimer.unref();
    }
  }

  private setStatus(status: DownstreamStatus, snapshot: DownstreamSnapshot): void {
    this.statusValue = status;
    this.snapshotValue = snapshot;
    this.options.events?.status?.(this);
  }
}

const HEADER_TOOLS = new WeakMap<DownstreamSnapshot, ReadonlyMap<string, JsonObject>>();

/** The tools of a listing that declare parameters for `Mcp-Param-*` headers, by name. */
function headerToolsOf(snapshot: DownstreamSnapshot): ReadonlyMap<string, JsonObject> {
  let found = HEADER_TOOLS.get(snapshot);
  if (found === undefined) {
    const map = new Map<string, JsonObject>();
    for (const tool of snapshot.tools) {
      const name = tool['name'];
      if (typeof name === 'string' && declaresHeaders(tool)) map.set(name, tool);
    }
    HEADER_TOOLS.set(snapshot, map);
    found = map;
  }
  return found;
}
