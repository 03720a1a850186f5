import { HintgateError } from '../core/errors.js';
import type { Downstream } from '../mcp/downstream.js';
import type { Era } from '../mcp/era.js';
import type { FrontBackend, FrontCall, FrontRequest } from '../mcp/front-backend.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import { frontCapabilities, frontInstructions } from './capabilities.js';
import type { Catalog } from './catalog.js';
import type { Directory } from './directory.js';
import type { CallContext, CallToolResult } from './pipeline/context.js';
import { createCallContext } from './pipeline/context.js';
import type { ServerSet } from './servers.js';

/** What {@link GatewayBackend} is made of. */
export interface GatewayBackendParts {
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly catalog: Catalog;
  readonly directory: Directory;
  readonly servers: ServerSet;
  readonly handleCall: (ctx: CallContext) => Promise<CallToolResult>;
  /** How long lists wait for servers still starting, from {@link GatewayBackend.startClock}. */
  readonly startupWaitMs: number;
  readonly now?: () => number;
}

/**
 * The gateway as the fronts see it ({@link FrontBackend}): the catalog's tools, the
 * directory's prompts and resources, calls through the pipeline, other requests routed to
 * the server that owns the prompt or resource.
 */
export class GatewayBackend implements FrontBackend {
  readonly serverInfo: { readonly name: string; readonly version: string };
  private readyPromise: Promise<void> | undefined;
  private isReady = false;
  private listJson: { version: number; json: string | undefined } | undefined;
  private readonly now: () => number;

  constructor(private readonly parts: GatewayBackendParts) {
    this.serverInfo = parts.serverInfo;
    this.now = parts.now ?? Date.now;
  }

  /** Starts the startup wait: lists answer once every server settled, or after the wait. */
  startClock(): void {
    if (this.readyPromise !== undefined) return;
    const wait = this.parts.startupWaitMs;
    this.readyPromise = Promise.race([
      this.parts.servers.settled(),
      new Promise<void>((resolve) => setTimeout(resolve, wait).unref()),
    ]).then(() => {
      this.isReady = true;
    });
  }

  ready(): Promise<void> {
    this.startClock();
    return this.readyPromise ?? Promise.resolve();
  }

  instructions(): string | undefined {
    return frontInstructions(
      this.parts.servers
        .all()
        .map((server) => ({ name: server.name, instructions: server.snapshot.instructions })),
    );
  }

  capabilities(): JsonObject {
    return frontCapabilities(
      this.parts.servers.all().map((server) => server.snapshot.capabilities),
    );
  }

  listTools(): readonly JsonObject[] {
    return this.parts.catalog.listedTools();
  }

  listToolsJson(): string | undefined {
    const catalog = this.parts.catalog;
    if (this.listJson?.version !== catalog.version) {
      const tools = catalog.listedTools();
      const projectable = tools.every(
        (tool) => !isJsonObject(tool['outputSchema']) || tool['outputSchema']['type'] === 'object',
      );
      this.listJson = {
        version: catalog.version,
        json: projectable ? JSON.stringify({ tools }) : undefined,
      };
    }
    return this.listJson.json;
  }

  eraOfTool(name: string): Era | undefined {
    const entry = this.parts.catalog.resolve(name);
    if (entry === undefined) return undefined;
    const status = this.parts.servers.get(entry.server)?.status;
    return status?.state === 'up' ? status.era : undefined;
  }

  async callTool(call: FrontCall): Promise<JsonObject> {
    // During startup a tool may belong to a server that is still connecting: wait for it.
    if (
      !this.isReady &&
      typeof call.params['name'] === 'string' &&
      this.parts.catalog.resolve(call.params['name']) === undefined
    ) {
      await this.ready();
    }
    const ctx = createCallContext(call, this.now());
    try {
      return await this.parts.handleCall(ctx);
    } catch (error) {
      ctx.trace.outcome = call.signal.aborted ? 'cancelled' : 'error';
      ctx.trace.error = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      ctx.trace.durationMs = this.now() - ctx.trace.startedAt;
    }
  }

  listPrompts(): readonly JsonObject[] {
    return this.parts.directory.listPrompts();
  }

  async getPrompt(request: FrontRequest): Promise<JsonObject> {
    const name = typeof request.params['name'] === 'string' ? request.params['name'] : '';
    const item = this.parts.directory.prompt(name);
    return this.route(item.server, 'prompts/get', { ...request.params, name: item.name }, request);
  }

  listResources(): readonly JsonObject[] {
    return this.parts.directory.listResources();
  }

  listResourceTemplates(): readonly JsonObject[] {
    return this.parts.directory.listResourceTemplates();
  }

  readResource(request: FrontRequest): Promise<JsonObject> {
    return this.route(
      this.parts.directory.serverForUri(uriOf(request)),
      'resources/read',
      request.params,
      request,
    );
  }

  subscribeResource(request: FrontRequest): Promise<JsonObject> {
    const uri = uriOf(request);
    const server = this.server(this.parts.directory.serverForUri(uri));
    return server.subscribeResource(uri, { signal: request.signal });
  }

  unsubscribeResource(request: FrontRequest): Promise<JsonObject> {
    const uri = uriOf(request);
    const server = this.server(this.parts.directory.serverForUri(uri));
    return server.unsubscribeResource(uri, { signal: request.signal });
  }

  complete(request: FrontRequest): Promise<JsonObject> {
    const ref = request.params['ref'];
    if (!isJsonObject(ref))
      throw new HintgateError('INVALID_ARGUMENTS', 'completion/complete needs a "ref"');
    if (ref['type'] === 'ref/prompt' && typeof ref['name'] === 'string') {
      const item = this.parts.directory.prompt(ref['name']);
      return this.route(
        item.server,
        'completion/complete',
        { ...request.params, ref: { ...ref, name: item.name } },
        request,
      );
    }
    if (ref['type'] === 'ref/resource' && typeof ref['uri'] === 'string') {
      return this.route(
        this.parts.directory.serverForTemplate(ref['uri']),
        'completion/complete',
        request.params,
        request,
      );
    }
    throw new HintgateError('INVALID_ARGUMENTS', 'completion/complete: unknown "ref" type');
  }

  private server(name: string): Downstream {
    const downstream = this.parts.servers.get(name);
    if (downstream === undefined) throw new HintgateError('NOT_FOUND', `no server named "${name}"`);
    return downstream;
  }

  private async route(
    server: string,
    method: string,
    params: JsonObject,
    request: FrontRequest,
  ): Promise<JsonObject> {
    return this.server(server).request(method, params, {
      signal: request.signal,
      relay: request.relay,
      clientCapabilities: request.session.clientCapabilities,
    });
  }
}

function uriOf(request: FrontRequest): string {
  const uri = request.params['uri'];
  if (typeof uri !== 'string') throw new HintgateError('INVALID_ARGUMENTS', 'expected a "uri"');
  return uri;
}
