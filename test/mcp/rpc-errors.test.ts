import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { HintgateError } from '../../src/core/errors.js';
import {
  DownstreamError,
  JSON_RPC_CODE_FOR,
  toJsonRpcError,
  toProtocolError,
} from '../../src/mcp/rpc-errors.js';
import { fromClientError } from '../../src/downstream/errors.js';

describe('toJsonRpcError', () => {
  it('relays a server JSON-RPC error exactly', () => {
    const rpc = { code: -32099, message: 'raised', data: { x: 1 } };
    expect(toJsonRpcError(new DownstreamError('DOWNSTREAM_PROTOCOL', 's', 'ignored', rpc))).toBe(
      rpc,
    );
  });

  it('maps hintgate codes through one table, with the code and server in data', () => {
    expect(
      toJsonRpcError(new HintgateError('UNKNOWN_TOOL', 'Unknown tool: "x"', { tool: 'x' })),
    ).toEqual({
      code: -32602,
      message: 'Unknown tool: "x"',
      data: { 'dev.hintgate/error': { code: 'UNKNOWN_TOOL', tool: 'x' } },
    });
    expect(
      toJsonRpcError(new DownstreamError('DOWNSTREAM_TIMEOUT', 'slow', 'too slow')),
    ).toMatchObject({
      code: -32001,
      data: { 'dev.hintgate/error': { code: 'DOWNSTREAM_TIMEOUT', server: 'slow' } },
    });
    const codes = new Set(Object.values(JSON_RPC_CODE_FOR));
    for (const reserved of [-32000, -32002, -32020, -32021, -32022, -32042])
      expect(codes.has(reserved)).toBe(false);
  });

  it('does not leak the message of an unexpected error', () => {
    expect(toJsonRpcError(new TypeError('secret internals'))).toEqual({
      code: -32603,
      message: 'Internal error in hintgate',
    });
    expect(toProtocolError(new TypeError('x'))).toBeInstanceOf(ProtocolError);
  });
});

describe('fromClientError', () => {
  it('classifies what the SDK client throws', () => {
    expect(
      fromClientError('s', new SdkError(SdkErrorCode.RequestTimeout, 't'), 'tools/list').code,
    ).toBe('DOWNSTREAM_TIMEOUT');
    expect(
      fromClientError('s', new SdkError(SdkErrorCode.ConnectionClosed, 'c'), 'tools/list').code,
    ).toBe('DOWNSTREAM_CRASHED');
    const relayed = fromClientError('s', new ProtocolError(-32602, 'bad', { f: 1 }), 'tools/call');
    expect(relayed.rpc).toEqual({ code: -32602, message: 'bad', data: { f: 1 } });
    expect(fromClientError('s', new SdkError(SdkErrorCode.NotConnected, 'n'), 'x').code).toBe(
      'DOWNSTREAM_UNAVAILABLE',
    );
    // Recognised by its code, never by its text.
    expect(fromClientError('s', new Error('Not connected'), 'x').code).toBe('DOWNSTREAM_PROTOCOL');
  });
});
