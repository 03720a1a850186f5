import type { Client, McpSubscription, PriorDiscovery } from '@modelcontextprotocol/client';
import * as z from 'zod';
import type { ServerConfig } from '../config/schema.js';
import type { HintgateErrorCode } from '../core/errors.js';
import { HintgateError, errorMessage } from '../core/errors.js';
import type { ClientIdentity, Connection } from './connect.js';
import { DOWNSTREAM_CLIENT_CAPABILITIES, connectServer } from './connect.js';
import type { Era } from '../mcp/era.js';
import { modernEnvelope, neutralResult } from '../mcp/era.js';
import { DownstreamError } from '../mcp/rpc-errors.js';
import { fromClientError } from './errors.js';
import type { ServerRequestRelay } from '../mcp/relay.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import type { ListMethod } from './lists.js';
import { listAll } from './lists.js';
import { RawLane } from './raw-lane.js';

/** Where a server stands. */
export type DownstreamStatus =
  | { readonly state: 'starting'; readonly since: number; readonly attempt: number }
  | {
      readonly state: 'up';
      readonly since: number;
      readonly era: Era;
      readonly protocolVersion: string;
    }
  | {
      readonly state: 'down';
      readonly since: number;
      readonly reason: string;
      readonly code: HintgateErrorCode;
      readonly attempt: number;
      /** When the next attempt starts (epoch ms), unless retries are off. */
      readonly retryAt?: number;
    }
  | { readonly state: 'closed'; readonly since: number };

/** What a server offers, as it listed it, items kept exactly as received. */
export interface DownstreamSnapshot {
  readonly tools: readonly JsonObject[];
  readonly prompts: readonly JsonObject[];
  readonly resources: readonly JsonObject[];
  readonly resourceTemplates: readonly JsonObject[];
  readonly capabilities: JsonObject;
  readonly serverInfo: JsonObject | undefined;
  readonly instructions: string | undefined;
}

/** A list that changed on a server. */
export type ListKind = 'tools' | 'prompts' | 'resources';

/** What a server tells the gateway outside of answers. */
export interface DownstreamEvents {
  /** Status changed (its snapshot changes with it when it comes up or goes down). */
  status?(server: Downstream): void;
  /** A list was re-read after the server said it changed. */
  listChanged?(server: Downstream, kind: ListKind): void;
  /** `notifications/resources/updated`. */
  resourceUpdated?(server: Downstream, params: JsonObject): void;
  /** `notifications/message` (logging). */
  log?(server: Downstream, params: JsonObject): void;
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
}

/** Everything {@link Downstream} needs. */
export interface DownstreamOptions {
  readonly name: string;
  readonly config: ServerConfig;
  readonly identity: ClientIdentity;
  /** Directory of the per-server log files. */
  readonly logDir: string;
  /** Retry after a failed start or a crash (the gateway does; lint does not). */
  readonly reconnect: boolean;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly events?: DownstreamEvents;
  /** Clock and randomness, injectable for tests. */
  readonly now?: () => number;
  readonly random?: () => number;
}

const EMPTY_SNAPSHOT: DownstreamSnapshot = {
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
  capabilities: {},
  serverInfo: undefined,
  instructions: undefined,
};

