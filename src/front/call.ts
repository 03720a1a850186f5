import { getEventListeners } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { MissingRequiredClientCapabilityError } from '@modelcontextprotocol/server';
import { HintgateError } from '../core/errors.js';
import {
  CLIENT_INFO_META_KEY,
  MODERN_PROTOCOL_VERSION,
  envelopeCapabilities,
  envelopeVersion,
} from '../mcp/era.js';
import type { JsonObject, RpcId, RpcMessage } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import type { ServerRequestRelay } from '../mcp/relay.js';
import type { FrontBackend, FrontCall, FrontRequest } from './backend.js';
import { envelopeLogLevel, logPasses } from './logging.js';
import type { FrontKind, SessionInfo } from './session.js';

/**
 * The one way into the gateway from a front. Every entrance (the SDK front server's
 * handlers, the stdio fast path, the HTTP fast path) describes the request it received and
 * what it can do towards the client ({@link ClientLink}); this module makes the call of it:
 * the session, the progress channel, the relay of server-to-client requests (checked
 * against the capabilities the client declared), the log channel, the request's retry fields
 * (`inputResponses`, `requestState`), and the check of a 2026 client's capabilities against
 * what an `input_required` result asks of it. Cancellation is the entrance's signal.
 */

/** What an entrance can do towards the client of one request. */
export interface ClientLink {
  /**
   * Sends a notification tied to this request (progress, a log message). It never throws
   * and must drop what comes after the request's answer or the client's departure.
   */
  notify(method: string, params: JsonObject): void;
  /**
   * Sends a request to the client on this request's behalf (elicitation, sampling, roots);
   * undefined when the connection cannot carry one (2026 clients get `input_required`).
   */
  readonly request: ServerRequestRelay | undefined;
  /** The log level a 2025 client set with `logging/setLevel`, if it did. */
  logLevel(): string | undefined;
}

/** One request as an entrance received it. */
export interface Incoming {
  /** The params as received, with the retry fields the SDK parsed out put back. */
  readonly params: JsonObject;
  readonly session: SessionInfo;
  readonly signal: AbortSignal;
  readonly link: ClientLink;
}

/** Server-to-client requests, and the client capability each needs. */
const RELAYED_CAPABILITY: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Relays per link: a link's client and its capabilities do not change. */
const RELAYS = new WeakMap<ClientLink, ServerRequestRelay>();

/**
 * The relay of a link: the server's request goes to the client when it declared the
 * capability the request needs, and fails with a clear message when it did not.
 */
function relayOf(link: ClientLink, session: SessionInfo): ServerRequestRelay | undefined {
  const send = link.request;
  if (send === undefined) return undefined;
  let relay = RELAYS.get(link);
  if (relay === undefined) {
    const declared = session.clientCapabilities;
    relay = (request, signal) => {
      const needs = RELAYED_CAPABILITY[request.method];
      if (needs === undefined || !isJsonObject(declared?.[needs])) {
        return Promise.reject(
          new HintgateError(
            'FORBIDDEN',
            needs === undefined
              ? `hintgate does not relay "${request.method}" requests to clients`
              : `the client did not declare the "${needs}" capability, so "${request.method}" cannot be sent to it`,
          ),
        );
      }
      return send(request, signal);
    };
    RELAYS.set(link, relay);
  }
  return relay;
}

/** The progress token a request asked for, if any. */
export function progressTokenOf(params: JsonObject): unknown {
  const meta = params['_meta'];
  return isJsonObject(meta) ? meta['progressToken'] : undefined;
}

/** A request other than tools/call, ready for the gateway. */
export function frontRequest(incoming: Incoming): FrontRequest {
  const { params, session, signal, link } = incoming;
  return {
    params,
    session,
    signal,
    relay: relayOf(link, session),
    log: logOf(incoming),
    logLevel: logLevelOf(incoming),
  };
}

/**
 * The least severe level of server log messages the client of a request wants: a 2026
 * client's envelope level (none: it asked for none), a 2025 client's `logging/setLevel`,
 * else `debug` (a 2025 client that set no level gets every message of its own calls).
 */
function logLevelOf({ params, session, link }: Incoming): string | undefined {
  return session.era === 'modern' ? envelopeLogLevel(params) : (link.logLevel() ?? 'debug');
}

/**
 * The log channel of a request: a server's message goes to this client only, at the level it
 * asked for (a 2025 client with `logging/setLevel`, a 2026 client in the request's envelope;
 * a 2026 client that did not ask gets none).
 */
