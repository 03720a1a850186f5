/**
 * An OpenAPI document served as an MCP server in this process: the SDK's low-level `Server`
 * listing one tool per operation and calling the API for each tools/call, over an in-memory
 * transport pair. The gateway connects to the other end like to any server, so lists,
 * calls, the call path and reconnection treat it as one.
 */
import type { Transport } from '@modelcontextprotocol/client';
import { InMemoryTransport, ProtocolError, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ServerConfig } from '../../config/schema.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';
import type { OpenApiDocument } from './document.js';
import { loadOpenApiDocument } from './document.js';
import type { OpenApiTool } from './operations.js';
import { convertDocument } from './operations.js';
import type { CallSettings } from './request.js';
import { callOperation } from './request.js';

/** JSON-RPC's "invalid params". */
const INVALID_PARAMS = -32602;

/** A document read and converted: its tools and what their calls share. */
export interface OpenApiApi {
  readonly document: OpenApiDocument;
  readonly tools: readonly OpenApiTool[];
}

/** Reads, validates and converts a server's document (see `loadOpenApiDocument`). */
export async function loadOpenApiServer(config: ServerConfig): Promise<OpenApiApi> {
  const source = config.openapi;
  if (source === undefined) throw new TypeError('not an openapi server');
  const document = await loadOpenApiDocument(source, { timeoutMs: config.timeouts.connectMs });
  const tools = convertDocument(document, {
    baseUrl: config.baseUrl,
    include: config.include,
    exclude: config.exclude,
  });
  return { document, tools };
}

/** Documents read before the start (see `openApiConfigIssues`), for their first connection. */
const prepared = new WeakMap<ServerConfig, OpenApiApi>();

/** Reads a server's document, and keeps it for the server's first connection. */
export async function prepareOpenApiServer(config: ServerConfig): Promise<void> {
  prepared.set(config, await loadOpenApiServer(config));
}

/**
 * The client end of an in-memory connection to a server made from `config`'s OpenAPI
 * document (read again on every connection but the first after {@link prepareOpenApiServer}).
 * Rejects when the document cannot be read or used.
 */
export async function openApiTransport(config: ServerConfig): Promise<Transport> {
  const api = prepared.get(config) ?? (await loadOpenApiServer(config));
  prepared.delete(config);
  const components = api.document.document['components'];
  const schemes = isJsonObject(components) ? components['securitySchemes'] : undefined;
  const settings: CallSettings = {
    headers: config.headers,
    credentials: config.credentials ?? {},
    schemes: isJsonObject(schemes) ? schemes : {},
    timeoutMs: config.timeouts.callMs,
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serveStdio(() => createOpenApiServer(api, settings), { transport: serverSide });
  return clientSide;
}

function createOpenApiServer(api: OpenApiApi, settings: CallSettings): Server {
  const info = api.document.document['info'];
  const title = isJsonObject(info) && typeof info['title'] === 'string' ? info['title'] : 'OpenAPI';
  const version = isJsonObject(info) && typeof info['version'] === 'string' ? info['version'] : '0';
  const server = new Server({ name: title, version }, { capabilities: { tools: {} } });
  const byName = new Map(api.tools.map((tool) => [tool.tool['name'] as string, tool]));
  const listed = api.tools.map((tool) => tool.tool);
  server.setRequestHandler('tools/list', () => ({ tools: listed }) as never);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = byName.get(request.params.name);
    if (tool === undefined)
      throw new ProtocolError(INVALID_PARAMS, `unknown tool "${request.params.name}"`);
    const args: JsonObject = isJsonObject(request.params.arguments) ? request.params.arguments : {};
    return (await callOperation(tool.plan, args, settings, ctx.mcpReq.signal)) as never;
  });
  return server;
}
