import {
  InsufficientScopeError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import { errorMessage } from '../core/errors.js';
import type { RpcErrorObject } from '../mcp/json-rpc.js';
import { DownstreamError } from '../mcp/rpc-errors.js';

/**
 * Turns what an SDK `Client` call threw into a {@link DownstreamError} naming the server:
 * the server's JSON-RPC error is kept for relaying, a timeout or a closed connection gets
 * its own code.
 */
export function fromClientError(server: string, error: unknown, what: string): DownstreamError {
  if (error instanceof DownstreamError) return error;
  if (error instanceof InsufficientScopeError) {
    // The gateway never starts an authorization itself: a wider scope needs a person.
    const scope = error.requiredScope;
    const how =
      scope === undefined
        ? `run \`hintgate auth login ${server}\``
        : `set mcpServers.${server}.oauth.scope to "${scope}" and run \`hintgate auth login ${server}\``;
    return new DownstreamError(
      'DOWNSTREAM_UNAVAILABLE',
      server,
      `server "${server}" refused ${what}: the login's scope is not enough${scope === undefined ? '' : ` (it asks for "${scope}")`}; ${how}`,
      undefined,
      { cause: error },
    );
  }
  if (error instanceof ProtocolError) {
    const rpc: RpcErrorObject =
      error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data };
    return new DownstreamError('DOWNSTREAM_PROTOCOL', server, `${server}: ${error.message}`, rpc, {
      cause: error,
    });
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return new DownstreamError(
        'DOWNSTREAM_TIMEOUT',
        server,
        `server "${server}" did not answer ${what} in time`,
        undefined,
        { cause: error },
      );
    }
    if (error.code === SdkErrorCode.NotConnected) {
      return new DownstreamError(
        'DOWNSTREAM_UNAVAILABLE',
        server,
        `server "${server}" is not connected`,
        undefined,
        { cause: error },
      );
    }
    if (error.code === SdkErrorCode.ConnectionClosed) {
      return new DownstreamError(
        'DOWNSTREAM_CRASHED',
        server,
        `server "${server}" closed the connection during ${what}`,
        undefined,
        { cause: error },
      );
    }
    return new DownstreamError(
      'DOWNSTREAM_PROTOCOL',
      server,
      `server "${server}" failed ${what}: ${error.message}`,
      undefined,
      { cause: error },
    );
  }
  const message = errorMessage(error);
  return new DownstreamError(
    'DOWNSTREAM_PROTOCOL',
    server,
    `server "${server}" failed ${what}: ${message}`,
    undefined,
    { cause: error },
  );
}
