import type { Server } from '@modelcontextprotocol/server';
import { envelopeVersion } from '../mcp/era.js';
import {
  ControllerPool,
  failureLine,
  legacySession,
  modernSession,
  needsShim,
  progressLine,
  progressTokenOf,
  relayThrough,
  resultLine,
} from '../mcp/fast-call.js';
import type { FrontBackend } from '../mcp/front-backend.js';
import type { JsonObject, RpcId } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import type { SessionInfo } from '../mcp/session.js';

/** A 2025 session as the fast path sees it. */
export interface FastSession {
  readonly id: string;
  readonly server: Server;
}

const ENCODER = new TextEncoder();

/**
 * The fast path of the HTTP front: a tools/call POST (of an initialized 2025 session, or a
 * 2026 request whose headers agree with its body) runs the gateway pipeline directly and is
 * answered as JSON, or as an SSE stream when the client asked for progress, without the
 * SDK's transport and server machinery. Anything else, and anything doubtful (a header the
 * SDK would reject, a 2025 client calling a 2026 server), is left to the SDK, which answers
 * it exactly as before. A 2025 client's `notifications/cancelled` for a fast-path call is
 * taken here too.
 */
export class HttpFastPath {
  private readonly inflight = new Map<string, AbortController>();
  private readonly pool = new ControllerPool();
  private readonly serverInfo: JsonObject;
  private readonly relays = new WeakMap<Server, ReturnType<typeof relayThrough>>();

  constructor(private readonly backend: FrontBackend) {
    this.serverInfo = { ...backend.serverInfo };
  }

  /** The response for a POST the fast path takes, or undefined to leave it to the SDK. */
  take(
    request: Request,
    body: unknown,
    session: FastSession | undefined,
    principal: string | undefined,
  ): Response | Promise<Response> | undefined {
    if (!isJsonObject(body) || !acceptsJson(request)) return undefined;
    const method = body['method'];
    const params = isJsonObject(body['params']) ? body['params'] : undefined;
    if (method === 'notifications/cancelled' && session !== undefined)
      return this.cancel(session, params);
    const id = body['id'];
    if (
      method !== 'tools/call' ||
      params === undefined ||
      (typeof id !== 'string' && typeof id !== 'number')
    )
      return undefined;
    const name = params['name'];
    if (typeof name !== 'string') return undefined;
    const info = this.sessionOf(request, params, session, principal, name);
    if (info === undefined || needsShim(this.backend, info, name)) return undefined;
    const token = progressTokenOf(params);
    if (token !== undefined && !acceptsEventStream(request)) return undefined;
    return this.call(request, id, params, info, session, token);
  }

  private sessionOf(
    request: Request,
    params: JsonObject,
    session: FastSession | undefined,
    principal: string | undefined,
    name: string,
  ): SessionInfo | undefined {
    const version = request.headers.get('mcp-protocol-version');
    if (session !== undefined) {
      if (envelopeVersion(params) !== undefined) return undefined;
      const info = legacySession(session.server, 'http', session.id, principal);
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
    if (
      request.headers.get('mcp-method') !== 'tools/call' ||
      request.headers.get('mcp-name') !== name
    )
      return undefined;
    return info;
  }

  private call(
    request: Request,
    id: RpcId,
    params: JsonObject,
    session: SessionInfo,
    fastSession: FastSession | undefined,
    token: unknown,
  ): Response | Promise<Response> {
    const controller = this.pool.acquire();
    const key =
      fastSession === undefined ? undefined : `${fastSession.id}\u0000${JSON.stringify(id)}`;
    if (key !== undefined) this.inflight.set(key, controller);
    const onClose = () => controller.abort(new Error('the client closed the request'));
    request.signal.addEventListener('abort', onClose, { once: true });
    const headers: Record<string, string> = {};
    if (fastSession !== undefined) headers['mcp-session-id'] = fastSession.id;
    let emit: ((line: string) => void) | undefined;
    const finished = this.backend
      .callTool({
        params,
        session,
        signal: controller.signal,
        progress: token === undefined ? undefined : (update) => emit?.(progressLine(token, update)),
        relay: fastSession === undefined ? undefined : this.relay(fastSession.server),
      })
      .then(
        (result) => resultLine(id, result, session, this.serverInfo),
        (error: unknown) => failureLine(id, error),
      )
      .finally(() => {
        request.signal.removeEventListener('abort', onClose);
        if (key !== undefined && this.inflight.get(key) === controller) this.inflight.delete(key);
        this.pool.release(controller);
      });
    if (token === undefined) {
      return finished.then(
        (line) =>
          new Response(line, {
            status: 200,
            headers: { ...headers, 'content-type': 'application/json' },
          }),
      );
    }
    // Progress asked for: an SSE stream carrying the notifications, then the response.
    const stream = new ReadableStream<Uint8Array>({
      start(sink) {
        emit = (line) => sink.enqueue(ENCODER.encode(`event: message\ndata: ${line}\n\n`));
        void finished.then((line) => {
          if (!controller.signal.aborted) emit?.(line);
          emit = undefined;
          sink.close();
        });
      },
    });
    return new Response(stream, {
      status: 200,
      headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    });
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

  private relay(server: Server): ReturnType<typeof relayThrough> {
    let relay = this.relays.get(server);
    if (relay === undefined) {
      relay = relayThrough(server);
      this.relays.set(server, relay);
    }
    return relay;
  }
}

function acceptsJson(request: Request): boolean {
  return (
    (request.headers.get('accept') ?? '').includes('application/json') &&
    (request.headers.get('content-type') ?? '').includes('application/json')
  );
}

function acceptsEventStream(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('text/event-stream');
}
