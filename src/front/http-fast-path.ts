import type { Server } from '@modelcontextprotocol/server';
import { isJsonContentType } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { envelopeVersion } from '../mcp/era.js';
import type { DynamicMethod } from '../mcp/dynamic-wire.js';
import { TOOLS_ANNOTATIONS_METHOD, TOOLS_RESOLVE_METHOD } from '../mcp/dynamic-wire.js';
import type { JsonObject, RpcId } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import { toJsonRpcError } from '../mcp/rpc-errors.js';
import { errorLine, httpStatusOf, resultLine } from './answers.js';
import type { DynamicReply, FrontBackend } from './backend.js';
import type { ClientLink } from './call.js';
import {
  ControllerPool,
  callTool,
  legacySession,
  modernSession,
  needsShim,
  progressTokenOf,
} from './call.js';
import type { SessionEventStore } from './event-store.js';
import type { SessionInfo } from './session.js';

const LOOSE = z.looseObject({});

/** A 2025 session as the fast path sees it. */
export interface FastSession {
  readonly id: string;
  readonly server: Server;
  /** Where its streams' events are kept for resumption. */
  readonly events: SessionEventStore;
  /** The level its client set with `logging/setLevel`, if it did. */
  readonly logLevel: () => string | undefined;
  /**
   * Hands a tools/call whose first round ended in `input_required` to the session's front
   * server, with that result (see `HandedOver` in `call.ts`): its shim asks the client and
   * makes the next rounds. `body` is the request's JSON, already read.
   */
  readonly handOver: (
    request: Request,
    body: JsonObject,
    id: RpcId,
    params: JsonObject,
    result: JsonObject,
  ) => Promise<Response>;
}

/**
 * The Node response a request arrived with (`@hono/node-server` passes it): its `close`
 * before the answer was written says the client went away. Watching it costs far less than
 * the request's `signal`, which that server makes (an AbortController and an event target
 * listener) only when it is asked for.
 */
export interface NodeResponse {
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
}

/**
 * The fast path of the HTTP front: a tools/call POST (of an initialized 2025 session, or a
 * 2026 request whose headers agree with its body) runs the gateway pipeline directly and is
 * answered as JSON, or as an SSE stream when the client asked for progress or (a 2025
 * session whose client takes either) when a log message of the call comes before its
 * result, without the
 * SDK's transport and server machinery; `tools/annotations` and `tools/resolve` are answered
 * from the gateway's resolvers the same way. Anything else, and anything doubtful (a header
 * the SDK would reject, a 2025 client asking a 2026 server's tool for progress), is left to
 * the SDK, which answers it exactly as before. A 2025 client's call of a 2026 server's tool
 * that ends in `input_required` is handed to the session's front server with that result,
 * whose shim asks the client. A 2025 client's `notifications/cancelled` for a fast-path
 * request is taken here too.
 */
export class HttpFastPath {
  private readonly inflight = new Map<string, AbortController>();
  private readonly pool = new ControllerPool();
  private readonly serverInfo: JsonObject;
  /** Per 2025 session, its client as seen from a call without a stream of its own. */
  private readonly links = new WeakMap<Server, ClientLink>();
  /**
   * Per 2025 session, the session info of its last fast call: the same object while the
   * handshake and the principal are the same, so what is derived from it per session object
   * (the cache's caller key, the caller of the server's messages) is made once.
   */
  private readonly sessions = new WeakMap<Server, SessionInfo>();
  private streams = 0;

  constructor(private readonly backend: FrontBackend) {
    this.serverInfo = { ...backend.serverInfo };
  }

