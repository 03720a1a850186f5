import { HintgateError } from '../core/errors.js';
import type { ServerConnection } from '../downstream/downstream.js';
import type { Era } from '../mcp/era.js';
import { declaresToolResolution } from '../mcp/dynamic-wire.js';
import type {
  DynamicReply,
  DynamicRequest,
  FrontBackend,
  FrontCall,
  FrontRequest,
  ToolListing,
  ToolListingJson,
} from '../front/backend.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import { declaresProvenance } from '../mcp/provenance.js';
import type { AccessControl } from './access.js';
import { frontCapabilities, frontInstructions } from './capabilities.js';
import type { Catalog } from './catalog.js';
import type { Directory } from './directory.js';
import { answerDynamic } from './dynamic/answer.js';
import type { DynamicResolver } from './dynamic/resolver.js';
import type { CallContext, CallToolResult } from './pipeline/context.js';
import { createCallContext } from './pipeline/context.js';
import type { ServerSet } from './servers.js';
import type { ToolsetService } from './toolsets/service.js';
import type { ToolView } from './toolsets/view.js';
import type { SessionInfo } from '../front/session.js';
import { callerOf } from '../front/session.js';

/** What {@link GatewayBackend} is made of. */
export interface GatewayBackendParts {
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly catalog: Catalog;
  readonly directory: Directory;
  readonly servers: ServerSet;
  /** What each session sees: its toolset, overrides, notes, meta tools. */
  readonly toolsets: ToolsetService;
  /** Resolves once the toolsets in use and the global overrides are loaded. */
  readonly toolsetsLoaded: () => Promise<void>;
  readonly handleCall: (ctx: CallContext) => Promise<CallToolResult>;
  /** Who may see which tools (absent: everyone sees every tool of its view). */
  readonly access?: AccessControl;
  /** Resolves calls of dynamic tools for `tools/annotations` and `tools/resolve`. */
  readonly dynamic: DynamicResolver;
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
  /** Per view: whether its listing can be sent as cached JSON (no SDK projection needed). */
  private readonly listJson = new WeakMap<ToolView, boolean>();
  private readonly now: () => number;

  constructor(private readonly parts: GatewayBackendParts) {
    this.serverInfo = parts.serverInfo;
    this.now = parts.now ?? Date.now;
  }

  /** Starts the startup wait: lists answer once every server settled, or after the wait. */
  startClock(): void {
    if (this.readyPromise !== undefined) return;
    const wait = this.parts.startupWaitMs;
    this.readyPromise = Promise.all([
      Promise.race([
        this.parts.servers.settled(),
        new Promise<void>((resolve) => setTimeout(resolve, wait).unref()),
      ]),
      this.parts.toolsetsLoaded(),
    ]).then(() => {
      this.isReady = true;
    });
  }