function logOf({ params, session, signal, link }: Incoming): (message: JsonObject) => void {
  const fixed = session.era === 'modern' ? envelopeLogLevel(params) : undefined;
  return (message) => {
    if (signal.aborted) return;
    // A 2025 client that set no level gets every message of its own calls, as MCP allows.
    const threshold = session.era === 'modern' ? fixed : (link.logLevel() ?? 'debug');
    if (logPasses(message, threshold)) link.notify('notifications/message', message);
  };
}

/** A tools/call, ready for the gateway's pipeline. */
export function frontCall(incoming: Incoming): FrontCall {
  const { params, session, signal, link } = incoming;
  const token = progressTokenOf(params);
  const progress = token === undefined ? undefined : progressChannel(token, signal, link);
  return {
    params,
    session,
    signal,
    progress: progress?.relay,
    keepAlive: progress?.keepAlive,
    relay: relayOf(link, session),
    log: logOf(incoming),
    logLevel: logLevelOf(incoming),
  };
}

/**
 * The progress notifications of one call, as MCP wants them: each `progress` greater than
 * the one before. The server's own notifications pass as they are, except a value that does
 * not increase (the server's first after the gateway said it was waiting, or a server
 * repeating itself), which is raised just above the last one sent. `keepAlive` says the call
 * is still waiting (an approval, a rate limit, a server that says nothing) with a value just
 * above the last, so a client that restarts its timeout on progress keeps waiting.
 */
function progressChannel(
  token: unknown,
  signal: AbortSignal,
  link: ClientLink,
): { relay: (update: JsonObject) => void; keepAlive: (message: string) => void } {
  let last: number | undefined;
  const send = (update: JsonObject): void => {
    if (signal.aborted) return;
    const value = update['progress'];
    let sent = update;
    if (typeof value === 'number' && Number.isFinite(value)) {
      if (last !== undefined && !(value > last)) sent = { ...update, progress: justAbove(last) };
      last = sent['progress'] as number;
    }
    link.notify('notifications/progress', { ...sent, progressToken: token });
  };
  return {
    relay: send,
    keepAlive: (message) => send({ progress: last === undefined ? 0 : justAbove(last), message }),
  };
}

/** The next value a client sees as greater, without changing what a progress bar shows. */
function justAbove(value: number): number {
  const step = Math.max(Math.abs(value) * 2 ** -40, 2 ** -40);
  return value + step;
}

/**
 * Runs a tools/call through the gateway. A 2026 client's `input_required` result is checked
 * against the capabilities the client declared: asking it for what it cannot give is the
 * `-32021` error (MissingRequiredClientCapability) the 2026 protocol prescribes.
 */
export function callTool(backend: FrontBackend, incoming: Incoming): Promise<JsonObject> {
  const called = backend.callTool(frontCall(incoming));
  // Not async: a 2025 client's call is the backend's promise as it is.
  if (incoming.session.era !== 'modern') return called;
  return called.then((result) => {
    assertClientCanAnswer(result, incoming.session);
    return result;
  });
}

/** Runs a request other than tools/call (`run` is the backend's method for it). */
export async function callOther(
  run: (request: FrontRequest) => Promise<JsonObject>,
  incoming: Incoming,
): Promise<JsonObject> {
  const result = await run(frontRequest(incoming));
  if (incoming.session.era === 'modern') assertClientCanAnswer(result, incoming.session);
  return result;
}

function assertClientCanAnswer(result: JsonObject, session: SessionInfo): void {
  if (result['resultType'] !== 'input_required') return;
  const requests = result['inputRequests'];
  if (!isJsonObject(requests)) return;
  const declared = session.clientCapabilities ?? {};
  for (const [key, entry] of Object.entries(requests)) {
    if (!isJsonObject(entry) || typeof entry['method'] !== 'string') continue;
    const missing = missingFor(entry['method'], entry['params'], declared);
    if (missing !== undefined) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: missing },
        `Cannot request input '${key}' (${entry['method']}): the request's client capabilities do not declare the required capability`,
      );
    }
  }
}

/** The capabilities an input request needs that `declared` lacks, or undefined. */
function missingFor(method: string, params: unknown, declared: JsonObject): JsonObject | undefined {
  const capability = RELAYED_CAPABILITY[method];
  if (capability === undefined) return undefined;
  const have = declared[capability];
  if (!isJsonObject(have)) {
    if (method === 'elicitation/create') return { elicitation: { [elicitationMode(params)]: {} } };
    return { [capability]: {} };
  }
  if (method === 'elicitation/create') {
    const mode = elicitationMode(params);
    // A bare `elicitation: {}` is the 2025 meaning: form mode.
    const bare = Object.keys(have).length === 0;
    if (mode === 'url' ? !isJsonObject(have['url']) : !bare && !isJsonObject(have['form']))
      return { elicitation: { [mode]: {} } };
  }
  return undefined;
}

