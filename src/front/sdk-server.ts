import type { ServerContext } from '@modelcontextprotocol/server';
import { ProtocolError, Server, inputRequired } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ServerRequestRelay } from '../mcp/relay.js';
import { TOOLS_ANNOTATIONS_METHOD, TOOLS_RESOLVE_METHOD } from '../mcp/dynamic-wire.js';
import type { Era } from '../mcp/era.js';
import {
  PROTOCOL_VERSION_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
} from '../mcp/era.js';
import { toProtocolError } from '../mcp/rpc-errors.js';
import type { FrontBackend, FrontRequest } from './backend.js';
import type { FrontHub } from './hub.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import type { FrontKind, SessionInfo } from './session.js';

const LOOSE = z.looseObject({});

/** Who is being served by one front `Server` instance. */
export interface FrontServerOptions {
  readonly era: Era;
  readonly front: FrontKind;
  /** A stable id for the connection (stdio) or session (2025 HTTP). */
  readonly connectionId: string;
  readonly principal?: string | undefined;
  /** Notified of the instance so list changes reach its client. */
  readonly hub: FrontHub;
  /** The session id once known (2025 HTTP: after initialize); default `connectionId`. */
  readonly sessionId?: () => string | undefined;
  /**
   * Register with the hub (default true). 2026 HTTP instances live for one request and are
   * reached through the handler's publisher instead.
   */
  readonly track?: boolean;
}

/**
 * The front server for one connection (stdio), 2025 HTTP session or 2026 HTTP request: the
 * SDK's low-level `Server`, with handlers over the gateway for tools, prompts, resources,
 * completions and logging. Every handler relays what servers sent without dropping fields;
 * errors become JSON-RPC errors through the one table in `errors.ts`. A downstream
 * `input_required` result is returned with `inputRequired()`, so 2026 clients get it as is
 * and 2025 clients through the SDK's shim (real elicitation requests).
 */
