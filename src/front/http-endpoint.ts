import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/server';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import type { FrontBackend } from './backend.js';
import type { FrontHub } from './hub.js';
import { createFrontServer } from './sdk-server.js';
import { RPC_ERROR, invalidMessageReason, isJsonObject } from '../mcp/json-rpc.js';
import { HttpFastPath } from './http-fast-path.js';

/** Options of {@link createMcpEndpoint}. */
export interface McpEndpointOptions {
  readonly backend: FrontBackend;
  readonly hub: FrontHub;
  readonly onerror?: (error: Error) => void;
  /** Answer tools/call without the SDK's request machinery when possible. Default true. */
  readonly fastPath?: boolean;
}

/** The `/mcp` endpoint: a fetch handler for both eras. */
export interface McpEndpoint {
  /** Serves one request; `principal` names the authenticated client. */
  fetch(request: Request, principal: string | undefined): Promise<Response>;
  /** Live 2025 sessions. */
  readonly sessionCount: number;
  /** Ends every session. */
  close(): Promise<void>;
}

interface LegacySession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
}

/**
 * Streamable HTTP for clients of both eras at one URL. 2026 requests (those carrying the
 * per-request envelope) go to the SDK's stateless `createMcpHandler`, one front instance per
 * request, change notifications on `subscriptions/listen` streams. 2025 clients get real
 * sessions (`Mcp-Session-Id`, a GET stream for list_changed and server-to-client requests),
 * one SDK transport and front instance per session. Malformed bodies are answered here
 * (-32700, -32600) and a 2025 request without a session that is not `initialize` gets
 * -32600 naming it.
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { backend, hub } = options;
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

  const openSession = async (
    request: Request,
    body: unknown,
    principal: string | undefined,
  ): Promise<Response> => {
    await backend.ready();
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
    });
    transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
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
    async fetch(request, principal) {
      const sessionId = request.headers.get('mcp-session-id');
      let body: unknown;
      if (request.method === 'POST') {
        try {
          body = await request.json();
        } catch (error) {
          return rpcError(400, RPC_ERROR.parseError, `Parse error: ${(error as Error).message}`);
        }
        const invalid = invalidMessageReason(body);
        if (invalid !== undefined) {
          const id =
            isJsonObject(body) && (typeof body['id'] === 'string' || typeof body['id'] === 'number')
              ? body['id']
              : null;
          return rpcError(400, RPC_ERROR.invalidRequest, `Invalid Request: ${invalid}`, id);
        }
      }
      if (sessionId !== null) {
        const session = sessions.get(sessionId);
        if (session === undefined) return rpcError(404, -32001, 'Session not found');
        const answered =
          body === undefined
            ? undefined
            : fast?.take(request, body, { id: sessionId, server: session.server }, principal);
        if (answered !== undefined) return answered;
        return session.transport.handleRequest(
          request,
          body === undefined ? {} : { parsedBody: body },
        );
      }
      // A 2026 tools/call (its envelope checked by the fast path) needs no classification.
      const answered =
        body === undefined ? undefined : fast?.take(request, body, undefined, principal);
      if (answered !== undefined) return answered;
      if (request.method === 'POST' && (await isLegacyRequest(request, body))) {
        const message = body as { method?: unknown; id?: unknown };
        if (message.method === 'initialize') return openSession(request, body, principal);
        if (typeof message.method === 'string' && message.id !== undefined) {
          const id =
            typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
          return rpcError(
            400,
            RPC_ERROR.invalidRequest,
            `Invalid Request: "${message.method}" before initialize; send initialize first (no Mcp-Session-Id)`,
            id,
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
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.transport.close().catch(() => undefined)));
      await modern.close();
    },
  };
}

function rpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id }, { status });
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
