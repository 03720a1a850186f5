import type { ServerRequestRelay } from '../mcp/relay.js';
import type { DynamicMethod } from '../mcp/dynamic-wire.js';
import type { Era } from '../mcp/era.js';
import type { JsonObject, RpcErrorObject } from '../mcp/json-rpc.js';
import type { SessionInfo } from './session.js';

/** One tools/call as a front received it. */
export interface FrontCall {
  /** The request params as received (name, arguments, `_meta`, retry fields). */
  readonly params: JsonObject;
  readonly session: SessionInfo;
  /** Aborted when the client cancels the call or goes away. */
  readonly signal: AbortSignal;
  /** Sends a progress notification to the client (params without the token), when it asked. */
  readonly progress: ((progress: JsonObject) => void) | undefined;
  /**
   * Tells the client the call is still waiting (a progress notification with `message`, its
   * value above the last one sent), when it asked for progress.
   */
  readonly keepAlive?: ((message: string) => void) | undefined;
  /** Sends a server-to-client request (elicitation, sampling) to this client, when it can take one. */
  readonly relay: ServerRequestRelay | undefined;
  /** Sends a server's log message during this call to this client (at the level it asked for). */
  readonly log: (params: JsonObject) => void;
  /**
   * The least severe level of the server's log messages the client wants during this call:
   * a 2025 client's `logging/setLevel` (`debug` when it set none: every message of its own
   * calls), a 2026 client's envelope level (none when it asked for none).
   */
  readonly logLevel?: string | undefined;
}

/** A request other than tools/call, routed to one server. */
export interface FrontRequest {
  readonly params: JsonObject;
  readonly session: SessionInfo;
  readonly signal: AbortSignal;
  readonly relay: ServerRequestRelay | undefined;
  /** Sends a server's log message during this request to this client. */
  readonly log: (params: JsonObject) => void;
  /** As {@link FrontCall.logLevel}. */
  readonly logLevel?: string | undefined;
}

/** A `tools/annotations` or `tools/resolve` request as a front received it. */
export interface DynamicRequest {
  readonly method: DynamicMethod;
  /** The params as received (`name`, `arguments`). */
  readonly params: JsonObject;
  readonly session: SessionInfo;
  readonly signal: AbortSignal;
}

/** The answer to a {@link DynamicRequest}: its result, or the JSON-RPC error to send. */
export type DynamicReply =
  | { readonly ok: true; readonly result: JsonObject }
  | { readonly ok: false; readonly error: RpcErrorObject };

/** A tools/list answer: the tools, and the result's `_meta` when there is one. */
export interface ToolListing {
  readonly tools: readonly JsonObject[];
  readonly meta: JsonObject | undefined;
}

/** A tools/list answer in serialized pieces. */
export interface ToolListingJson {
  /** The `tools` array as JSON. */
  readonly tools: string;
  /** The members of the result's `_meta` as JSON, without the braces; undefined when none. */
  readonly meta: string | undefined;
}

/** Lists that can change under a connected client. */
export type ChangeKind = 'tools' | 'prompts' | 'resources';

/**
 * What a front server needs from the gateway: the merged lists, the call path, and change
 * events. Defined here so that `src/front` never imports `src/gateway`; the gateway implements
 * it. Methods throw `HintgateError`s, which the fronts map through `toJsonRpcError`.
 */
export interface FrontBackend {
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Instructions for clients: the servers' own, each under its name. */
  instructions(): string | undefined;
  /** Capabilities: tools, prompts, resources, logging, completions, and the servers' other keys. */
  capabilities(): JsonObject;
  /**
   * Resolves when lists may be answered (servers settled, or the startup wait is over); for a
   * session's listing, also once what its principal alone may reach is listed.
   */
  ready(session?: SessionInfo): Promise<void>;
  /** The tools a session sees (its toolset's, or all) and the result's `_meta`, if any. */
  listTools(session: SessionInfo): ToolListing;
  /**
   * The same listing serialized, cached per change and shared by every session seeing the
   * same tools (the fast path's answer); undefined when a tool needs the SDK's 2025
   * projection (a non-object output schema).
   */
  listToolsJson(session: SessionInfo): ToolListingJson | undefined;
  callTool(call: FrontCall): Promise<JsonObject>;
  /** The era of the server behind a tool, to know whether a call needs the SDK's 2025 shim. */
  eraOfTool(name: string): Era | undefined;
  /** Prompts, resources and templates of the servers the session's principal may reach. */
  listPrompts(session: SessionInfo): readonly JsonObject[];
  getPrompt(request: FrontRequest): Promise<JsonObject>;
  listResources(session: SessionInfo): readonly JsonObject[];
  listResourceTemplates(session: SessionInfo): readonly JsonObject[];
  readResource(request: FrontRequest): Promise<JsonObject>;
  subscribeResource(request: FrontRequest): Promise<JsonObject>;
  unsubscribeResource(request: FrontRequest): Promise<JsonObject>;
  complete(request: FrontRequest): Promise<JsonObject>;
  /**
   * A call's annotations for its arguments (`tools/annotations`, `tools/resolve`), without
   * calling the tool; expected failures are returned with their JSON-RPC error.
   */
  resolveAnnotations(request: DynamicRequest): Promise<DynamicReply>;
}
