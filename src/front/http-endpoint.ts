import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage, RequestId, Server } from '@modelcontextprotocol/server';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import type { RpcMessage, RpcResponse } from '../mcp/json-rpc.js';
import {
  beforeInitializeAnswer,
  checkMessage,
  parseErrorAnswer,
  tooLargeAnswer,
} from './answers.js';
import type { FrontBackend } from './backend.js';
import { HandedOver } from './call.js';
import { SessionEventStore } from './event-store.js';
import type { FrontHub } from './hub.js';
import type { FastSession, NodeResponse } from './http-fast-path.js';
import { HttpFastPath } from './http-fast-path.js';
import { createFrontServer } from './sdk-server.js';

/** Bounds of the HTTP front; see the config's `http` section. */
export interface McpEndpointLimits {
  /** The largest request body accepted (bytes). */
  readonly maxBodyBytes: number;
  /** A 2025 session unused this long is closed (ms). */
  readonly sessionIdleMs: number;
  /** Live 2025 sessions per principal; opening one more closes that principal's least recently used. */
  readonly maxSessionsPerPrincipal: number;
}

export const DEFAULT_ENDPOINT_LIMITS: McpEndpointLimits = {
  maxBodyBytes: 4 * 1024 * 1024,
  sessionIdleMs: 30 * 60_000,
  maxSessionsPerPrincipal: 64,
};

/** Options of {@link createMcpEndpoint}. */
export interface McpEndpointOptions {
  readonly backend: FrontBackend;
  readonly hub: FrontHub;
  readonly onerror?: (error: Error) => void;
  /** Answer tools/call without the SDK's request machinery when possible. Default true. */
  readonly fastPath?: boolean;
  readonly limits?: Partial<McpEndpointLimits>;
  /** Clock, injectable for tests. */
  readonly now?: () => number;
}

/** The `/mcp` endpoint: a fetch handler for both eras. */
export interface McpEndpoint {
  /**
   * Serves one request; `principal` names the authenticated client, `response` is the Node
   * response the request arrived with, when there is one (it tells sooner and at less cost
   * than the request's signal that the client went away).
   */
  fetch(
    request: Request,
    principal: string | undefined,
    response?: NodeResponse,
  ): Promise<Response>;
  /** Live 2025 sessions. */
  readonly sessionCount: number;
  /** Closes the 2025 sessions idle past the limit (also done on a timer). */
  expireIdle(): Promise<number>;
  /** Ends every session. */
  close(): Promise<void>;
}

interface LegacySession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  readonly events: SessionEventStore;
  /** The session as the fast path sees it. */
  readonly fast: FastSession;
  readonly principal: string;
  lastUsed: number;
}

/** How often idle sessions are looked for. */
const SWEEP_EVERY_MS = 60_000;
/** The `retry` (ms) SSE streams announce to clients that reconnect. */
const SSE_RETRY_MS = 1_000;

