/**
 * Adds dynamic annotations to a server built with the MCP TypeScript SDK v2 (`McpServer`
 * or the low-level `Server`): the capabilities, the tool markers in `tools/list`, and the
 * `tools/annotations` and `tools/resolve` requests, answered from one resolver per tool.
 */
import type { ListToolsResult, Server, ServerContext } from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  McpServer,
  ProtocolError,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AnnotationResolver } from './dynamic-answer.js';
import { answerDynamicRequest } from './dynamic-answer.js';
import type { DynamicMethod } from './dynamic-wire.js';
import {
  TOOLS_ANNOTATIONS_METHOD,
  TOOLS_RESOLVE_METHOD,
  declaresToolResolution,
  invalidParamsError,
  markDynamicTool,
  missingCapabilityError,
  readDynamicParams,
  toolResolutionCapabilities,
} from './dynamic-wire.js';
import type { JsonObject, RpcErrorObject } from './json-rpc.js';
import { isJsonObject } from './json-rpc.js';

/** Options of {@link addDynamicAnnotations}. */
export interface DynamicAnnotationsOptions {
  /** One resolver per tool name; tools without one stay static. */
  readonly resolvers: Readonly<Record<string, AnnotationResolver>>;
  /** Serve the proposal's `tools/annotations` (and mark tools `dynamicAnnotations: true`). Default true. */
  readonly annotations?: boolean;
  /** Serve the extension's `tools/resolve` (and declare and mark it). Default true. */
  readonly resolve?: boolean;
  /**
   * Whether a 2025 session must have declared the extension in `initialize` to use
   * `tools/resolve` (`'required'`, the default, as the extension says), or may use it
   * regardless (`'optional'`: for clients that cannot declare extension capabilities, and for
   * stateless 2025 HTTP, where no `initialize` reaches the instance answering). A 2026 request
   * must always declare it in its own envelope.
   */
  readonly legacyNegotiation?: 'required' | 'optional';
}

type StoredHandler = (request: JsonObject, ctx: ServerContext) => Promise<unknown>;

/** The most `tools/list` pages read to find one tool. */
const MAX_LIST_PAGES = 100;

const LOOSE_PARAMS = z.looseObject({});

const enhanced = new WeakSet<Server>();

/**
 * The handler the SDK stores for a method. The SDK offers no public way to wrap a handler it
 * installed itself (`McpServer` builds `tools/list`), so this reads the one protected
 * accessor, `Protocol._getRequestHandler`, and fails loudly if a later SDK removes it.
 */
function storedHandler(server: Server, method: string): StoredHandler | undefined {
  const access = server as unknown as {
    _getRequestHandler?: (this: Server, method: string) => StoredHandler | undefined;
  };
  if (typeof access._getRequestHandler !== 'function') {
    throw new Error(
      'addDynamicAnnotations: this version of @modelcontextprotocol/server has no _getRequestHandler; it needs 2.4',
    );
  }
  return access._getRequestHandler.call(server, method);
}

function protocolError(error: RpcErrorObject): ProtocolError {
  return new ProtocolError(error.code, error.message, error.data);
}

/** The client capabilities that apply to this request: its own envelope's (2026), or the session's. */
function requestCapabilities(server: Server, ctx: ServerContext): unknown {
  const envelope = ctx.mcpReq.envelope;
  if (envelope !== undefined) return (envelope as JsonObject)[CLIENT_CAPABILITIES_META_KEY];
  return server.getClientCapabilities();
}

/**
 * Adds dynamic annotations to an SDK v2 server, from one resolver per tool:
 *
 * - declares `capabilities.tools.dynamicAnnotations: true` and
 *   `capabilities.extensions["io.modelcontextprotocol/tool-resolution"]: {}`;
 * - marks each tool with a resolver in `tools/list`: `dynamicAnnotations: true`, and, when the
 *   client negotiated the extension, `_meta["io.modelcontextprotocol/tool-resolution"] =
 *   { resolvable: true }`;
 * - serves `tools/annotations` (`{ name, arguments }` → `{ annotations }`) and `tools/resolve`
 *   (→ `{ resultType: 'complete', name, annotations }`, `-32021` unless negotiated), both from
 *   the resolver, with the arguments validated against the listed input schema and the answer
 *   checked against the static annotations (see `answerDynamicRequest` for the errors).
 *
 * Call it after registering the tools (`McpServer` installs `tools/list` with the first
 * `registerTool`; a low-level `Server` needs its own `tools/list` handler first) and before
 * connecting. The tool's definition (input schema, static annotations) is read from the
 * server's own `tools/list` on every request, so it never drifts from what clients see; a
 * tool registered later, or disabled, is picked up. Call it once per server instance: with
 * `createMcpHandler` or `serveStdio`, inside the factory.
 *
 * @example
 * const mcp = new McpServer({ name: 'files', version: '1.0.0' });
 * mcp.registerTool('manage_files', { inputSchema, annotations: WORST_CASE }, handler);
 * addDynamicAnnotations(mcp, {
 *   resolvers: {
 *     manage_files: ({ action }) =>
 *       action === 'read' ? { readOnlyHint: true } : { destructiveHint: action !== 'append' },
 *   },
 * });
 */
