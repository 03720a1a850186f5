import { describe, expect, it } from 'vitest';
import { stampedJson } from '../../src/front/answers.js';
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
