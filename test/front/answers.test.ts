import { describe, expect, it } from 'vitest';
import { rememberJson } from '../../src/core/util/json-text.js';
import { resultLine, stampedJson } from '../../src/front/answers.js';
import { emptySession } from '../../src/front/session.js';
import { SERVER_INFO_META_KEY, stampModernResult } from '../../src/mcp/era.js';
import type { JsonObject } from '../../src/mcp/json-rpc.js';

const serverInfo = { name: 'hintgate', version: '1.2.3' };

describe('stampedJson', () => {
  it.each<[string, JsonObject]>([
    ['an empty result', {}],
    ['content only', { content: [{ type: 'text', text: 'hi "there"' }] }],
    ['an error result', { content: [], isError: true, structuredContent: { a: 1 } }],
    ['its own _meta', { content: [], _meta: { 'vendor.test/x': 1 } }],
    ['a server identity already', { content: [], _meta: { [SERVER_INFO_META_KEY]: { n: 1 } } }],
    ['a resultType', { resultType: 'input_required', inputRequests: {} }],
    ['a complete resultType', { resultType: 'complete', content: [] }],
  ])('writes %s exactly as the stamped result serializes', (_what, result) => {
    const before = JSON.stringify(result);
    expect(stampedJson(result, serverInfo)).toBe(
      JSON.stringify(stampModernResult(result, serverInfo)),
    );
    expect(JSON.stringify(result)).toBe(before);
  });
});

describe('resultLine', () => {
  it('reuses the JSON a result was already serialized to (by the result cache)', () => {
    const result = { content: [{ type: 'text', text: 'kept' }] };
    // Equivalent text that JSON.stringify would not write: only reuse puts it in the line.
    const json = JSON.stringify(result, null, 1);
    rememberJson(result, json);
    const legacy = { ...emptySession('s', 'stdio'), era: 'legacy' as const };
    expect(resultLine(7, result, legacy, serverInfo)).toBe(
      `{"jsonrpc":"2.0","id":7,"result":${json}}`,
    );
    const modern = { ...legacy, era: 'modern' as const };
    expect(JSON.parse(resultLine(8, result, modern, serverInfo))).toEqual({
      jsonrpc: '2.0',
      id: 8,
      result: stampModernResult(result, serverInfo),
    });
  });

  it('serializes a result nothing serialized before', () => {
    const legacy = { ...emptySession('s', 'stdio'), era: 'legacy' as const };
    const result = { content: [], isError: true };
    expect(resultLine('a', result, legacy, serverInfo)).toBe(
      `{"jsonrpc":"2.0","id":"a","result":${JSON.stringify(result)}}`,
    );
  });
});