const LOOSE_RESULT = z.looseObject({});
/** A server up at least this long has its retry backoff reset when it next fails. */
const STABLE_AFTER_MS = 10_000;

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
  private prior: PriorDiscovery | undefined;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private firstSettle: Promise<void>;
  private resolveFirstSettle!: () => void;
  /** Calls in flight, latest last, with where their server-to-client requests go. */
  private readonly inflight = new Set<{ readonly relay: ServerRequestRelay | undefined }>();
  /** Resources clients subscribed to (2026 servers take them on the listen stream). */
  private readonly resourceUris = new Set<string>();
  private subscription: McpSubscription | undefined;
  private readonly now: () => number;
  private readonly random: () => number;
  private generation = 0;

  constructor(private readonly options: DownstreamOptions) {
    this.name = options.name;
    this.config = options.config;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.statusValue = { state: 'starting', since: this.now(), attempt: 0 };
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
    const call = { relay: options.relay };
    this.inflight.add(call);
    try {
      if (this.lane !== undefined) {
        const envelope = this.envelopeFor(options.clientCapabilities);
        const result = await this.lane.request('tools/call', params, {
          timeoutMs,
          signal: options.signal,
          onProgress: options.onProgress,
          resetTimeoutOnProgress: true,
          envelope,
        });
        return neutralResult(result);
      }
      return await this.viaClient(connection.client, 'tools/call', withoutProgressToken(params), {
        timeoutMs,
        signal: options.signal,
        onProgress: options.onProgress,
      });
    } finally {
      this.inflight.delete(call);
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
    const call = { relay: options.relay };
    this.inflight.add(call);
    try {
      return await this.viaClient(connection.client, method, withoutProgressToken(params), {
        timeoutMs: options.timeoutMs ?? this.config.timeouts.requestMs,
        signal: options.signal,
        onProgress: options.onProgress,
      });
    } finally {
      this.inflight.delete(call);
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
    this.resourceUris.add(uri);
    await this.relisten();
    return {};
  }

  /** Undoes {@link subscribeResource}. */
  async unsubscribeResource(uri: string, options: DownstreamCallOptions = {}): Promise<JsonObject> {
    if (this.statusValue.state !== 'up' || this.statusValue.era === 'legacy') {
      return this.request('resources/unsubscribe', { uri }, options);
    }
    this.resourceUris.delete(uri);
    await this.relisten();
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

  private requireUp(): Connection {
    const status = this.statusValue;
    if (status.state === 'up' && this.connection !== undefined) return this.connection;
    throw new DownstreamError('DOWNSTREAM_UNAVAILABLE', this.name, this.unavailableMessage(status));
  }

  private unavailableMessage(status: DownstreamStatus): string {
    switch (status.state) {
      case 'down': {
        const retry =
          status.retryAt === undefined
            ? ''
            : `; retrying in ${Math.max(0, Math.ceil((status.retryAt - this.now()) / 1000))} s`;
        return `server "${this.name}" is down: ${status.reason}${retry}`;
      }
      case 'starting':
        return `server "${this.name}" is still starting`;
      case 'closed':
        return `server "${this.name}" is shut down`;
      case 'up':
        return `server "${this.name}" is not connected`;
    }
  }

  private async viaClient(
    client: Client,
    method: string,
    params: JsonObject,
    options: {
      timeoutMs: number;
      signal: AbortSignal | undefined;
      onProgress: ((p: JsonObject) => void) | undefined;
    },
  ): Promise<JsonObject> {
    try {
      const result = await client.request({ method, params }, LOOSE_RESULT, {
        timeout: options.timeoutMs,
        resetTimeoutOnProgress: true,
        allowInputRequired: true,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.onProgress === undefined
          ? {}
          : { onprogress: (progress: JsonObject) => options.onProgress?.({ ...progress }) }),
      });
      return neutralResult(result);
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason ?? error;
      throw fromClientError(this.name, error, method);
    }
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
      const snapshot = await this.readEverything(client, connection.capabilities);
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
      if (era === 'modern') void this.listen(client, generation, snapshot.capabilities);
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

  private prepare(client: Client, generation: number): void {
    client.onerror = () => undefined;
    const changed = (kind: ListKind) => () => {
      if (generation === this.generation) void this.refresh(kind, generation);
    };
    client.setNotificationHandler('notifications/tools/list_changed', changed('tools'));
    client.setNotificationHandler('notifications/prompts/list_changed', changed('prompts'));
    client.setNotificationHandler('notifications/resources/list_changed', changed('resources'));
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      this.options.events?.resourceUpdated?.(this, { ...notification.params });
    });
    client.setNotificationHandler('notifications/message', (notification) => {
      this.options.events?.log?.(this, { ...notification.params });
    });
    const relay =
      (method: string) =>
      async (request: { params?: unknown }, ctx: { mcpReq: { signal: AbortSignal } }) => {
        // The request is not tied to a call on the wire: it goes to the client of the latest
        // call in flight, and fails when that client cannot take it (a 2026 client).
        const target = [...this.inflight].at(-1)?.relay;
        if (target === undefined) {
          throw new HintgateError(
            'NOT_FOUND',
            `hintgate has no client to relay ${method} to (no call of server "${this.name}" that can answer it is in flight)`,
          );
        }
        const params = isJsonObject(request.params) ? request.params : {};
        return target({ method, params }, ctx.mcpReq.signal);
      };
    client.setRequestHandler('elicitation/create', relay('elicitation/create') as never);
    client.setRequestHandler('sampling/createMessage', relay('sampling/createMessage') as never);
  }

  /** Everything the server lists; `capabilities` as it sent them (see {@link Connection}). */
  private async readEverything(
    client: Client,
    capabilities: JsonObject,
  ): Promise<DownstreamSnapshot> {
    const timeout = this.config.timeouts.requestMs;
    const has = (key: string) => isJsonObject(capabilities[key]);
    const list = (method: ListMethod, enabled: boolean) =>
      enabled ? listAll(client, this.name, method, timeout) : Promise.resolve([]);
    const [tools, prompts, resources, resourceTemplates] = await Promise.all([
      list('tools/list', has('tools')),
      list('prompts/list', has('prompts')),
      list('resources/list', has('resources')),
      list('resources/templates/list', has('resources')).catch(() => []),
    ]);
    const serverInfo = client.getServerVersion() as JsonObject | undefined;
    return {
      tools,
      prompts,
      resources,
      resourceTemplates,
      capabilities,
      serverInfo,
      instructions: client.getInstructions(),
    };
  }

  /**
   * 2026 servers send change notifications (lists, subscribed resources) only on a
   * `subscriptions/listen` stream: one is kept open, and reopened if the server ends it.
   */
  private async listen(
    client: Client,
    generation: number,
    capabilities: JsonObject,
  ): Promise<void> {
    const flag = (key: string, name: string) =>
      isJsonObject(capabilities[key]) && capabilities[key][name] === true;
    const filter = {
      ...(flag('tools', 'listChanged') ? { toolsListChanged: true } : {}),
      ...(flag('prompts', 'listChanged') ? { promptsListChanged: true } : {}),
      ...(flag('resources', 'listChanged') ? { resourcesListChanged: true } : {}),
      ...(flag('resources', 'subscribe') && this.resourceUris.size > 0
        ? { resourceSubscriptions: [...this.resourceUris] }
        : {}),
    };
    if (Object.keys(filter).length === 0) return;
    try {
      const subscription = await client.listen(filter, { timeout: this.config.timeouts.requestMs });
      this.subscription = subscription;
      const how = await subscription.closed;
      if (this.subscription === subscription) this.subscription = undefined;
      if (
        how === 'remote' &&
        generation === this.generation &&
        !this.closed &&
        this.statusValue.state === 'up'
      ) {
        void this.listen(client, generation, capabilities);
      }
    } catch {
      // A server that cannot listen still serves; its lists are read at each reconnect.
    }
  }

  /** Reopens the listen stream with the current filter. */
  private async relisten(): Promise<void> {
    const client = this.connection?.client;
    if (client === undefined) return;
    const previous = this.subscription;
    this.subscription = undefined;
    await previous?.close().catch(() => undefined);
    void this.listen(client, this.generation, this.snapshotValue.capabilities);
  }

  private async refresh(kind: ListKind, generation: number): Promise<void> {
    const client = this.connection?.client;
    if (client === undefined || this.statusValue.state !== 'up') return;
    const timeout = this.config.timeouts.requestMs;
    try {
      let next: DownstreamSnapshot;
      if (kind === 'tools') {
        next = {
          ...this.snapshotValue,
          tools: await listAll(client, this.name, 'tools/list', timeout),
        };
      } else if (kind === 'prompts') {
        next = {
          ...this.snapshotValue,
          prompts: await listAll(client, this.name, 'prompts/list', timeout),
        };
      } else {
        const [resources, resourceTemplates] = await Promise.all([
          listAll(client, this.name, 'resources/list', timeout),
          listAll(client, this.name, 'resources/templates/list', timeout).catch(() => []),
        ]);
        next = { ...this.snapshotValue, resources, resourceTemplates };
      }
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
    const code = error instanceof HintgateError ? error.code : 'DOWNSTREAM_UNAVAILABLE';
    const reason = stripServerPrefix(errorMessage(error), this.name);
    const retry = this.options.reconnect;
    const delay = retry ? this.backoff() : undefined;
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

  private backoff(): number {
    const { initialDelayMs, maxDelayMs } = this.config.reconnect;
    const base = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, this.attempt - 1));
    return Math.round(base * (0.8 + 0.4 * this.random()));
  }

  private setStatus(status: DownstreamStatus, snapshot: DownstreamSnapshot): void {
    this.statusValue = status;
    this.snapshotValue = snapshot;
    this.options.events?.status?.(this);
  }
}

function withoutProgressToken(params: JsonObject): JsonObject {
  const meta = params['_meta'];
  if (!isJsonObject(meta) || !('progressToken' in meta)) return params;
  const { progressToken: _token, ...rest } = meta;
  const copy: JsonObject = { ...params };
  if (Object.keys(rest).length === 0) delete copy['_meta'];
  else copy['_meta'] = rest;
  return copy;
}

function stripServerPrefix(message: string, server: string): string {
  return message.replace(`server "${server}" `, '').replace(/^failed the MCP handshake: /, '');
}
