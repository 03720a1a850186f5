/**
 * Raw JSON-RPC 2.0 message shapes and the checks hintgate's own transports run on every
 * line. The SDK's types are stricter than the wire; these accept anything a peer may send so
 * that nothing is dropped on the way through.
 */

/** A JSON-RPC request id. */
export type RpcId = string | number;

/** A JSON object as received: any keys. */
export type JsonObject = Record<string, unknown>;

/** A request as it came off the wire. */
export interface RpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: RpcId;
  readonly method: string;
  readonly params?: JsonObject;
}

/** A notification as it came off the wire. */
export interface RpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: JsonObject;
}

/** The `error` member of an error response. */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A response, successful or not. */
export interface RpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: RpcId | null;
  readonly result?: JsonObject;
  readonly error?: RpcErrorObject;
}

/** Any JSON-RPC message. */
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** The standard JSON-RPC error codes hintgate answers with itself. */
export const RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** Why a parsed value is not a JSON-RPC message, or undefined when it is one. */
export function invalidMessageReason(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return 'expected a JSON object';
  if (Array.isArray(value)) return 'JSON-RPC batches are not supported by MCP';
  const message = value as JsonObject;
  if (message['jsonrpc'] !== '2.0') return 'expected "jsonrpc": "2.0"';
  const id = message['id'];
  const hasId = id !== undefined;
  if (hasId && id !== null && typeof id !== 'string') {
    if (typeof id !== 'number') return '"id" must be a string or an integer';
    // MCP ids are strings or integers; past 2^53 a parsed id is no longer the one sent.
    if (!Number.isSafeInteger(id)) return '"id" must be a string or an integer below 2^53';
  }
  const method = message['method'];
  if (method !== undefined) {
    if (typeof method !== 'string' || method === '') return '"method" must be a non-empty string';
    const params = message['params'];
    if (
      params !== undefined &&
      (params === null || typeof params !== 'object' || Array.isArray(params))
    ) {
      return '"params" must be an object';
    }
    if (id === null) return 'a request id must not be null';
    return undefined;
  }
  if (!hasId) return 'expected "method" (request or notification) or "id" (response)';
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (hasResult === hasError) return 'a response needs exactly one of "result" and "error"';
  if (hasError) {
    const error = message['error'];
    if (error === null || typeof error !== 'object') return '"error" must be an object';
    const { code, message: text } = error as JsonObject;
    if (typeof code !== 'number' || typeof text !== 'string') {
      return '"error" needs a numeric "code" and a string "message"';
    }
  }
  return undefined;
}

/** True for a request (has a method and an id). */
export function isRpcRequest(message: RpcMessage): message is RpcRequest {
  return 'method' in message && 'id' in message && message.id !== undefined;
}

/** True for a notification (has a method, no id). */
export function isRpcNotification(message: RpcMessage): message is RpcNotification {
  return 'method' in message && !('id' in message && message.id !== undefined);
}

/** True for a response (no method). */
export function isRpcResponse(message: RpcMessage): message is RpcResponse {
  return !('method' in message);
}

/** An error response for `id`. */
export function errorResponse(id: RpcId | null, error: RpcErrorObject): RpcResponse {
  return { jsonrpc: '2.0', id, error };
}

/** True when `value` is a plain JSON object. */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
