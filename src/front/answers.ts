import { jsonOf } from '../core/util/json-text.js';
import { SERVER_INFO_META_KEY, stampModernResult } from '../mcp/era.js';
import type { JsonObject, RpcErrorObject, RpcId, RpcResponse } from '../mcp/json-rpc.js';
import { RPC_ERROR, errorResponse, invalidMessageReason, isJsonObject } from '../mcp/json-rpc.js';
import { toJsonRpcError } from '../mcp/rpc-errors.js';
import type { FrontBackend } from './backend.js';
import type { SessionInfo } from './session.js';

/**
 * What the fronts answer themselves: protocol-level errors (a message that does not parse or
 * is not JSON-RPC, a request before `initialize`) for both transports, and the serialized
 * answers of the fast paths (results with the era's stamps, errors, progress, tools/list).
 */

/** A message off the wire: the parsed JSON-RPC message, or the error answer to send. */
export type Received =
  | { readonly ok: true; readonly message: JsonObject }
  | { readonly ok: false; readonly answer: RpcResponse };

/** Checks a parsed value as a JSON-RPC message; `-32600` naming what is wrong when it is not. */
export function checkMessage(value: unknown): Received {
  const invalid = invalidMessageReason(value);
  if (invalid === undefined) return { ok: true, message: value as JsonObject };
  const id = isJsonObject(value) ? value['id'] : undefined;
  return {
    ok: false,
    answer: errorResponse(typeof id === 'string' || typeof id === 'number' ? id : null, {
      code: RPC_ERROR.invalidRequest,
      message: `Invalid Request: ${invalid}`,
    }),
  };
}

/** Parses and checks one message's text: `-32700` when it is not JSON. */
export function parseMessage(text: string): Received {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, answer: parseErrorAnswer(error) };
  }
  return checkMessage(value);
}

/** `-32700` for a body or line that is not JSON. */
export function parseErrorAnswer(error: unknown): RpcResponse {
  return errorResponse(null, {
    code: RPC_ERROR.parseError,
    message: `Parse error: ${error instanceof Error ? error.message : String(error)}`,
  });
}

/** `-32600` for a message longer than the front accepts. */
export function tooLargeAnswer(limitBytes: number): RpcResponse {
  return errorResponse(null, {
    code: RPC_ERROR.invalidRequest,
    message: `Invalid Request: message longer than ${formatBytes(limitBytes)}`,
  });
}

/**
 * `-32600` for a 2025 request that came before `initialize`; `how` says what to send
 * instead on this transport.
 */
export function beforeInitializeAnswer(id: RpcId | null, method: string, how: string): RpcResponse {
  return errorResponse(id, {
    code: RPC_ERROR.invalidRequest,
    message: `Invalid Request: "${method}" before initialize; ${how}`,
  });
}

/** The HTTP status of a protocol-level error answer (the 2026 transport's table). */
export function httpStatusOf(error: RpcErrorObject, session: SessionInfo | undefined): number {
  switch (error.code) {
    case RPC_ERROR.parseError:
    case RPC_ERROR.invalidRequest:
      return 400;
    case -32021: // MissingRequiredClientCapability: 400 in the 2026 transport, in-band or not.
      return session?.era === 'modern' ? 400 : 200;
    default:
      return 200;
  }
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** A progress notification for `token`, serialized. */
export function progressLine(token: unknown, update: JsonObject): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { ...update, progressToken: token },
  });
}

/** A notification, serialized. */
export function notificationLine(method: string, params: JsonObject): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

/** A response carrying `result`, serialized as the client's era expects it. */
export function resultLine(
  id: RpcId,
  result: JsonObject,
  session: SessionInfo,
  serverInfo: JsonObject,
): string {
  if (session.era === 'modern')
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${stampedJson(result, serverInfo)}}`;
  if (result['resultType'] === 'input_required') {
    return errorLine(id, {
      code: RPC_ERROR.internalError,
      message: 'the server asked for input this 2025 client cannot be sent on this path',
    });
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${jsonOf(result)}}`;
}

/** The JSON of each serverInfo object a front stamps 2026 results with, made once. */
const SERVER_INFO_JSON = new WeakMap<JsonObject, string>();
const SERVER_INFO_KEY_JSON = JSON.stringify(SERVER_INFO_META_KEY);

/**
 * `stampModernResult(result, serverInfo)` as JSON. The common result (no `resultType`, no
 * `_meta`) gets the stamps appended to its own JSON, as the spread would place them, without
 * copying the result.
 */
export function stampedJson(result: JsonObject, serverInfo: JsonObject): string {
  if (result['resultType'] !== undefined || result['_meta'] !== undefined)
    return JSON.stringify(stampModernResult(result, serverInfo));
  let info = SERVER_INFO_JSON.get(serverInfo);
  if (info === undefined) {
    info = JSON.stringify(serverInfo);
    SERVER_INFO_JSON.set(serverInfo, info);
  }
  const json = jsonOf(result);
  const stamps = `"resultType":"complete","_meta":{${SERVER_INFO_KEY_JSON}:${info}}}`;
  return json === '{}' ? `{${stamps}` : `${json.slice(0, -1)},${stamps}`;
}

/** An error response for whatever a call threw, serialized. */
export function failureLine(id: RpcId, error: unknown): string {
  return errorLine(id, toJsonRpcError(error));
}

/** An error response, serialized. */
export function errorLine(id: RpcId | null, error: RpcErrorObject): string {
  return JSON.stringify(errorResponse(id, error));
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
