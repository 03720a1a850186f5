import type {
  HandlerResultTypeMap,
  InputRequests,
  RequestMethod,
  ServerContext,
} from '@modelcontextprotocol/server';
import { ProtocolError, Server, inputRequired } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { TOOLS_ANNOTATIONS_METHOD, TOOLS_RESOLVE_METHOD } from '../mcp/dynamic-wire.js';
import type { Era } from '../mcp/era.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '../mcp/era.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import { toProtocolError } from '../mcp/rpc-errors.js';
import type { FrontBackend, FrontRequest } from './backend.js';
import type { ClientLink, Incoming } from './call.js';
import type { HandedOver } from './call.js';
import { callOther, callTool, legacySession, withRetryFields } from './call.js';
import type { FrontHub, InstanceState } from './hub.js';
import { isLogLevel } from './logging.js';
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
  /** First-round results of tools/call requests a fast path handed over (see {@link HandedOver}). */
  readonly handedOver?: HandedOver;
}

/**
 * A result relayed as the gateway received it: every field a server sent is kept, so it is
 * wider than the SDK's type for the method; the SDK encodes it for the client's era.
 */
function relayed<M extends RequestMethod>(_method: M, result: JsonObject): HandlerResultTypeMap[M] {
  return result as HandlerResultTypeMap[M];
}

/**
 * The front server for one connection (stdio), 2025 HTTP session or 2026 HTTP request: the
 * SDK's low-level `Server`, with handlers over the gateway for tools, prompts, resources,
 * completions and logging. Every request goes in through `call.ts`, as on the fast paths.
 * Errors become JSON-RPC errors through the one table in `mcp/rpc-errors.ts`. A downstream
 * `input_required` result is returned with `inputRequired()`, so 2026 clients get it as is
 * and 2025 clients through the SDK's shim (real elicitation requests).
 */
