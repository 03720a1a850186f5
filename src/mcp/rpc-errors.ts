import { ProtocolError } from '@modelcontextprotocol/client';
import type { HintgateErrorCode } from '../core/errors.js';
import { HintgateError } from '../core/errors.js';
import type { RpcErrorObject } from './json-rpc.js';
import { RPC_ERROR } from './json-rpc.js';

/** The key under which hintgate's own error details travel in a JSON-RPC error's `data`. */
export const ERROR_DATA_KEY = 'dev.hintgate/error';

/**
 * A failure involving one downstream server. `rpc` holds the downstream's own JSON-RPC
 * error when the server answered with one: it is relayed to the client unchanged.
 */
export class DownstreamError extends HintgateError {
  constructor(
    code: HintgateErrorCode,
    readonly server: string,
    message: string,
    readonly rpc?: RpcErrorObject,
    options?: ErrorOptions,
  ) {
    super(code, message, { server }, options);
  }
}

/**
 * The one table from hintgate error codes to JSON-RPC error codes. Codes in the
 * implementation-defined range (-32000 to -32099) avoid the ones MCP reserves (-32000
 * connection closed, -32002 resource not found, -32020 to -32022 protocol version,
 * -32042 URL elicitation).
 */
export const JSON_RPC_CODE_FOR: Readonly<Record<HintgateErrorCode, number>> = {
  UNKNOWN_TOOL: RPC_ERROR.invalidParams,
  INVALID_ARGUMENTS: RPC_ERROR.invalidParams,
  INPUT_INVALID: RPC_ERROR.invalidParams,
  NOT_FOUND: RPC_ERROR.invalidParams,
  CONFIG_INVALID: RPC_ERROR.internalError,
  DOWNSTREAM_TIMEOUT: -32001,
  DOWNSTREAM_UNAVAILABLE: -32010,
  DOWNSTREAM_CRASHED: -32011,
  DOWNSTREAM_PROTOCOL: -32012,
  FORBIDDEN: -32013,
  CONFLICT: -32014,
  STORE_UNAVAILABLE: -32015,
  STORE_LOCKED: -32015,
  STORE_VERSION: -32015,
  PIPELINE: RPC_ERROR.internalError,
  INTERNAL: RPC_ERROR.internalError,
};

/**
 * The JSON-RPC error object for anything thrown on a request's path: a downstream's own
 * error is relayed as it came; a {@link HintgateError} is mapped through
 * {@link JSON_RPC_CODE_FOR} with its code and server in `data`; anything else is an internal
 * error whose message is not leaked.
 */
export function toJsonRpcError(error: unknown): RpcErrorObject {
  if (error instanceof DownstreamError && error.rpc !== undefined) return error.rpc;
  if (error instanceof HintgateError) {
    return {
      code: JSON_RPC_CODE_FOR[error.code],
      message: error.message,
      data: { [ERROR_DATA_KEY]: { code: error.code, ...error.details } },
    };
  }
  if (error instanceof ProtocolError) {
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  }
  return { code: RPC_ERROR.internalError, message: 'Internal error in hintgate' };
}

/** {@link toJsonRpcError} as the SDK's `ProtocolError`, for throwing from SDK handlers. */
export function toProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const rpc = toJsonRpcError(error);
  return new ProtocolError(rpc.code, rpc.message, rpc.data);
}
