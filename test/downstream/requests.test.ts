import { describe, expect, it } from 'vitest';
import {
  declaresHeaders,
  shapeForEra,
  withClientCapabilities,
  withLogLevel,
  withoutClientEnvelope,
} from '../../src/downstream/requests.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '../../src/mcp/era.js';

const envelope = {
  [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
  [CLIENT_INFO_META_KEY]: { name: 'their-client', version: '1' },
  [CLIENT_CAPABILITIES_META_KEY]: { sampling: {} },
  [LOG_LEVEL_META_KEY]: 'warning',
  progressToken: 7,
};

describe("a client's request shaped for a server", () => {
  it("never forwards the client's own envelope; a 2025 server gets no log level either", () => {
    const params = { name: 't', _meta: envelope };
    expect(withoutClientEnvelope(params, 'modern')).toEqual({
      name: 't',
      _meta: { [LOG_LEVEL_META_KEY]: 'warning', progressToken: 7 },
    });
    expect(withoutClientEnvelope(params, 'legacy')).toEqual({
      name: 't',
      _meta: { progressToken: 7 },
    });
  });

  it('asks a 2026 server for log messages at the level the client wants, unless the request does', () => {
    expect(withLogLevel({ name: 't' }, 'debug')).toEqual({
      name: 't',
      _meta: { [LOG_LEVEL_META_KEY]: 'debug' },
    });
    const asked = { name: 't', _meta: { [LOG_LEVEL_META_KEY]: 'error' } };
    expect(withLogLevel(asked, 'debug')).toBe(asked);
    const none = { name: 't' };
    expect(withLogLevel(none, undefined)).toBe(none);
  });

  it('tells a 2026 server the capabilities of the client the call is made for', () => {
    expect(
      withClientCapabilities({ name: 't', _meta: { progressToken: 1 } }, { roots: {} }),
    ).toEqual({
      name: 't',
      _meta: { progressToken: 1, [CLIENT_CAPABILITIES_META_KEY]: { roots: {} } },
    });
  });

  it.each([
    ['no _meta', { name: 't', arguments: { a: 1 } }],
    ['a _meta that is not an object', { name: 't', _meta: 'odd' }],
    ['an empty _meta', { name: 't', _meta: {} }],
    ['only a progress token', { name: 't', _meta: { progressToken: 3 } }],
    ['a whole envelope', { name: 't', _meta: envelope }],
    ['only envelope keys', { name: 't', _meta: { [CLIENT_INFO_META_KEY]: { name: 'c' } } }],
    [
      'vendor keys around the envelope',
      {
        name: 't',
        _meta: { 'vendor.test/a': 1, [PROTOCOL_VERSION_META_KEY]: 'x', 'vendor.test/b': [2] },
      },
    ],
    ['its own log level', { name: 't', _meta: { [LOG_LEVEL_META_KEY]: 'error', x: 1 } }],
  ])('shapes a request with %s in one copy, as the three steps do', (_what, params) => {
    const levels = [undefined, 'debug'];
    const capabilities = [undefined, { roots: {} }];
    for (const era of ['legacy', 'modern'] as const)
      for (const level of levels)
        for (const declared of capabilities) {
          const stepwise = withoutClientEnvelope(params, era);
          const expected =
            era === 'modern'
              ? withClientCapabilities(withLogLevel(stepwise, level), declared)
              : stepwise;
          const shaped = shapeForEra(params, era, level, declared);
          expect(shaped).toEqual(expected);
          // Same members in the same order, and the request itself untouched.
          expect(JSON.stringify(shaped)).toBe(JSON.stringify(expected));
          if (expected === params) expect(shaped).toBe(params);
        }
  });

  it('knows a tool that declares parameters for Mcp-Param headers', () => {
    const region = { type: 'string', 'x-mcp-header': 'Region' };
    expect(
      declaresHeaders({ name: 'a', inputSchema: { type: 'object', properties: { region } } }),
    ).toBe(true);
    expect(declaresHeaders({ name: 'b', inputSchema: { type: 'object' } })).toBe(false);
  });
});
