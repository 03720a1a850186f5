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
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
      completions: {},
      experimental: { 'a/x': { on: true }, 'b/y': {} },
      futureKey: { v: 1 },
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
