import type { Server } from '@modelcontextprotocol/server';
import type { Era } from '../mcp/era.js';
import type { ChangeKind } from './backend.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { logPasses } from './logging.js';
import type { FrontKind } from './session.js';

/** What a front instance's client asked for, kept as the requests come. */
export interface InstanceState {
  /** Resource URIs its client subscribed to (2025). */
  readonly subscriptions: Set<string>;
  /** The level its client set with `logging/setLevel` (2025), if it did. */
  logLevel: string | undefined;
}

/** What the hub knows of one live front instance. */
export interface TrackedInstance {
  readonly era: Era;
  readonly front: FrontKind;
  readonly state: InstanceState;
  /** Its session (2025 HTTP: `Mcp-Session-Id`, once initialized) or connection id. */
  readonly sessionId?: () => string | undefined;
  /** The principal its requests come from (HTTP with a token); none over stdio. */
  readonly principal?: string | undefined;
}

/**
 * A client as targeted change notifications see it: a tracked instance, or (with no
 * `sessionId`) the 2026 HTTP clients as a whole, which are reached through a publisher.
 */
export interface ChangeTarget {
  readonly era: Era;
  readonly front: FrontKind;
  readonly sessionId: string | undefined;
}

const MODERN_HTTP: ChangeTarget = { era: 'modern', front: 'http', sessionId: undefined };

/** Publishes to the 2026 HTTP clients (their instances live for one request only). */
export interface ModernPublisher {
  readonly notify: {
    toolsChanged(): void;
    promptsChanged(): void;
    resourcesChanged(): void;
    resourceUpdated(uri: string): void;
  };
}

/** Changes arriving closer together than this are sent once. */
export const CHANGE_DEBOUNCE_MS = 25;

/**
 * Every live front instance, so that what the gateway learns reaches connected clients:
 * list changes (debounced; each kind once per burst, e.g. twenty servers coming up at
 * start), resource updates for the subscribed, and server log messages (2025 clients, at
 * the level each set). 2025 instances and stdio 2026 instances are told directly (the SDK's
 * `serveStdio` turns a 2026 instance's notification into events on its listen streams);
 * 2026 HTTP clients through the handler's publisher.
 */
export class FrontHub {
  private readonly instances = new Map<Server, TrackedInstance>();
  private readonly publishers = new Set<ModernPublisher>();
  private readonly pending = new Set<ChangeKind>();
  /** Instances owed a tools list_changed that not every client is owed. */
  private readonly pendingTools = new Set<Server>();
  private pendingPublishers = false;
  private readonly closedListeners = new Set<(sessionId: string) => void>();
  private timer: NodeJS.Timeout | undefined;

  /** Starts delivering to an instance; it is forgotten when it closes. */
  track(server: Server, instance: TrackedInstance): void {
    this.instances.set(server, instance);
    const previous = server.onclose;
    server.onclose = () => {
      this.instances.delete(server);
      this.pendingTools.delete(server);
      const id = instance.sessionId?.();
      if (id !== undefined) for (const listener of this.closedListeners) listener(id);
      previous?.();
    };
  }

  /** Calls `listener` with the session id of each tracked instance that closes. */
  onSessionClosed(listener: (sessionId: string) => void): void {
    this.closedListeners.add(listener);
  }

  /** Adds a 2026 HTTP publisher. */
  addPublisher(publisher: ModernPublisher): void {
    this.publishers.add(publisher);
  }

  /** Live instances (for tests and status). */
  get size(): number {
    return this.instances.size;
  }

  /** A list changed: tell every client, once per burst. */
  changed(kind: ChangeKind): void {
    this.pending.add(kind);
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.flush(), CHANGE_DEBOUNCE_MS);
    this.timer.unref();
  }

  /**
   * The tool list changed for some clients only (those whose toolset changed): `affects` is
   * asked now, for each live instance and once for the 2026 HTTP clients as a whole, and
   * those it picks are told with the next burst.
   */
  toolsChangedFor(affects: (target: ChangeTarget) => boolean): void {
    let any = false;
    for (const [server, instance] of this.instances) {
      const target = {
        era: instance.era,
        front: instance.front,
        sessionId: instance.sessionId?.(),
      };
      if (affects(target)) {
        this.pendingTools.add(server);
        any = true;
      }
    }
    if (this.publishers.size > 0 && affects(MODERN_HTTP)) {
      this.pendingPublishers = true;
      any = true;
    }
    if (!any || this.timer !== undefined) return;
    this.timer = setTimeout(() => this.flush(), CHANGE_DEBOUNCE_MS);
    this.timer.unref();
  }

  /**
   * `notifications/resources/updated` for the clients subscribed to its URI. With a
   * `principal` (it came over that principal's own connection to an `auth: per-user`
   * server), only that principal's sessions are told; the 2026 HTTP clients, whose listen
   * streams are not told apart by principal, are not.
   */
  resourceUpdated(params: JsonObject, principal?: string): void {
    const uri = params['uri'];
    if (typeof uri !== 'string') return;
    for (const [server, instance] of this.instances) {
      if (!reaches(instance, principal)) continue;
      if (instance.era === 'modern' || instance.state.subscriptions.has(uri)) {
        void server.sendResourceUpdated({ ...params, uri }).catch(() => undefined);
      }
    }
    if (principal !== undefined) return;
    for (const publisher of this.publishers) publisher.notify.resourceUpdated(uri);
  }

  /**
   * A server's log message that no call was waiting for (a call's own messages go to its
   * client only, through the call's link): to each 2025 client that asked for messages with
   * `logging/setLevel`, at the level it set. Clients that did not ask get none. With a
   * `principal`, as for {@link resourceUpdated}: that principal's sessions only.
   */
  log(params: JsonObject, principal?: string): void {
    for (const [server, instance] of this.instances) {
      if (instance.era !== 'legacy' || !logPasses(params, instance.state.logLevel)) continue;
      if (!reaches(instance, principal)) continue;
      void server.notification({ method: 'notifications/message', params }).catch(() => undefined);
    }
  }

  /** The level the client of a tracked instance set with `logging/setLevel`, if any. */
  logLevelOf(server: Server): string | undefined {
    return this.instances.get(server)?.state.logLevel;
  }

  /** Sends what is pending now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const kinds = [...this.pending];
    this.pending.clear();
    const targeted = [...this.pendingTools];
    const publishers = this.pendingPublishers;
    this.pendingTools.clear();
    this.pendingPublishers = false;
    if (!kinds.includes('tools')) {
      for (const server of targeted) void send(server, 'tools');
      if (publishers) for (const publisher of this.publishers) publisher.notify.toolsChanged();
    }
    for (const kind of kinds) {
      for (const server of this.instances.keys()) void send(server, kind);
      for (const publisher of this.publishers) {
        if (kind === 'tools') publisher.notify.toolsChanged();
        else if (kind === 'prompts') publisher.notify.promptsChanged();
        else publisher.notify.resourcesChanged();
      }
    }
  }
}

async function send(server: Server, kind: ChangeKind): Promise<void> {
  try {
    if (kind === 'tools') await server.sendToolListChanged();
    else if (kind === 'prompts') await server.sendPromptListChanged();
    else await server.sendResourceListChanged();
  } catch {
    // Not connected yet (before initialize) or gone: nothing to tell.
  }
}

/** True when a message for `principal` (undefined: for everyone) may go to the instance. */
function reaches(instance: TrackedInstance, principal: string | undefined): boolean {
  return principal === undefined || instance.principal === principal;
}
