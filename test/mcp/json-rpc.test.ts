import { describe, expect, it } from 'vitest';
import { invalidMessageReason } from '../../src/mcp/json-rpc.js';

describe('invalidMessageReason', () => {
  it.each([
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, result: {} },
    { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
  ])('accepts %j', (message) => {
    expect(invalidMessageReason(message)).toBeUndefined();
  });

  it.each([
    [42, 'expected a JSON object'],
    [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], 'batches are not supported'],
    [{ id: 1, method: 'ping' }, 'expected "jsonrpc": "2.0"'],
    [{ jsonrpc: '2.0', id: {}, method: 'ping' }, '"id" must be a string or an integer'],
    [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, '"id" must be a string or an integer'],
    [{ jsonrpc: '2.0', id: 1e308, method: 'ping' }, 'below 2^53'],
    [JSON.parse('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}'), 'below 2^53'],
    [{ jsonrpc: '2.0', id: 1, method: '' }, '"method" must be a non-empty string'],
    [{ jsonrpc: '2.0', id: 1, method: 'x', params: [1] }, '"params" must be an object'],
    [{ jsonrpc: '2.0', id: null, method: 'x' }, 'a request id must not be null'],
    [{ jsonrpc: '2.0' }, 'expected "method"'],
    [
      { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
      'exactly one of "result" and "error"',
    ],
    [{ jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } }, 'numeric "code"'],
  ])('rejects %j: %s', (message, reason) => {
    expect(invalidMessageReason(message)).toContain(reason);
  });
});