  /** The response for a POST the fast path takes, or undefined to leave it to the SDK. */
  take(
    request: Request,
    body: unknown,
    session: FastSession | undefined,
    principal: string | undefined,
    response?: NodeResponse,
  ): Response | Promise<Response> | undefined {
    if (!isJsonObject(body) || !acceptsJson(request)) return undefined;
    const method = body['method'];
    const params = isJsonObject(body['params']) ? body['params'] : undefined;
    if (method === 'notifications/cancelled' && session !== undefined)
      return this.cancel(session, params);
    const id = body['id'];
    if (params === undefined || (typeof id !== 'string' && typeof id !== 'number'))
      return undefined;
    const name = params['name'];
    if (method === TOOLS_ANNOTATIONS_METHOD || method === TOOLS_RESOLVE_METHOD) {
      const info = this.sessionOf(request, params, session, principal, method, name);
      return info === undefined
        ? undefined
        : this.resolve(request, response, id, method, params, info, session);
    }
    if (method !== 'tools/call' || typeof name !== 'string') return undefined;
    const info = this.sessionOf(request, params, session, principal, method, name);
    if (info === undefined) return undefined;
    const token = progressTokenOf(params);
    if (token !== undefined && !acceptsEventStream(request)) return undefined;
    if (!needsShim(this.backend, info, name))
      return this.call(request, response, id, params, info, session, token);
    // A 2025 client calling a 2026 server's tool: only an `input_required` result needs the
    // SDK's shim, which answers on an SSE stream of its own from the start. So the fast path
    // takes the call when that handover stays possible: a session (2025), no progress asked
    // for (an answer that streams from the start), and a client that takes SSE (else the
    // SDK refuses the request it is handed).
    if (session === undefined || token !== undefined || !acceptsEventStream(request))
      return undefined;
    const handOver = (result: JsonObject) => session.handOver(request, body, id, params, result);
    return this.call(request, response, id, params, info, session, token, handOver);
  }

  /**
   * The session of a request the fast path may take. A 2026 request's standard headers must
   * repeat its body exactly: `Mcp-Method` always, `Mcp-Name` for tools/call (the SDK checks
   * it only there; for the other methods it may be absent, or must match).
   */
  private sessionOf(
    request: Request,
    params: JsonObject,
    session: FastSession | undefined,
    principal: string | undefined,
    method: 'tools/call' | DynamicMethod,
    name: unknown,
  ): SessionInfo | undefined {
    const version = request.headers.get('mcp-protocol-version');
    if (session !== undefined) {
      if (envelopeVersion(params) !== undefined) return undefined;
      const info = this.legacyInfo(session, principal);
      if (
        info.protocolVersion === undefined ||
        (version !== null && version !== info.protocolVersion)
      )
        return undefined;
      return info;
    }
    // 2026: the SDK checks that the standard headers repeat the body; only exact agreement is fast.
    const info = modernSession(params, 'http', 'http', principal);
    if (info === undefined || version !== info.protocolVersion) return undefined;
    if (request.headers.get('mcp-method') !== method) return undefined;
    const header = request.headers.get('mcp-name');
    if (header !== name && (method === 'tools/call' || header !== null)) return undefined;
    return info;
  }

  /** The session info of a 2025 session's request, reused while nothing in it changed. */
  private legacyInfo(session: FastSession, principal: string | undefined): SessionInfo {
    const { server } = session;
    const protocolVersion = server.getNegotiatedProtocolVersion();
    const clientInfo = server.getClientVersion();
    const clientCapabilities = server.getClientCapabilities();
    const known = this.sessions.get(server);
    if (
      known !== undefined &&
      known.id === session.id &&
      known.principal === principal &&
      known.protocolVersion === protocolVersion &&
      known.clientInfo === clientInfo &&
      known.clientCapabilities === clientCapabilities
    )
      return known;
    const info = legacySession(
      { protocolVersion, clientInfo, clientCapabilities },
      'http',
      session.id,
      principal,
    );
    this.sessions.set(server, info);
    return info;
  }

  /**
   * `tools/annotations` or `tools/resolve`, answered as the front server's handler answers
   * it, as JSON. The SDK sends a 2026 client's -32021 (the extension not negotiated) with
   * HTTP 400, as it does every in-band capability error; every other answer is a 200.
   */
  private async resolve(
    request: Request,
    response: NodeResponse | undefined,
    id: RpcId,
    method: DynamicMethod,
    params: JsonObject,
    session: SessionInfo,
    fastSession: FastSession | undefined,
  ): Promise<Response> {
    const { controller, release } = this.track(request, response, id, fastSession);
    let reply: DynamicReply;
    try {
      await this.backend.ready();
      reply = await this.backend.resolveAnnotations({
        method,
        params,
        session,
        signal: controller.signal,
      });
    } catch (error) {
      return errorResponseOf(id, error, session);
    } finally {
      release();
    }
    if (reply.ok)
      return jsonResponse(resultLine(id, reply.result, session, this.serverInfo), 200, session);
    return jsonResponse(errorLine(id, reply.error), httpStatusOf(reply.error, session), session);
  }

