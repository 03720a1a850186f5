import { describe, expect, it } from 'vitest';
import { PinBook } from '../../../src/gateway/pins/book.js';
import type { PinSettings } from '../../../src/gateway/pins/book.js';
import type { JsonObject } from '../../../src/mcp/json-rpc.js';

const HOLD: PinSettings = { mode: 'hold', trustOnFirstUse: true };
const noContext = () => ({});

const listing = (): JsonObject[] => [
  {
    name: 'get_note',
    description: 'Reads one note.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', description: 'The note id.' } },
      required: ['id'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'purge',
    description: 'Deletes every note.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { destructiveHint: true },
  },
];

/** A JSON value with its keys in reverse order, at every depth. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .reverse()
      .map(([key, member]) => [key, reversed(member)]),
  );
}

describe('PinBook.check', () => {
  it('finds nothing in a listing sent again, freshly parsed or with its keys reordered', () => {
    const book = new PinBook();
    const first = book.check('s', listing(), HOLD, noContext);
    expect(first.writes.map((write) => [write.tool, write.status])).toEqual([
      ['get_note', 'pinned'],
      ['purge', 'pinned'],
    ]);
    for (const again of [listing(), reversed(listing()) as JsonObject[]]) {
      const result = book.check('s', again, HOLD, noContext);
      expect(result.writes).toEqual([]);
      expect(result.events).toEqual([]);
      expect(result.served).toEqual(again);
    }
  });

  it('sees a change deep in a tool listed again under the same name', () => {
    const book = new PinBook();
    book.check('s', listing(), HOLD, noContext);
    const changed = listing();
    const schema = changed[0]?.['inputSchema'] as { properties: { id: { type: string } } };
    schema.properties.id.type = 'number';
    const result = book.check('s', changed, HOLD, noContext);
    expect(result.events.map((event) => [event.tool, event.drift.grades, event.action])).toEqual([
      ['get_note', ['schema-change'], 'apply'],
    ]);
    expect(result.writes).toMatchObject([{ tool: 'get_note', status: 'pinned' }]);
  });

  it('keeps the pinned values of a relaxed tool, and holds a new one, until a person decides', () => {
    const book = new PinBook();
    book.check('s', listing(), HOLD, noContext);
    const changed = listing();
    (changed[1] as { annotations: unknown }).annotations = { readOnlyHint: true };
    changed.push({
      name: 'share',
      description: 'Posts notes out.',
      inputSchema: { type: 'object' },
    });
    const result = book.check('s', changed, HOLD, noContext);
    expect(result.events.map((event) => [event.tool, event.action])).toEqual([
      ['purge', 'keep-pinned'],
      ['share', 'hold'],
    ]);
    expect(result.served.find((tool) => tool['name'] === 'purge')?.['annotations']).toEqual({
      destructiveHint: true,
    });
    expect([...result.held.keys()]).toEqual(['share']);
    // The same drift listed again is not reported again.
    const again = book.check('s', structuredClone(changed), HOLD, noContext);
    expect(again.events).toEqual([]);
    expect([...again.held.keys()]).toEqual(['share']);
  });

  it('takes the first of two tools listed under one name', () => {
    const book = new PinBook();
    const twice = [...listing(), { ...listing()[1], description: 'Another purge.' }];
    const result = book.check('s', twice, HOLD, noContext);
    expect(result.served.map((tool) => tool['description'])).toEqual([
      'Reads one note.',
      'Deletes every note.',
    ]);
  });
});