/**
 * Streamable HTTP for clients of both eras at one URL. 2026 requests (those carrying the
 * per-request envelope) go to the SDK's stateless `createMcpHandler`, one front instance per
 * request, change notifications on `subscriptions/listen` streams. 2025 clients get real
 * sessions (`Mcp-Session-Id`, a GET stream for list_changed and server-to-client requests,
 * event ids and a store to resume streams with `Last-Event-ID`), one SDK transport and
 * front instance per session; sessions expire when idle and are bounded per principal.
 * Bodies are bounded; malformed ones and a 2025 request before `initialize` are answered
 * here with the protocol-level answers of `answers.ts`.
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { backend, hub } = options;
  const limits = { ...DEFAULT_ENDPOINT_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  const sessions = new Map<string, LegacySession>();
  const onerror = options.onerror ?? (() => undefined);
  const fast = options.fastPath === false ? undefined : new HttpFastPath(backend);
  const modern = createMcpHandler(
    async ({ authInfo }) => {
      await backend.ready();
      return createFrontServer(backend, {
        era: 'modern',
        front: 'http',
        connectionId: 'http',
        principal: authInfo?.clientId,
        hub,
        track: false,
      });
    },
    { legacy: 'reject', onerror },
  );
  hub.addPublisher(modern);

  const closeSession = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    await session.transport.close().catch(() => undefined);
  };

  /** Makes room for one more session of `principal`. */
  const bound = async (principal: string): Promise<void> => {
    const mine = [...sessions.entries()].filter(([, session]) => session.principal === principal);
    if (mine.length < limits.maxSessionsPerPrincipal) return;
    mine.sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    const excess = mine.length - limits.maxSessionsPerPrincipal + 1;
    await Promise.all(mine.slice(0, excess).map(([id]) => closeSession(id)));
  };

  const expireIdle = async (): Promise<number> => {
    const cutoff = now() - limits.sessionIdleMs;
    const idle = [...sessions.entries()].filter(([, session]) => session.lastUsed < cutoff);
    await Promise.all(idle.map(([id]) => closeSession(id)));
    return idle.length;
  };
  const sweeper = setInterval(() => void expireIdle(), SWEEP_EVERY_MS);
  sweeper.unref();

  const openSession = async (
    request: Request,
    body: unknown,
    principal: string | undefined,
  ): Promise<Response> => {
    await backend.ready();
    const owner = principal ?? '';
    await bound(owner);
    const events = new SessionEventStore();
    const handedOver = new HandedOver();
    // Declared before the server so that the hub can ask for the session id once known.
    // eslint-disable-next-line prefer-const
    let transport: WebStandardStreamableHTTPServerTransport;
    const server = createFrontServer(backend, {
      era: 'legacy',
      front: 'http',
      connectionId: 'http',
      principal,
      hub,
      sessionId: () => transport.sessionId,
      handedOver,
    });
    transport = new SessionTransport(handedOver, {
      sessionIdGenerator: () => randomUUID(),
      eventStore: events,
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        const fastSession: FastSession = {
          id,
          server,
          events,
          logLevel: () => hub.logLevelOf(server),
          handOver: async (request, body, requestId, params, result) => {
            handedOver.put(requestId, params, result);
            try {
              const answer = await transport.handleRequest(request, { parsedBody: body });
              // Refused before its stream opened (the answer to such a request is not sent
              // through `send`): the result is not left for a later request.
              if (!answer.ok) handedOver.drop(requestId);
              return answer;
            } catch (error) {
              handedOver.drop(requestId);
              throw error;
            }
          },
        };
        sessions.set(id, {
          transport,
          server,
          events,
          fast: fastSession,
          principal: owner,
          lastUsed: now(),
        });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    server.onclose = chain(server.onclose, () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  };

  return {
    get sessionCount() {
      return sessions.size;
    },
    expireIdle,
    async fetch(request, principal, response) {
      const sessionId = request.headers.get('mcp-session-id');
      let body: unknown;
      if (request.method === 'POST') {
        const read = await readBody(request, limits.maxBodyBytes);
        if (!read.ok) return protocolError(read.status, read.answer);
        const checked = checkMessage(read.value);
        if (!checked.ok) return protocolError(400, checked.answer);
        body = checked.message;
      }
      if (sessionId !== null) {
        const session = sessions.get(sessionId);
        if (session === undefined || session.principal !== (principal ?? ''))
          return Response.json(
            { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
            { status: 404 },
          );
        session.lastUsed = now();
        const answered =
          body === undefined
            ? undefined
            : fast?.take(request, body, session.fast, principal, response);
        if (answered !== undefined) return answered;
        return session.transport.handleRequest(
          request,
          body === undefined ? {} : { parsedBody: body },
        );
      }
      // A 2026 tools/call (its envelope checked by the fast path) needs no classification.
      const answered =
        body === undefined ? undefined : fast?.take(request, body, undefined, principal, response);
      if (answered !== undefined) return answered;
      if (request.method === 'POST' && (await isLegacyRequest(request, body))) {
        const message = body as { method?: unknown; id?: unknown };
        if (message.method === 'initialize') return openSession(request, body, principal);
        if (typeof message.method === 'string' && message.id !== undefined) {
          const id =
            typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
          return protocolError(
            400,
            beforeInitializeAnswer(id, message.method, 'send initialize first (no Mcp-Session-Id)'),
          );
        }
      }
      return modern.fetch(request, {
        ...(principal === undefined
          ? {}
          : { authInfo: { token: '', clientId: principal, scopes: [] } }),
        ...(body === undefined ? {} : { parsedBody: body }),
      });
    },
    async close() {
      clearInterval(sweeper);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.transport.close().catch(() => undefined)));
      await modern.close();
    },
  };
}

type BodyRead =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: number; readonly answer: RpcResponse };

/** Decodes a body as `Request.text()` does: UTF-8, a leading byte order mark dropped. */
const DECODER = new TextDecoder();

/**
 * The request's JSON body, read up to `limit` bytes: a larger one is refused (413) without
 * being read whole, whatever its `Content-Length` claims.
 */
async function readBody(request: Request, limit: number): Promise<BodyRead> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > limit) return { ok: false, status: 413, answer: tooLargeAnswer(limit) };
  if (Number.isFinite(declared)) {
    // Node's HTTP parser holds a body to its Content-Length, so it is read whole, by the
    // server's own path from the socket, and decoded from the bytes it arrived in (asking
    // for `request.body` would build a web stream over it, and `arrayBuffer()` copies it).
    return parseBody(await request.text());
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = (request.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, status: 413, answer: tooLargeAnswer(limit) };
      }
      chunks.push(value);
    }
  }
  return parseBody(DECODER.decode(Buffer.concat(chunks)));
}

function parseBody(text: string): BodyRead {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, status: 400, answer: parseErrorAnswer(error) };
  }
}

function protocolError(status: number, answer: RpcResponse): Response {
  return Response.json(answer, { status });
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}

/**
 * A 2025 session's SDK transport that forgets a first round handed over with a request
 * (`HandedOver`) once the response to that request goes out: the SDK may answer a request it
 * was handed (its SSE stream already open) without running the handler that takes the
 * result, e.g. one its checks refuse, and a later request reusing the id must not get it.
 */
class SessionTransport extends WebStandardStreamableHTTPServerTransport {
  constructor(
    private readonly handedOver: HandedOver,
    options: ConstructorParameters<typeof WebStandardStreamableHTTPServerTransport>[0],
  ) {
    super(options);
  }

  override send(
    message: JSONRPCMessage,
    options?: { relatedRequestId?: RequestId },
  ): Promise<void> {
    this.handedOver.answered(message as unknown as RpcMessage);
    return super.send(message, options);
  }
}