export function createFrontServer(backend: FrontBackend, options: FrontServerOptions): Server {
  const instructions = backend.instructions();
  const server = new Server(
    { ...backend.serverInfo },
    instructions === undefined
      ? { capabilities: backend.capabilities() }
      : { capabilities: backend.capabilities(), instructions },
  );
  const subscriptions = new Set<string>();
  const sessionOf = (ctx: ServerContext): SessionInfo => frontSession(server, ctx, options);
  const requestOf = (params: unknown, ctx: ServerContext): FrontRequest => ({
    params: isJsonObject(params) ? params : {},
    session: sessionOf(ctx),
    signal: ctx.mcpReq.signal,
    relay: options.era === 'legacy' ? relayTo(ctx) : undefined,
  });
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw toProtocolError(error);
    }
  };
  const complete = (result: JsonObject) => {
    if (result['resultType'] === 'input_required') {
      return inputRequired({
        inputRequests: result['inputRequests'] as never,
        ...(typeof result['requestState'] === 'string'
          ? { requestState: result['requestState'] }
          : {}),
      });
    }
    return result;
  };

  server.setRequestHandler('tools/list', async (_request, ctx) => {
    await backend.ready();
    const listing = backend.listTools(sessionOf(ctx));
    return (
      listing.meta === undefined
        ? { tools: listing.tools }
        : { tools: listing.tools, _meta: listing.meta }
    ) as never;
  });
  server.setRequestHandler('tools/call', (request, ctx) =>
    guard(async () => {
      const token = ctx.mcpReq._meta?.progressToken;
      const params: JsonObject = { ...(request.params as JsonObject) };
      if (ctx.mcpReq.inputResponses !== undefined)
        params['inputResponses'] = ctx.mcpReq.inputResponses;
      const state = ctx.mcpReq.requestState();
      if (state !== undefined) params['requestState'] = state;
      // Progress sent through the SDK takes a few asynchronous steps: the result must not
      // overtake the last notification (the client drops progress for finished requests).
      const sent: Promise<unknown>[] = [];
      const result = await backend.callTool({
        params,
        session: sessionOf(ctx),
        signal: ctx.mcpReq.signal,
        progress:
          token === undefined
            ? undefined
            : (progress) => {
                sent.push(
                  ctx.mcpReq
                    .notify({
                      method: 'notifications/progress',
                      params: { ...progress, progressToken: token },
                    })
                    .catch(() => undefined),
                );
              },
        relay: options.era === 'legacy' ? relayTo(ctx) : undefined,
      });
      await Promise.all(sent);
      return complete(result) as never;
    }),
  );
  server.setRequestHandler('prompts/list', async () => {
    await backend.ready();
    return { prompts: backend.listPrompts() as never };
  });
  server.setRequestHandler('prompts/get', (request, ctx) =>
    guard(async () => complete(await backend.getPrompt(requestOf(request.params, ctx))) as never),
  );
  server.setRequestHandler('resources/list', async () => {
    await backend.ready();
    return { resources: backend.listResources() as never };
  });
  server.setRequestHandler('resources/templates/list', async () => {
    await backend.ready();
    return { resourceTemplates: backend.listResourceTemplates() as never };
  });
  server.setRequestHandler('resources/read', (request, ctx) =>
    guard(
      async () => complete(await backend.readResource(requestOf(request.params, ctx))) as never,
    ),
  );
  server.setRequestHandler('resources/subscribe', (request, ctx) =>
    guard(async () => {
      const result = await backend.subscribeResource(requestOf(request.params, ctx));
      subscriptions.add(request.params.uri);
      return result as never;
    }),
  );
  server.setRequestHandler('resources/unsubscribe', (request, ctx) =>
    guard(async () => {
      subscriptions.delete(request.params.uri);
      return (await backend.unsubscribeResource(requestOf(request.params, ctx))) as never;
    }),
  );
  server.setRequestHandler('completion/complete', (request, ctx) =>
    guard(async () => (await backend.complete(requestOf(request.params, ctx))) as never),
  );
  // Dynamic annotations: `tools/annotations` (the proposal) and `tools/resolve` (the
  // tool-resolution extension), answered by the gateway without calling the tool.
  for (const method of [TOOLS_ANNOTATIONS_METHOD, TOOLS_RESOLVE_METHOD] as const) {
    server.setRequestHandler(method, { params: LOOSE }, async (params, ctx) => {
      const reply = await guard(async () => {
        await backend.ready();
        return backend.resolveAnnotations({
          method,
          params: isJsonObject(params) ? params : {},
          session: sessionOf(ctx),
          signal: ctx.mcpReq.signal,
        });
      });
      if (reply.ok) return reply.result;
      throw new ProtocolError(reply.error.code, reply.error.message, reply.error.data);
    });
  }
  if (options.track !== false)
    options.hub.track(server, {
      era: options.era,
      front: options.front,
      subscriptions,
      sessionId: options.sessionId ?? (() => options.connectionId),
    });
  return server;
}

/** Sends a downstream's server-to-client request to this (2025) client. */
function relayTo(ctx: ServerContext): ServerRequestRelay {
  return (request, signal) =>
    ctx.mcpReq.send({ method: request.method, params: request.params }, LOOSE, {
      signal,
      timeout: 600_000,
    });
}

/** The session a handler serves: from `initialize` (2025) or the request's envelope (2026). */
function frontSession(
  server: Server,
  ctx: ServerContext,
  options: FrontServerOptions,
): SessionInfo {
  if (options.era === 'modern') {
    const envelope = (ctx.mcpReq.envelope ?? {}) as JsonObject;
    const info = envelope[CLIENT_INFO_META_KEY];
    const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
    const version = envelope[PROTOCOL_VERSION_META_KEY];
    return {
      id: options.connectionId,
      front: options.front,
      era: 'modern',
      protocolVersion: typeof version === 'string' ? version : undefined,
      clientInfo: isJsonObject(info) ? info : undefined,
      clientCapabilities: isJsonObject(capabilities) ? capabilities : undefined,
      principal: options.principal,
    };
  }
  return {
    id: ctx.sessionId ?? options.connectionId,
    front: options.front,
    era: 'legacy',
    protocolVersion: server.getNegotiatedProtocolVersion?.() ?? undefined,
    clientInfo: server.getClientVersion(),
    clientCapabilities: server.getClientCapabilities(),
    principal: options.principal,
  };
}
