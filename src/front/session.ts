import type { Era } from '../mcp/era.js';
import type { JsonObject } from '../mcp/json-rpc.js';

/** The front a client came through. */
export type FrontKind = 'stdio' | 'http';

/**
 * What the gateway knows of one client connection. For 2025 clients it is filled at
 * `initialize`; 2026 clients are stateless, so each request brings its own (the envelope).
 */
export interface SessionInfo {
  /** Stable for the connection (stdio), the `Mcp-Session-Id` (2025 HTTP), or per request (2026 HTTP). */
  readonly id: string;
  readonly front: FrontKind;
  readonly era: Era | undefined;
  readonly protocolVersion: string | undefined;
  readonly clientInfo: JsonObject | undefined;
  readonly clientCapabilities: JsonObject | undefined;
  /** The authenticated principal (HTTP with a bearer token). */
  readonly principal: string | undefined;
}

/** A session of which nothing is known yet. */
export function emptySession(id: string, front: FrontKind): SessionInfo {
  return {
    id,
    front,
    era: undefined,
    protocolVersion: undefined,
    clientInfo: undefined,
    clientCapabilities: undefined,
    principal: undefined,
  };
}

/**
 * One caller as the servers' messages are routed to it: the session, of its principal. What
 * a server sends outside an answer goes to a call only while one caller has calls in flight.
 */
export function callerOf(session: SessionInfo): string {
  // A 2026 session is made per request: remembering it would only cost a WeakMap entry.
  if (session.era === 'modern') return callerText(session);
  let caller = CALLERS.get(session);
  if (caller === undefined) {
    caller = callerText(session);
    CALLERS.set(session, caller);
  }
  return caller;
}

function callerText(session: SessionInfo): string {
  return `${session.front}\u0000${session.id}\u0000${session.principal ?? ''}`;
}

/** Per session object (a 2025 connection keeps one for all its calls): its caller, built once. */
const CALLERS = new WeakMap<SessionInfo, string>();
