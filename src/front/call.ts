import { getEventListeners } from 'node:events';
import type { Server } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ServerRequestRelay } from '../mcp/relay.js';
import {
  CLIENT_INFO_META_KEY,
  MODERN_PROTOCOL_VERSION,
  SERVER_INFO_META_KEY,
  envelopeCapabilities,
  envelopeVersion,
  stampModernResult,
} from '../mcp/era.js';
import { toJsonRpcError } from '../mcp/rpc-errors.js';
import type { FrontBackend } from './backend.js';
import type { JsonObject, RpcId } from '../mcp/json-rpc.js';
import { RPC_ERROR, isJsonObject } from '../mcp/json-rpc.js';
import type { FrontKind, SessionInfo } from './session.js';

/**
 * Pieces shared by the fast paths of the stdio and HTTP fronts: what the SDK would do for
 * a tools/call or tools/list, done directly on raw JSON-RPC.
 */

const LOOSE = z.looseObject({});

/** The session of a 2026 request, from its envelope; undefined unless the envelope is usable. */
export function modernSession(
  params: JsonObject | undefined,
  front: FrontKind,
  id: string,
  principal: string | undefined,
): SessionInfo | undefined {
  const capabilities = envelopeCapabilities(params);
  if (envelopeVersion(params) !== MODERN_PROTOCOL_VERSION || capabilities === undefined)
    return undefined;
  const info = (params?.['_meta'] as JsonObject)[CLIENT_INFO_META_KEY];
  return {
    id,
    front,
    era: 'modern',
    protocolVersion: MODERN_PROTOCOL_VERSION,
    clientInfo: isJsonObject(info) ? info : undefined,
    clientCapabilities: capabilities,
    principal,
  };
}

/** The session of a 2025 front instance, from what its client sent at initialize. */
export function legacySession(
  server: Server,
  front: FrontKind,
  id: string,
  principal: string | undefined,
): SessionInfo {
  return {
    id,
    front,
    era: 'legacy',
    protocolVersion: server.getNegotiatedProtocolVersion(),
    clientInfo: server.getClientVersion(),
    clientCapabilities: server.getClientCapabilities(),
    principal,
  };
}

/**
 * Sends a downstream's elicitation or sampling request to a 2025 client through its front
 * instance, when the client declared it can take one.
 */
export function relayThrough(server: Server): ServerRequestRelay {
  const capabilities = server.getClientCapabilities() as JsonObject | undefined;
  return async (request, signal) => {
    if (request.method === 'elicitation/create' && !isJsonObject(capabilities?.['elicitation'])) {
      throw new Error('the client does not accept elicitation requests');
    }
    if (request.method === 'sampling/createMessage' && !isJsonObject(capabilities?.['sampling'])) {
      throw new Error('the client does not accept sampling requests');
    }
    return server.request({ method: request.method, params: request.params }, LOOSE, {
      signal,
      timeout: 600_000,
    });
  };
}

/** The progress token a request asked for, if any. */
export function progressTokenOf(params: JsonObject): unknown {
  const meta = params['_meta'];
  return isJsonObject(meta) ? meta['progressToken'] : undefined;
}

/** A progress notification for `token`, serialized. */
export function progressLine(token: unknown, update: JsonObject): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { ...update, progressToken: token },
  });
}

/** A response carrying `result`, serialized as the client's era expects it. */
export function resultLine(
  id: RpcId,
  result: JsonObject,
  session: SessionInfo,
  serverInfo: JsonObject,
): string {
  if (session.era === 'modern')
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(stampModernResult(result, serverInfo))}}`;
  if (result['resultType'] === 'input_required') {
    return errorLine(id, {
      code: RPC_ERROR.internalError,
      message: 'the server asked for input this 2025 client cannot be sent on this path',
    });
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}`;
}

/** An error response for whatever a call threw, serialized. */
export function failureLine(id: RpcId, error: unknown): string {
  return errorLine(id, toJsonRpcError(error));
}

function errorLine(id: RpcId, error: { code: number; message: string; data?: unknown }): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

/**
 * The tools/list result for this session, serialized from the cached JSON of what it sees;
 * undefined when a 2025 client needs the SDK's projection of some tool. 2026 clients get
 * `ttlMs: 0` and `cacheScope: "private"`: what they see depends on their toolset.
 */
export function toolsListResult(
  backend: FrontBackend,
  session: SessionInfo,
  serverInfoJson: string,
): string | undefined {
  const body = backend.listToolsJson(session);
  if (body === undefined) return undefined;
  if (session.era !== 'modern') {
    return body.meta === undefined
      ? `{"tools":${body.tools}}`
      : `{"tools":${body.tools},"_meta":{${body.meta}}}`;
  }
  const meta = body.meta === undefined ? '' : `${body.meta},`;
  return `{"tools":${body.tools},"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{${meta}"${SERVER_INFO_META_KEY}":${serverInfoJson}}}`;
}

/** True when a 2025 client calls a tool of a 2026 server (its input requests need the SDK shim). */
export function needsShim(backend: FrontBackend, session: SessionInfo, name: string): boolean {
  return session.era === 'legacy' && backend.eraOfTool(name) === 'modern';
}

/**
 * AbortControllers for reuse: the first listener on a fresh AbortSignal costs several
 * microseconds, a noticeable share of a fast-path call. A controller goes back only as good
 * as new: never aborted, no listener left on its signal.
 */
export class ControllerPool {
  private readonly free: AbortController[] = [];

  constructor(private readonly size = 256) {}

  acquire(): AbortController {
    return this.free.pop() ?? new AbortController();
  }

  release(controller: AbortController): void {
    if (controller.signal.aborted || this.free.length >= this.size) return;
    if (getEventListeners(controller.signal, 'abort').length === 0) this.free.push(controller);
  }
}