  private call(
    request: Request,
    response: NodeResponse | undefined,
    id: RpcId,
    params: JsonObject,
    session: SessionInfo,
    fastSession: FastSession | undefined,
    token: unknown,
    handOver?: (result: JsonObject) => Promise<Response>,
  ): Response | Promise<Response> {
    const { controller, release } = this.track(request, response, id, fastSession);
    const headers: Record<string, string> = {};
    if (fastSession !== undefined) headers['mcp-session-id'] = fastSession.id;
    // Progress asked for: the answer is an SSE stream carrying the notifications, then the
    // response. A 2025 session's call whose client takes either: JSON, unless a notification
    // (a log message) comes first, which starts an SSE stream, as the SDK sends them (held
    // until the result when the call may be handed over: its stream is then the SDK's). Else
    // JSON, and a 2025 session's log messages go to its GET stream.
    const answer =
      token !== undefined || (fastSession !== undefined && acceptsEventStream(request))
        ? new CallAnswer(
            this.sessionLink(fastSession),
            fastSession?.events,
            `fast-${++this.streams}`,
            headers,
            handOver !== undefined,
          )
        : undefined;
    if (token !== undefined) answer?.startStream();
    const link = answer ?? this.sessionLink(fastSession);
    const { signal } = controller;
    const finished = callTool(this.backend, { params, session, signal, link })
      .then(
        (result): FastAnswer =>
          handOver !== undefined && result['resultType'] === 'input_required'
            ? { handed: result }
            : { line: resultLine(id, result, session, this.serverInfo), status: 200 },
        (error: unknown): FastAnswer => {
          const rpc = toJsonRpcError(error);
          return { line: errorLine(id, rpc), status: httpStatusOf(rpc, session) };
        },
      )
      // Read before `release` puts the controller back: a client that went away during the
      // first round is not handed the next ones.
      .then((done) => ('handed' in done && signal.aborted ? goneAnswer(id) : done))
      .finally(release);
    if (answer === undefined) {
      return finished.then((done) =>
        jsonAnswer((done as Answered).line, (done as Answered).status, headers),
      );
    }
    void finished.then((done) => {
      if ('handed' in done) answer.handOver(handOver!(done.handed), id);
      else answer.finish(done.line, done.status);
    });
    return answer.response;
  }

  /**
   * A 2025 session's client outside any stream of a request: requests and notifications go
   * through its front instance (on its GET stream); a 2026 client has no such channel.
   */
  private sessionLink(fastSession: FastSession | undefined): ClientLink {
    if (fastSession === undefined) return NO_CHANNEL;
    let link = this.links.get(fastSession.server);
    if (link === undefined) {
      const { server } = fastSession;
      link = {
        notify: (method, params) => {
          void server.notification({ method, params }).catch(() => undefined);
        },
        request: (request, signal) =>
          server.request({ method: request.method, params: request.params }, LOOSE, {
            signal,
            timeout: 600_000,
          }),
        logLevel: fastSession.logLevel,
      };
      this.links.set(fastSession.server, link);
    }
    return link;
  }

