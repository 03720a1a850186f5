import type { ServerConfig } from '../config/schema.js';
import { errorMessage } from '../core/errors.js';
import { sameJson } from '../core/util/same-json.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { DownstreamError } from '../mcp/rpc-errors.js';
import type {
  Downstream,
  DownstreamCallOptions,
  DownstreamEvents,
  ServerConnection,
} from './downstream.js';
import { loginCommand, loginRequired } from './oauth/provider.js';
import type { DownstreamSnapshot } from './snapshot.js';
import { EMPTY_SNAPSHOT } from './snapshot.js';
import type { DownstreamStatus } from './status.js';
import { unavailableMessage } from './status.js';

/** What {@link PerUserServer} needs. */
export interface PerUserServerOptions {
  readonly name: string;
  readonly config: ServerConfig;
  /** Makes (without starting) the connection of one principal, over that principal's login. */
  readonly connect: (principal: string, events: DownstreamEvents) => Downstream;
  /** The principals with a stored login to this server. */
  readonly logins: () => Promise<readonly string[]>;
  /** What the server reports, as one server (status, list changes, resources, log messages). */
  readonly events?: DownstreamEvents;
  /** The set of principals with a login changed (who sees the server's tools changed). */
  readonly loginsChanged?: () => void;
  /** One line per principal's connection opened, closed or failed. */
  readonly log?: (line: string) => void;
  readonly now?: () => number;
}

/** One principal's connection and what keeps it open. */
interface Held {
  readonly principal: string;
  readonly downstream: Downstream;
  /** Resolves once the connection has settled (up or down). */
  readonly opened: Promise<void>;
  /** Requests in flight over it. */
  busy: number;
  idle: NodeJS.Timeout | undefined;
}

/** How long a principal whose connection failed is not tried again by a listing. */
const LISTING_RETRY_MS = 30_000;

/**
 * An HTTP server configured `auth: per-user`: every principal reaches it over a connection of
 * its own, carrying its own OAuth login (`hintgate auth login <server> --principal <name>`),
 * opened on the principal's first listing or call and closed after `timeouts.idleMs` unused.
 * A principal without a stored login, or a request with no principal, is refused with an
 * error naming the command to log in; no request of one principal goes over another's
 * connection, and no connection is shared.
 *
 * As one server, it is up once some principal's connection has listed the server's tools:
 * that listing (the latest of any principal's) is what the catalog shows, kept when the
 * connection closes; which principals see it is the gateway's business ({@link hasLogin}).
 */
export class PerUserServer implements ServerConnection {
  readonly name: string;
  readonly config: ServerConfig;
  #status: DownstreamStatus;
  #snapshot: DownstreamSnapshot = EMPTY_SNAPSHOT;
  readonly #held = new Map<string, Held>();
  #logins: ReadonlySet<string> = new Set();
  #loaded: Promise<void> | undefined;
  readonly #tried = new Map<string, number>();
  #closed = false;
  readonly #now: () => number;

  constructor(private readonly options: PerUserServerOptions) {
    this.name = options.name;
    this.config = options.config;
    this.#now = options.now ?? Date.now;
    this.#status = this.#waiting();
  }

  get status(): DownstreamStatus {
    return this.#status;
  }

  get snapshot(): DownstreamSnapshot {
    return this.#snapshot;
  }

  /** True when the principal has a stored login to this server (as last read). */
  hasLogin(principal: string | undefined): boolean {
    return principal !== undefined && this.#logins.has(principal);
  }