export function createFrontServer(backend: FrontBackend, options: FrontServerOptions): Server {
  const instructions = backend.instructions();
  const capabilities = backend.capabilities();
  const server = new Server(
    { ...backend.serverInfo },
    instructions === undefined ? { capabilities } : { capabilities, instructions },
  );
  const state: InstanceState = { subscriptions: new Set<string>(), logLevel: undefined };
  const incoming = (params: unknown, ctx: ServerContext, link: ClientLink): Incoming => ({
    params: withRetryFields(params, ctx.mcpReq.inputResponses, ctx.mcpReq.requestState()),
    session: frontSession(server, ctx, options),
    signal: ctx.mcpReq.signal,
    link,
  });
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw toProtocolError(error);
    }
  };
  /** A request that may end in `input_required`, through the call module. */
  const relayedCall = async (
    params: unknown,
    ctx: ServerContext,
    run: (incoming: Incoming) => Promise<JsonObject>,
  ): Promise<JsonObject> => {
    const link = new SdkLink(ctx, options.era, state);
    const result = await guard(() => run(incoming(params, ctx, link)));
    // Notifications sent through the SDK take a few asynchronous steps: the result must not
    // overtake the last one (the client drops progress for finished requests).
    await link.drained();
    return complete(result);
  };
  const other =
    (run: (request: FrontRequest) => Promise<JsonObject>) =>
    (params: unknown, ctx: ServerContext): Promise<JsonObject> =>
      relayedCall(params, ctx, (request) => callOther(run, request));

  server.setRequestHandler('tools/list', async (_request, ctx) => {
    const session = frontSession(server, ctx, options);
    await backend.ready(session);
    const listing = backend.listTools(session);
    const result: JsonObject =
      listing.meta === undefined
        ? { tools: listing.tools }
        : { tools: listing.tools, _meta: listing.meta };
    return relayed('tools/list', result);
  });
  server.setRequestHandler('tools/call', async (request, ctx) =>
    relayed(
      'tools/call',
      await relayedCall(request.params, ctx, (call) => {
        const first = options.handedOver?.take(ctx.mcpReq.id, call.params);
        return first === undefined ? callTool(backend, call) : Promise.resolve(first);
      }),
    ),
  );
  server.setRequestHandler('prompts/list', async (_request, ctx) => {
    await backend.ready();
    return relayed('prompts/list', {
      prompts: backend.listPrompts(frontSession(server, ctx, options)),
    });
  });
  const getPrompt = other((request) => backend.getPrompt(request));
  server.setRequestHandler('prompts/get', async (request, ctx) =>
    relayed('prompts/get', await getPrompt(request.params, ctx)),
  );
  server.setRequestHandler('resources/list', async (_request, ctx) => {
    await backend.ready();
    return relayed('resources/list', {
      resources: backend.listResources(frontSession(server, ctx, options)),
    });
  });
  server.setRequestHandler('resources/templates/list', async (_request, ctx) => {
    await backend.ready();
    return relayed('resources/templates/list', {
      resourceTemplates: backend.listResourceTemplates(frontSession(server, ctx, options)),
    });
  });
  const readResource = other((request) => backend.readResource(request));
  server.setRequestHandler('resources/read', async (request, ctx) =>
    relayed('resources/read', await readResource(request.params, ctx)),
  );
  const subscribe = other((request) => backend.subscribeResource(request));
  server.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const result = await subscribe(request.params, ctx);
    state.subscriptions.add(request.params.uri);
    return relayed('resources/subscribe', result);
  });
  const unsubscribe = other((request) => backend.unsubscribeResource(request));
  server.setRequestHandler('resources/unsubscribe', async (request, ctx) => {
    state.subscriptions.delete(request.params.uri);
    return relayed('resources/unsubscribe', await unsubscribe(request.params, ctx));
  });
  const complete_ = other((request) => backend.complete(request));
  server.setRequestHandler('completion/complete', async (request, ctx) =>
    relayed('completion/complete', await complete_(request.params, ctx)),
  );
  if (isJsonObject(capabilities['logging'])) {
    // The level is hintgate's to keep: servers' messages are routed per session (see `hub.ts`).
    server.setRequestHandler('logging/setLevel', (request) => {
      if (isLogLevel(request.params.level)) state.logLevel = request.params.level;
      return relayed('logging/setLevel', {});
    });
  }
  // Dynamic annotations: `tools/annotations` (the proposal) and `tools/resolve` (the
  // tool-resolution extension), answered by the gateway without calling the tool.
  for (const method of [TOOLS_ANNOTATIONS_METHOD, TOOLS_RESOLVE_METHOD] as const) {
    server.setRequestHandler(method, { params: LOOSE }, async (params, ctx) => {
      const reply = await guard(async () => {
        await backend.ready();
        return backend.resolveAnnotations({
          method,
          params: isJsonObject(params) ? params : {},
          session: frontSession(server, ctx, options),
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
      state,
      sessionId: options.sessionId ?? (() => options.connectionId),
      principal: options.principal,
    });
  return server;
}

/** A downstream `input_required` as the SDK returns it (as is for 2026, the shim for 2025). */
function complete(result: JsonObject): JsonObject {
  if (result['resultType'] !== 'input_required') return result;
  return inputRequired({
    inputRequests: result['inputRequests'] as InputRequests,
    ...(typeof result['requestState'] === 'string' ? { requestState: result['requestState'] } : {}),
  });
}

/** The client of one SDK handler's request, as the call module sees it. */
class SdkLink implements ClientLink {
  readonly request: ClientLink['request'];
  private readonly pending: Promise<unknown>[] = [];

  constructor(
    private readonly ctx: ServerContext,
    era: Era,
    private readonly state: InstanceState,
  ) {
    this.request =
      era === 'legacy'
        ? (request, signal) =>
            ctx.mcpReq.send({ method: request.method, params: request.params }, LOOSE, {
              signal,
              timeout: 600_000,
            })
        : undefined;
  }

  notify(method: string, params: JsonObject): void {
    this.pending.push(this.ctx.mcpReq.notify({ method, params }).catch(() => undefined));
  }

  logLevel(): string | undefined {
    return this.state.logLevel;
  }

  /** Resolves once every notification sent so far is on its way. */
  drained(): Promise<unknown> {
    return Promise.all(this.pending);
  }
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
  return legacySession(
    {
      protocolVersion: server.getNegotiatedProtocolVersion?.() ?? undefined,
      clientInfo: server.getClientVersion(),
      clientCapabilities: server.getClientCapabilities(),
    },
    options.front,
    ctx.sessionId ?? options.connectionId,
    options.principal,
  );
}