  /**
   * A pooled controller for one request: aborted when the client closes the request (the
   * Node response closing before its answer was written, else the request's signal), and
   * (in a 2025 session) by `notifications/cancelled` naming its id. `release` undoes both.
   */
  private track(
    request: Request,
    response: NodeResponse | undefined,
    id: RpcId,
    fastSession: FastSession | undefined,
  ): { controller: AbortController; release: () => void } {
    const controller = this.pool.acquire();
    const key =
      fastSession === undefined ? undefined : `${fastSession.id}\u0000${JSON.stringify(id)}`;
    if (key !== undefined) this.inflight.set(key, controller);
    const onClose = () => controller.abort(new Error('the client closed the request'));
    let unwatch: () => void;
    if (response === undefined) {
      request.signal.addEventListener('abort', onClose, { once: true });
      unwatch = () => request.signal.removeEventListener('abort', onClose);
    } else {
      const closed = () => {
        if (!response.writableFinished) onClose();
      };
      response.once('close', closed);
      unwatch = () => response.off('close', closed);
    }
    return {
      controller,
      release: () => {
        unwatch();
        if (key !== undefined && this.inflight.get(key) === controller) this.inflight.delete(key);
        this.pool.release(controller);
      },
    };
  }

  private cancel(session: FastSession, params: JsonObject | undefined): Response | undefined {
    const requestId = params?.['requestId'];
    const controller = this.inflight.get(`${session.id}\u0000${JSON.stringify(requestId)}`);
    if (controller === undefined) return undefined;
    controller.abort(
      new Error(
        typeof params?.['reason'] === 'string' ? params['reason'] : 'cancelled by the client',
      ),
    );
    return new Response(null, { status: 202 });
  }
}

/** A fast-path call's answer: a JSON-RPC line, or its first round's result to hand over. */
type FastAnswer = Answered | { readonly handed: JsonObject };
interface Answered {
  readonly line: string;
  readonly status: number;
}

/** The answer to a client that went away during a call's first round: never read. */
function goneAnswer(id: RpcId): Answered {
  const error = { code: -32800, message: 'Request cancelled: the client went away' };
  return { line: errorLine(id, error), status: 200 };
}

/** A client with no channel outside its requests (a 2026 client answered with JSON). */
const NO_CHANNEL: ClientLink = {
  notify: () => undefined,
  request: undefined,
  logLevel: () => undefined,
};

const ENCODER = new TextEncoder();

/**
 * The answer of one fast-path call that may be an SSE stream, and its client as the call
 * sees it: notifications go on the stream (started by the first one, or at once with
 * {@link startStream}), then the response; with no notification before the result, the
 * answer is JSON. Requests to the client go through the session's link (its GET stream).
 * A notification after the result is dropped.
 */
class CallAnswer implements ClientLink {
  readonly response: Promise<Response>;
  readonly request: ClientLink['request'];
  private answered!: (response: Response) => void;
  private stream: SseStream | undefined;
  private done = false;
  /** Notifications kept until the result, when `hold` (the call may be handed over). */
  private held: JsonObject[] | undefined;

  constructor(
    private readonly session: ClientLink,
    private readonly events: SessionEventStore | undefined,
    private readonly streamId: string,
    private readonly headers: Readonly<Record<string, string>>,
    hold = false,
  ) {
    this.response = new Promise((resolve) => (this.answered = resolve));
    this.request = session.request;
    if (hold) this.held = [];
  }

  notify(method: string, params: JsonObject): void {
    if (this.done) return;
    const message = { jsonrpc: '2.0', method, params };
    if (this.held !== undefined) this.held.push(message);
    else this.startStream().send(message);
  }

  /**
   * The answer is the SDK's, to which the call was handed over: the notifications held come
   * first on its stream (without event ids: the SDK's own events are the ones a client
   * resumes from), or on the session's GET stream when the SDK answered without a stream.
   */
  handOver(answer: Promise<Response>, id: RpcId): void {
    this.done = true;
    const held = this.held ?? [];
    this.held = undefined;
    void answer.then(
      (response) => {
        const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
        if (held.length === 0 || response.body === null || !sse) {
          for (const message of held)
            this.session.notify(message['method'] as string, message['params'] as JsonObject);
          this.answered(response);
          return;
        }
        const first = ENCODER.encode(
          held.map((message) => sseEvent(JSON.stringify(message))).join(''),
        );
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        const joined = new ReadableStream<Uint8Array>({
          start: (sink) => sink.enqueue(first),
          pull: async (sink) => {
            const { done, value } = await reader.read();
            if (done) sink.close();
            else sink.enqueue(value);
          },
          cancel: (reason) => reader.cancel(reason),
        });
        this.answered(new Response(joined, { status: response.status, headers: response.headers }));
      },
      (error: unknown) => {
        this.answered(jsonAnswer(errorLine(id, toJsonRpcError(error)), 500, this.headers));
      },
    );
  }

