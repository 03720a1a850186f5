import { describe, expect, it } from 'vitest';
import type { ListedTool } from '../../src/gateway/last-listing.js';
import { relist } from '../../src/gateway/last-listing.js';
import type { JsonObject } from '../../src/mcp/json-rpc.js';

const tool = (name: string, description = `${name} tool`): JsonObject => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
});

/** A `make` that records the names it was asked for. */
function maker(): { made: string[]; make: (tool: JsonObject) => ListedTool | undefined } {
  const made: string[] = [];
  return {
    made,
    make: (listed) => {
      const name = listed['name'];
      if (typeof name !== 'string' || name === '') return undefined;
      made.push(name);
      return { name, tool: listed };
    },
  };
}

describe('relist', () => {
  it('makes items of the changed tools only, wherever the unchanged ones moved', () => {
    const first = maker();
    const last = relist([tool('a'), tool('b'), tool('c')], undefined, first.make);
    expect(first.made).toEqual(['a', 'b', 'c']);
    const second = maker();
    const tools = [tool('new'), tool('c'), tool('a'), tool('b', 'changed')];
    const next = relist(structuredClone(tools), last, second.make);
    expect(second.made).toEqual(['new', 'b']);
    expect(next.items.map((item) => item.name)).toEqual(['new', 'c', 'a', 'b']);
    expect(next.items[1]).toBe(last.items[2]);
    expect(next.items[2]).toBe(last.items[0]);
    expect(next.get('b')?.tool['description']).toBe('changed');
  });

  it('takes the first of a name listed twice, also where the listing follows the last one', () => {
    const { make } = maker();
    const last = relist([tool('a'), tool('b')], undefined, make);
    const next = relist([tool('b', 'first'), tool('b'), tool('a')], last, make);
    expect(next.items.map((item) => item.tool['description'])).toEqual(['first', 'a tool']);
    const again = relist([tool('a'), tool('b'), tool('a', 'second')], last, make);
    expect(again.items.map((item) => item.tool['description'])).toEqual(['a tool', 'b tool']);
  });
});
