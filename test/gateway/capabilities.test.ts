import { describe, expect, it } from 'vitest';
import { frontCapabilities, frontInstructions } from '../../src/gateway/capabilities.js';

describe('frontCapabilities', () => {
  it('serves the standard capabilities itself and passes the servers other keys through', () => {
    expect(
      frontCapabilities([
        {
          tools: {},
          experimental: { 'a/x': { on: true } },
          futureKey: { v: 1 },
          tasks: { list: {} },
        },
        { experimental: { 'b/y': {}, 'a/x': { on: false } }, futureKey: { v: 2 } },
      ]),
    ).toEqual({
      tools: { listChanged: true, dynamicAnnotations: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
      completions: {},
      experimental: { 'a/x': { on: true }, 'b/y': {} },
      extensions: { 'io.modelcontextprotocol/tool-resolution': {} },
      futureKey: { v: 1 },
    });
  });

  it('declares dynamic annotations and the tool-resolution extension, merging the servers extensions', () => {
    const capabilities = frontCapabilities([
      { extensions: { 'io.modelcontextprotocol/tool-resolution': { future: 1 }, 'x/y': {} } },
      { tools: { dynamicAnnotations: false }, extensions: { 'x/y': { v: 2 } } },
    ]);
    expect(capabilities['tools']).toEqual({ listChanged: true, dynamicAnnotations: true });
    expect(capabilities['extensions']).toEqual({
      'io.modelcontextprotocol/tool-resolution': {},
      'x/y': {},
    });
  });

  it('gathers the servers instructions under their names', () => {
    expect(
      frontInstructions([
        { name: 'a', instructions: 'Use a.' },
        { name: 'b', instructions: undefined },
        { name: 'c', instructions: ' ' },
      ]),
    ).toBe('## a\n\nUse a.');
    expect(frontInstructions([])).toBeUndefined();
  });
});