function elicitationMode(params: unknown): 'url' | 'form' {
  return isJsonObject(params) && params['mode'] === 'url' ? 'url' : 'form';
}

/**
 * The session of a 2026 request, from its envelope; undefined unless it claims the revision
 * hintgate serves and declares its capabilities.
 */
export function modernSession(
  params: JsonObject | undefined,
  front: FrontKind,
  id: string,
  principal: string | undefined,
): SessionInfo | undefined {
  const capabilities = envelopeCapabilities(params);
  if (envelopeVersion(params) !== MODERN_PROTOCOL_VERSION || capabilities === undefined)
    return undefined;
  const info = (params?.['_meta'] as JsonObject)[CLIENT_INFO_META_KEY];
  return {
    id,
    front,
    era: 'modern',
    protocolVersion: MODERN_PROTOCOL_VERSION,
    clientInfo: isJsonObject(info) ? info : undefined,
    clientCapabilities: capabilities,
    principal,
  };
}

/** What a 2025 client said at `initialize`, as a session. */
export interface LegacyHandshake {
  readonly protocolVersion: string | undefined;
  readonly clientInfo: JsonObject | undefined;
  readonly clientCapabilities: JsonObject | undefined;
}

/** The session of a 2025 connection or HTTP session. */
export function legacySession(
  handshake: LegacyHandshake,
  front: FrontKind,
  id: string,
  principal: string | undefined,
): SessionInfo {
  return {
    id,
    front,
    era: 'legacy',
    protocolVersion: handshake.protocolVersion,
    clientInfo: handshake.clientInfo,
    clientCapabilities: handshake.clientCapabilities,
    principal,
  };
}

/**
 * The params with the retry fields of a 2026 request (`inputResponses`, `requestState`)
 * that the SDK parsed out of them put back, so every request kind keeps them.
 */
export function withRetryFields(
  params: unknown,
  inputResponses: unknown,
  requestState: string | undefined,
): JsonObject {
  const copy: JsonObject = isJsonObject(params) ? { ...params } : {};
  if (inputResponses !== undefined) copy['inputResponses'] = inputResponses;
  if (requestState !== undefined) copy['requestState'] = requestState;
  return copy;
}

/**
 * First-round results a fast path already has, for the front server it hands their requests
 * to: a 2025 client's call that ended in `input_required` needs the SDK's shim (real
 * elicitation requests, then the next rounds). The server's handler takes the result once,
 * by the request's id, instead of calling the tool a second time; only for the same tool and
 * arguments, so that a later request reusing the id is never answered with it.
 */
export class HandedOver {
  private readonly results = new Map<RpcId, { params: JsonObject; result: JsonObject }>();

  put(id: RpcId, params: JsonObject, result: JsonObject): void {
    this.results.set(id, { params, result });
  }

  /** The result handed over with request `id` if it had these params; forgotten either way. */
  take(id: RpcId, params: JsonObject): JsonObject | undefined {
    if (this.results.size === 0) return undefined;
    const entry = this.results.get(id);
    if (entry === undefined) return undefined;
    this.results.delete(id);
    const same =
      entry.params['name'] === params['name'] &&
      isDeepStrictEqual(entry.params['arguments'] ?? {}, params['arguments'] ?? {});
    return same ? entry.result : undefined;
  }

  /** Forgets request `id`'s result (the request was answered without its handler). */
  drop(id: RpcId): void {
    if (this.results.size > 0) this.results.delete(id);
  }

  /**
   * Forgets the result of the request `message` answers, when it is a response going out: a
   * request the SDK answered without running the handler that takes it (its checks refused
   * it) must not leave it for a later request reusing the id.
   */
  answered(message: RpcMessage): void {
    if ('id' in message && !('method' in message) && message.id !== null) this.drop(message.id);
  }
}

/**
 * AbortControllers for reuse: the first listener on a fresh AbortSignal costs several
 * microseconds, a noticeable share of a fast-path call. A controller goes back only as good
 * as new: never aborted, no listener left on its signal.
 */
export class ControllerPool {
  private readonly free: AbortController[] = [];

  constructor(private readonly size = 256) {}

  acquire(): AbortController {
    return this.free.pop() ?? new AbortController();
  }

  release(controller: AbortController): void {
    if (controller.signal.aborted || this.free.length >= this.size) return;
    if (getEventListeners(controller.signal, 'abort').length === 0) this.free.push(controller);
  }
}

/** True when a 2025 client calls a tool of a 2026 server (its input requests need the SDK shim). */
export function needsShim(backend: FrontBackend, session: SessionInfo, name: string): boolean {
  return session.era === 'legacy' && backend.eraOfTool(name) === 'modern';
}