  ready(session?: SessionInfo): Promise<void> {
    this.startClock();
    const ready = this.readyPromise ?? Promise.resolve();
    // A principal's first listing opens its connections to `auth: per-user` servers.
    const principal = session?.principal;
    if (principal === undefined || !this.parts.servers.hasPerUser) return ready;
    return ready.then(() => this.parts.servers.prepare(principal));
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

  listTools(session: SessionInfo): ToolListing {
    const view = this.parts.toolsets.view(session);
    // Only what the session's principal may call (access rules, per-user logins).
    const listing = this.restricted(view, session) ?? view;
    return {
      tools: listing.listedFor(resolvesTools(session), wantsProvenance(session)),
      meta: view.meta,
    };
  }

  listToolsJson(session: SessionInfo): ToolListingJson | undefined {
    // Cached per view, and views are shared by every session seeing the same tools.
    const view = this.parts.toolsets.view(session);
    const restricted = this.restricted(view, session);
    let projectable = this.listJson.get(view);
    if (projectable === undefined) {
      projectable = view.listed.every(
        (tool) => !isJsonObject(tool['outputSchema']) || tool['outputSchema']['type'] === 'object',
      );
      this.listJson.set(view, projectable);
    }
    if (!projectable) return undefined;
    return (restricted ?? view).listJson(resolvesTools(session), wantsProvenance(session));
  }

  /** The view as the session's principal may see it, or undefined when nothing restricts it. */
  private restricted(view: ToolView, session: SessionInfo) {
    const hidden = this.parts.servers.hiddenFrom(session.principal);
    if (this.parts.access !== undefined)
      return this.parts.access.listing(view, session.principal, hidden);
    return hidden.length === 0
      ? undefined
      : view.restrictedTo(
          `\u0001${hidden.join('\u0000')}`,
          (entry) => !hidden.includes(entry.server),
        );
  }

  resolveAnnotations(request: DynamicRequest): Promise<DynamicReply> {
    return answerDynamic(
      request,
      (session, name) => this.parts.toolsets.view(session).lookup(name),
      this.parts.dynamic,
    );
  }

  eraOfTool(name: string): Era | undefined {
    const entry = this.parts.catalog.resolve(name);
    if (entry === undefined) return undefined;
    const status = this.parts.servers.get(entry.server)?.status;
    return status?.state === 'up' ? status.era : undefined;
  }

  // Not async: a call of a listed tool goes straight into the pipeline, with no promise of
  // its own.
  callTool(call: FrontCall): Promise<JsonObject> {
    const name = call.params['name'];
    if (typeof name === 'string' && this.parts.catalog.resolve(name) === undefined)
      return this.callUnlisted(call);
    return this.parts.handleCall(createCallContext(call, this.now()));
  }

  /**
   * A call of a name the catalog does not hold (yet): during startup it may be a tool of a
   * server still connecting, and a first call of a per-user server's tool may come before
   * any listing; wait for those, then let the pipeline find it or say why not.
   */
  private async callUnlisted(call: FrontCall): Promise<JsonObject> {
    if (!this.isReady) await this.ready();
    await this.parts.servers.prepare(call.session.principal);
    return this.parts.handleCall(createCallContext(call, this.now()));
  }

  listPrompts(session: SessionInfo): readonly JsonObject[] {
    return this.parts.directory.listPrompts(this.parts.servers.hiddenFrom(session.principal));
  }

  async getPrompt(request: FrontRequest): Promise<JsonObject> {
    const name = typeof request.params['name'] === 'string' ? request.params['name'] : '';
    const item = this.parts.directory.prompt(name);
    return this.route(item.server, 'prompts/get', { ...request.params, name: item.name }, request);
  }

  listResources(session: SessionInfo): readonly JsonObject[] {
    return this.parts.directory.listResources(this.parts.servers.hiddenFrom(session.principal));
  }

  listResourceTemplates(session: SessionInfo): readonly JsonObject[] {
    return this.parts.directory.listResourceTemplates(
      this.parts.servers.hiddenFrom(session.principal),
    );
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
    return server.subscribeResource(uri, {
      signal: request.signal,
      principal: request.session.principal,
    });
  }

  unsubscribeResource(request: FrontRequest): Promise<JsonObject> {
    const uri = uriOf(request);
    const server = this.server(this.parts.directory.serverForUri(uri));
    return server.unsubscribeResource(uri, {
      signal: request.signal,
      principal: request.session.principal,
    });
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

  private server(name: string): ServerConnection {
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
      onLog: request.log,
      clientCapabilities: request.session.clientCapabilities,
      caller: callerOf(request.session),
      logLevel: request.logLevel,
      principal: request.session.principal,
    });
  }
}

function uriOf(request: FrontRequest): string {
  const uri = request.params['uri'];
  if (typeof uri !== 'string') throw new HintgateError('INVALID_ARGUMENTS', 'expected a "uri"');
  return uri;
}

/** True when the client asked for each tool's full provenance in tools/list. */
function wantsProvenance(session: SessionInfo): boolean {
  return declaresProvenance(session.clientCapabilities);
}

/** True when the session negotiated the tool-resolution extension (its tools get the marker). */
function resolvesTools(session: SessionInfo): boolean {
  return declaresToolResolution(session.clientCapabilities);
}