  logLevel(): string | undefined {
    return this.session.logLevel();
  }

  /** The answer as an SSE stream from now on. */
  startStream(): SseStream {
    if (this.stream === undefined) {
      this.stream = new SseStream(this.events, this.streamId);
      this.answered(
        new Response(this.stream.readable, {
          status: 200,
          headers: {
            ...this.headers,
            'content-type': 'text/event-stream',
            'cache-control': 'no-cache',
          },
        }),
      );
    }
    return this.stream;
  }

  /** Sends the response: the stream's last event, or the JSON answer (with `status`). */
  finish(line: string, status: number): void {
    this.done = true;
    const held = this.held;
    this.held = undefined;
    if (held !== undefined && held.length > 0) {
      const stream = this.startStream();
      for (const message of held) stream.send(message);
    }
    if (this.stream !== undefined) this.stream.finish(line);
    else this.answered(jsonAnswer(line, status, this.headers));
  }
}

/**
 * The SSE answer of one request: its notifications, then its response. Every event is kept
 * in the session's event store when there is one (ids let the client resume with
 * `Last-Event-ID`); writes after the client went away or after the end are dropped, never
 * thrown (a closed stream must not take the gateway down).
 */
class SseStream {
  readonly readable: ReadableStream<Uint8Array>;
  private sink: ReadableStreamDefaultController<Uint8Array> | undefined;
  private open = true;

  constructor(
    private readonly events: SessionEventStore | undefined,
    private readonly streamId: string,
  ) {
    this.readable = new ReadableStream<Uint8Array>({
      start: (sink) => {
        this.sink = sink;
      },
      cancel: () => {
        this.open = false;
      },
    });
  }

  /** Sends the response and ends the stream. */
  finish(line: string): void {
    this.write(line, JSON.parse(line) as JsonObject);
    this.open = false;
    try {
      this.sink?.close();
    } catch {
      // The client already went away.
    }
  }

  send(message: JsonObject): void {
    this.write(JSON.stringify(message), message);
  }

  private write(line: string, message: JsonObject): void {
    const id = this.events?.store(this.streamId, message as never);
    if (!this.open || this.sink === undefined) return;
    try {
      this.sink.enqueue(ENCODER.encode(sseEvent(line, id)));
    } catch {
      this.open = false;
    }
  }
}

/** An error answer for what a request threw. */
function errorResponseOf(id: RpcId, error: unknown, session: SessionInfo): Response {
  const rpc = toJsonRpcError(error);
  return jsonResponse(errorLine(id, rpc), httpStatusOf(rpc, session), session);
}

/** A JSON-RPC response as JSON, with the session id of a 2025 session. */
function jsonResponse(line: string, status: number, session: SessionInfo): Response {
  return jsonAnswer(line, status, session.era === 'legacy' ? { 'mcp-session-id': session.id } : {});
}

/** A JSON-RPC line as a JSON answer, with `headers` (the session id of a 2025 session). */
function jsonAnswer(
  line: string,
  status: number,
  headers: Readonly<Record<string, string>>,
): Response {
  return new Response(line, {
    status,
    headers: { ...headers, 'content-type': 'application/json' },
  });
}

/** One SSE event carrying a JSON-RPC line, with its id in the session's event store if kept. */
function sseEvent(line: string, id?: string): string {
  return id === undefined
    ? `event: message\ndata: ${line}\n\n`
    : `id: ${id}\nevent: message\ndata: ${line}\n\n`;
}

/** Whether the SDK would take the request's headers: it answers JSON, and sends JSON (exactly). */
function acceptsJson(request: Request): boolean {
  return (
    (request.headers.get('accept') ?? '').includes('application/json') &&
    isJsonContentType(request.headers.get('content-type'))
  );
}

function acceptsEventStream(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('text/event-stream');
}