export function addDynamicAnnotations(
  server: McpServer | Server,
  options: DynamicAnnotationsOptions,
): void {
  const target = server instanceof McpServer ? server.server : server;
  if (enhanced.has(target)) {
    throw new Error('addDynamicAnnotations: dynamic annotations were already added to this server');
  }
  const serveAnnotations = options.annotations ?? true;
  const serveResolve = options.resolve ?? true;
  const legacyRequired = (options.legacyNegotiation ?? 'required') === 'required';
  const resolvers = new Map(Object.entries(options.resolvers));
  const list = storedHandler(target, 'tools/list');
  if (list === undefined) {
    throw new Error(
      'addDynamicAnnotations: the server has no tools/list handler yet; register the tools first',
    );
  }
  // registerCapabilities throws once the server is connected: it runs before anything else
  // changes, so such a server is left as it was.
  const capabilities: JsonObject = {};
  if (serveAnnotations) capabilities['tools'] = { dynamicAnnotations: true };
  if (serveResolve) Object.assign(capabilities, toolResolutionCapabilities());
  target.registerCapabilities(capabilities);
  enhanced.add(target);

  const mayResolve = (ctx: ServerContext): boolean => {
    const declared = declaresToolResolution(requestCapabilities(target, ctx));
    return declared || (!legacyRequired && ctx.mcpReq.envelope === undefined);
  };

  target.setRequestHandler('tools/list', async (request, ctx) => {
    const result = await list(request, ctx);
    if (!isJsonObject(result) || !Array.isArray(result['tools'])) return result as ListToolsResult;
    const markers = { annotations: serveAnnotations, resolvable: serveResolve && mayResolve(ctx) };
    const tools = (result['tools'] as unknown[]).map((tool) =>
      isJsonObject(tool) && typeof tool['name'] === 'string' && resolvers.has(tool['name'])
        ? markDynamicTool(tool, markers)
        : tool,
    );
    return { ...result, tools } as ListToolsResult;
  });

  const findTool = async (name: string, ctx: ServerContext): Promise<JsonObject | undefined> => {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const params = cursor === undefined ? {} : { cursor };
      const request = { jsonrpc: '2.0', id: ctx.mcpReq.id, method: 'tools/list', params };
      const result = await list(request, ctx);
      if (!isJsonObject(result) || !Array.isArray(result['tools'])) return undefined;
      const found = (result['tools'] as unknown[]).find(
        (tool) => isJsonObject(tool) && tool['name'] === name,
      );
      if (found !== undefined) return found as JsonObject;
      const next = result['nextCursor'];
      if (typeof next !== 'string' || next === '') return undefined;
      cursor = next;
    }
    return undefined;
  };

  const answer = async (method: DynamicMethod, params: unknown, ctx: ServerContext) => {
    if (method === TOOLS_RESOLVE_METHOD && !mayResolve(ctx)) {
      throw protocolError(missingCapabilityError());
    }
    const read = readDynamicParams(params);
    if (!read.ok) throw protocolError(invalidParamsError(method, read.problem));
    const { name, arguments: args } = read.value;
    const outcome = await answerDynamicRequest({
      method,
      name,
      arguments: args,
      tool: await findTool(name, ctx),
      resolver: resolvers.get(name),
      signal: ctx.mcpReq.signal,
    });
    if (!outcome.ok) throw protocolError(outcome.error);
    return { ...outcome.result };
  };

  if (serveAnnotations) {
    target.setRequestHandler(TOOLS_ANNOTATIONS_METHOD, { params: LOOSE_PARAMS }, (params, ctx) =>
      answer(TOOLS_ANNOTATIONS_METHOD, params, ctx),
    );
  }
  if (serveResolve) {
    target.setRequestHandler(TOOLS_RESOLVE_METHOD, { params: LOOSE_PARAMS }, (params, ctx) =>
      answer(TOOLS_RESOLVE_METHOD, params, ctx),
    );
  }
}
