import { describe, expect, it } from 'vitest';
import { modernEnvelope, neutralResult, stampModernResult } from '../../src/mcp/era.js';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

describe('neutralResult', () => {
  it('drops a completed resultType and the downstream identity, keeping other _meta', () => {
    expect(
      neutralResult({
        content: [],
        resultType: 'complete',
        _meta: { [SERVER_INFO]: { name: 'down' }, 'x/y': 1 },
      }),
    ).toEqual({ content: [], _meta: { 'x/y': 1 } });
    expect(neutralResult({ content: [], _meta: { [SERVER_INFO]: { name: 'down' } } })).toEqual({
      content: [],
    });
  });

  it('keeps input_required results as they are, and returns other results untouched', () => {
    const input = { resultType: 'input_required', inputRequests: {}, requestState: 's' };
    expect(neutralResult(input)).toEqual(input);
    const plain = { content: [{ type: 'text', text: 'x' }] };
    expect(neutralResult(plain)).toBe(plain);
  });
});

describe('stampModernResult', () => {
  it('adds resultType complete and the serving identity, keeping the result _meta', () => {
    expect(
      stampModernResult({ content: [], _meta: { a: 1 } }, { name: 'hintgate', version: '1' }),
    ).toEqual({
      content: [],
      resultType: 'complete',
      _meta: { a: 1, [SERVER_INFO]: { name: 'hintgate', version: '1' } },
    });
    expect(
      stampModernResult({ resultType: 'input_required' }, { name: 'h', version: '1' })[
        'resultType'
      ],
    ).toBe('input_required');
  });

  it('builds the 2026 envelope', () => {
    expect(modernEnvelope({ name: 'c', version: '1' }, { elicitation: {} })).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    });
  });
});