  /**
   * Why the principal cannot reach the server, or undefined: no principal (stdio, HTTP
   * without a token), or no stored login; the error names the command to log in.
   */
  refusal(principal: string | undefined): Error | undefined {
    if (principal === undefined) {
      return new DownstreamError(
        'DOWNSTREAM_UNAVAILABLE',
        this.name,
        `server "${this.name}" is configured "auth: per-user" and this request has no principal (stdio, or HTTP without a token): it is reached only as a principal with its own login (a named token of "http.tokens" or an OAuth access token, and \`${loginCommand(this.name, '<name>')}\`)`,
      );
    }
    if (!this.#logins.has(principal))
      return loginRequired(this.name, principal, 'no login is stored');
    return undefined;
  }

  /** Reads which principals have a login; resolves when done (a failure leaves none). */
  start(): Promise<void> {
    return (this.#loaded ??= this.reloadLogins().then(() => {
      this.options.log?.(
        `server "${this.name}" is served per principal ("auth: per-user"): ${this.#logins.size} principal(s) with a login, each connected on its first use`,
      );
    }));
  }

  settled(): Promise<void> {
    return this.start();
  }

  /**
   * Reads again which principals have a login (the store reported a login or logout); the
   * connection of a principal whose login is gone is closed at once.
   */
  async reloadLogins(): Promise<void> {
    let principals: readonly string[];
    try {
      principals = await this.options.logins();
    } catch (error) {
      this.options.log?.(
        `server "${this.name}": could not read its per-user logins: ${errorMessage(error)}`,
      );
      return;
    }
    const before = this.#logins;
    this.#logins = new Set(principals);
    this.#tried.clear();
    if (before.size !== this.#logins.size || [...before].some((p) => !this.#logins.has(p)))
      this.options.loginsChanged?.();
    for (const principal of [...this.#held.keys()]) {
      if (!this.#logins.has(principal)) void this.#drop(principal, 'its login was removed');
    }
  }

  /**
   * The store reported a login change: see {@link reloadLogins}; the open connections read
   * their logins again.
   */
  retryNow(): void {
    void this.reloadLogins().then(() => {
      for (const held of this.#held.values())
        if (held.downstream.status.state === 'up') held.downstream.retryNow();
    });
  }

  /**
   * Opens the principal's connection when the server's tools are not known yet and the
   * principal has a login (a first listing); failures are left to the calls to report.
   */
  async prepare(principal: string | undefined): Promise<void> {
    await this.start();
    if (this.#status.state === 'up' || principal === undefined || !this.hasLogin(principal)) return;
    const tried = this.#tried.get(principal);
    if (tried !== undefined && this.#now() - tried < LISTING_RETRY_MS) return;
    this.#tried.set(principal, this.#now());
    await this.#use(principal, () => Promise.resolve()).catch(() => undefined);
  }

  callTool(params: JsonObject, options: DownstreamCallOptions = {}): Promise<JsonObject> {
    return this.#use(options.principal, (server) => server.callTool(params, options));
  }

  request(
    method: string,
    params: JsonObject,
    options: DownstreamCallOptions = {},
  ): Promise<JsonObject> {
    return this.#use(options.principal, (server) => server.request(method, params, options));
  }

  subscribeResource(uri: string, options: DownstreamCallOptions = {}): Promise<JsonObject> {
    return this.#use(options.principal, (server) => server.subscribeResource(uri, options));
  }

  unsubscribeResource(uri: string, options: DownstreamCallOptions = {}): Promise<JsonObject> {
    return this.#use(options.principal, (server) => server.unsubscribeResource(uri, options));
  }

  /** Closes every principal's connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#held.keys()].map((principal) => this.#drop(principal)));
    this.#setStatus({ state: 'closed', since: this.#now() }, EMPTY_SNAPSHOT);
  }

  /** The principals whose connections are open now (for tests and status). */
  get connected(): readonly string[] {
    return [...this.#held.keys()];
  }

  /** Runs `work` over the principal's own connection, opening it first when needed. */
  async #use<T>(principal: string | undefined, work: (server: Downstream) => Promise<T>) {
    const held = await this.#connectionOf(principal);
    held.busy += 1;
    clearTimeout(held.idle);
    held.idle = undefined;
    try {
      return await work(held.downstream);
    } finally {
      held.busy -= 1;
      this.#whenIdle(held);
    }
  }

  async #connectionOf(principal: string | undefined): Promise<Held> {
    await this.start();
    if (this.#closed) {
      throw new DownstreamError(
        'DOWNSTREAM_UNAVAILABLE',
        this.name,
        `server "${this.name}" is shut down`,
      );
    }
    const refused = this.refusal(principal);
    if (refused !== undefined) throw refused;
    const who = principal as string; // refusal() refuses a request without a principal
    // From here to `#open` nothing awaits: concurrent first requests share one connection.
    let held = this.#held.get(who);
    const state = held?.downstream.status.state;
    if (held !== undefined && (state === 'down' || state === 'closed')) {
      // Failed or lost (its login refused): a new connection reads the login afresh. The old
      // one leaves the map at once and closes in the background.
      void this.#drop(who);
      held = undefined;
    }
    held ??= this.#open(who);
    await held.opened;
    const server = held.downstream;
    if (server.status.state !== 'up') {
      if (this.#held.get(who) === held) await this.#drop(who);
      const failure = server.failure;
      if (failure instanceof Error) throw failure;
      throw new DownstreamError(
        'DOWNSTREAM_UNAVAILABLE',
        this.name,
        unavailableMessage(this.name, server.status, this.#now()),
      );
    }
    return held;
  }

  #open(principal: string): Held {
    const events = this.options.events;
    const downstream = this.options.connect(principal, {
      status: (server) => this.#onStatus(principal, server),
      listChanged: (server, kind) => {
        if (this.#held.get(principal)?.downstream !== server) return;
        this.#snapshot = server.snapshot;
        events?.listChanged?.(this, kind);
      },
      // What one principal's connection reports concerns that principal's clients alone.
      resourceUpdated: (_server, params) => events?.resourceUpdated?.(this, params, principal),
      log: (_server, params, route) => events?.log?.(this, params, route, principal),
    });
    const held: Held = {
      principal,
      downstream,
      opened: downstream.start(),
      busy: 0,
      idle: undefined,
    };
    this.#held.set(principal, held);
    return held;
  }

  #onStatus(principal: string, server: ServerConnection): void {
    if (this.#held.get(principal)?.downstream !== server) return;
    const status = server.status;
    if (status.state === 'up') {
      this.options.log?.(
        `server "${this.name}": connected for principal "${principal}" (${server.snapshot.tools.length} tool(s))`,
      );
      // Another principal's connection coming up with the same lists changes nothing the
      // gateway shows: only the first, or one that lists differently, is reported.
      if (this.#status.state !== 'up' || !sameJson(this.#snapshot, server.snapshot))
        this.#setStatus(status, server.snapshot);
    } else if (status.state === 'down') {
      this.options.log?.(
        `server "${this.name}": the connection for principal "${principal}" failed: ${status.reason}`,
      );
    }
  }

  /** Closes a principal's connection `idleMs` after its last request ended. */
  #whenIdle(held: Held): void {
    const { principal } = held;
    if (held.busy > 0 || this.#held.get(principal) !== held) return;
    clearTimeout(held.idle);
    held.idle = setTimeout(() => {
      if (held.busy === 0 && this.#held.get(principal) === held) void this.#drop(principal, 'idle');
    }, this.config.timeouts.idleMs);
    held.idle.unref();
  }

  async #drop(principal: string, why?: string): Promise<void> {
    const held = this.#held.get(principal);
    if (held === undefined) return;
    this.#held.delete(principal);
    clearTimeout(held.idle);
    if (why !== undefined)
      this.options.log?.(
        `server "${this.name}": closed the connection for principal "${principal}" (${why})`,
      );
    await held.downstream.close();
  }

  #setStatus(status: DownstreamStatus, snapshot: DownstreamSnapshot): void {
    this.#status = status;
    this.#snapshot = snapshot;
    this.options.events?.status?.(this);
  }

  /** The status before any principal's connection has listed the server's tools. */
  #waiting(): DownstreamStatus {
    return {
      state: 'down',
      since: this.#now(),
      reason: `served per principal ("auth: per-user"): its tools are listed once a principal with a login uses it (\`${loginCommand(this.name, '<name>')}\`)`,
      code: 'DOWNSTREAM_UNAVAILABLE',
      attempt: 0,
    };
  }
}
