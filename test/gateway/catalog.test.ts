import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/gateway/catalog.js';
import { TOOL_META_KEY } from '../../src/gateway/catalog-entry.js';
import type { Wire } from '../helpers/wire.js';

const untrusted = { trust: 'untrusted' as const };
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
  ...extra,
});

describe('Catalog', () => {
  it('reads a listing ahead without showing it, and does not read its tools again', () => {
    const catalog = new Catalog();
    const read: string[] = [];
    const counting = {
      trust: 'untrusted' as const,
      // Counts the tools read; no answer: inference from their words, as for any server.
      infer: (listed: Record<string, unknown>) => {
        read.push(String(listed['name']));
        return undefined;
      },
    };
    const listing = [tool('a'), tool('b')];
    catalog.prepare('s', listing, counting);
    expect(read).toEqual(['a', 'b']);
    expect(catalog.size).toBe(0);
    // The update serves the same objects, one changed: only that one is read.
    const changed = tool('b', { description: 'now another tool' });
    expect(catalog.setServer('s', [listing[0] as never, changed], counting).changed).toBe(true);
    expect(read).toEqual(['a', 'b', 'b']);
    expect(catalog.size).toBe(2);
    // What was read ahead is used once: a later update reads against the catalog itself.
    catalog.setServer('s', [listing[0] as never, changed], counting);
    expect(read).toEqual(['a', 'b', 'b']);
  });

  it('finds a tool by flattened name, namespaced name and refId', () => {
    const catalog = new Catalog();
    catalog.setServer('github', [tool('create_issue')], untrusted);
    const entry = catalog.getByFlattenedName('github_create_issue');
    expect(entry).toMatchObject({
      server: 'github',
      name: 'create_issue',
      namespacedName: 'github.create_issue',
    });
    expect(catalog.getByNamespacedName('github.create_issue')).toBe(entry);
    expect(catalog.getByRefId(entry?.refId ?? '')).toBe(entry);
    expect(catalog.resolve('github.create_issue')).toBe(entry);
    expect(catalog.resolve('nope')).toBeUndefined();
  });

  it("names a server's tools under its own prefix, or under their own names", () => {
    const prefixes: Record<string, string | false> = { plain: false, github: 'gh' };
    const catalog = new Catalog({ prefixOf: (server) => prefixes[server] ?? server });
    catalog.setServer('plain', [tool('search'), tool('files.read')], untrusted);
    catalog.setServer('github', [tool('create_issue')], untrusted);
    expect(catalog.listedTools().map((listed) => listed['name'])).toEqual([
      'gh_create_issue',
      'search',
      'files.read',
    ]);
    expect(catalog.resolve('search')?.namespacedName).toBe('plain.search');
    expect(catalog.resolve('plain.search')?.namespacedName).toBe('plain.search');
    expect(catalog.resolve('gh_create_issue')?.namespacedName).toBe('github.create_issue');
    expect(catalog.resolve('github_create_issue')).toBeUndefined();
    expect(catalog.collisions()).toEqual([]);
    catalog.setHeld('plain', new Map([['held', 'held back: approve it']]));
    expect(catalog.heldReason('held')).toBe('held back: approve it');
    catalog.setHeld('github', new Map([['drifted', 'held back too']]));
    expect(catalog.heldReason('gh_drifted')).toBe('held back too');
    expect(catalog.heldReason('github.drifted')).toBe('held back too');
  });

  it('reports tools of two servers that want one name; the first by namespaced name keeps it', () => {
    const catalog = new Catalog({ prefixOf: () => false });
    catalog.setServer('b', [tool('search')], untrusted);
    expect(catalog.collisions()).toEqual([]);
    catalog.setServer('a', [tool('search')], untrusted);
    expect(catalog.collisions()).toMatchObject([
      { name: 'search', kept: 'a.search', renamed: 'b.search' },
    ]);
    expect(catalog.resolve('search')?.server).toBe('a');
    expect(catalog.getByNamespacedName('b.search')?.flattenedName).toMatch(/^search_[0-9a-f]{8}$/);
    catalog.removeServer('a');
    expect(catalog.collisions()).toEqual([]);
    expect(catalog.resolve('search')?.server).toBe('b');
  });

  it('builds what tools/list shows: effective MCP fields in annotations, extensions and provenance in _meta, nothing dropped', () => {
    const catalog = new Catalog();
    catalog.setServer(
      's',
      [
        tool('read_thing', {
          annotations: { readOnlyHint: true, vendorKey: 'v' },
          outputSchema: { type: 'object' },
          icons: [1],
          _meta: { 'their/key': 2 },
        }),
      ],
      { trust: 'untrusted', defaultAnnotations: { tags: ['team'] } },
    );
    const listed = catalog.listedTools()[0] as Wire;
    expect(listed).toMatchObject({
      name: 's_read_thing',
      description: 'read_thing tool',
      outputSchema: { type: 'object' },
      icons: [1],
    });
    expect(listed.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      vendorKey: 'v',
    });
    expect(typeof listed.annotations.openWorldHint).toBe('boolean');
    expect(listed.annotations.tags).toBeUndefined();
    expect(listed._meta['their/key']).toBe(2);
    expect(listed._meta[TOOL_META_KEY]).toMatchObject({
      server: 's',
      name: 'read_thing',
      namespacedName: 's.read_thing',
      extensions: { tags: ['team'] },
      sources: { readOnlyHint: 'declared', tags: 'server-default' },
    });
    // Kept small: no reasons in the listing, no empty conflicts.
    expect(listed._meta[TOOL_META_KEY].conflicts).toBeUndefined();
    expect(listed._meta[TOOL_META_KEY].reasons).toBeUndefined();
  });

  it('ignores declared hints of the wrong type for the effective values, but keeps them visible', () => {
    const catalog = new Catalog();
    catalog.setServer('s', [tool('get_x', { annotations: { readOnlyHint: 'yes' } })], untrusted);
    const entry = catalog.resolve('s_get_x');
    expect(entry?.declared).toEqual({ readOnlyHint: 'yes' });
    expect(typeof entry?.effective.annotations.readOnlyHint).toBe('boolean');
    expect(entry?.effective.provenance['readOnlyHint']?.source).not.toBe('declared');
  });

  it('resolves flattened-name collisions between servers deterministically, whatever the order', () => {
    const one = new Catalog();
    one.setServer('a', [tool('b_c')], untrusted);
    one.setServer('a_b', [tool('c')], untrusted);
    const two = new Catalog();
    two.setServer('a_b', [tool('c')], untrusted);
    two.setServer('a', [tool('b_c')], untrusted);
    const names = (catalog: Catalog) =>
      catalog.entries().map((entry) => [entry.namespacedName, entry.flattenedName]);
    expect(names(one)).toEqual(names(two));
    expect(new Set(one.entries().map((entry) => entry.flattenedName)).size).toBe(2);
    expect(one.getByFlattenedName('a_b_c')?.namespacedName).toBe('a.b_c');
  });

  it('updates one server without rebuilding the others, and reports no change when nothing changed', () => {
    const catalog = new Catalog();
    catalog.setServer('a', [tool('get_one'), tool('get_two')], untrusted);
    catalog.setServer('b', [tool('list_things')], untrusted);
    const before = catalog.getByFlattenedName('b_list_things');
    const version = catalog.version;
    expect(catalog.setServer('a', [tool('get_one'), tool('get_two')], untrusted).changed).toBe(
      false,
    );
    expect(catalog.version).toBe(version);
    expect(catalog.setServer('a', [tool('get_one')], untrusted).changed).toBe(true);
    expect(catalog.getByFlattenedName('b_list_things')).toBe(before);
    expect(catalog.resolve('a_get_two')).toBeUndefined();
    expect(catalog.size).toBe(2);
    expect(catalog.version).toBe(version + 1);
  });

  it('keeps the entry of a tool listed again equal, keys in any order, and reads a changed one anew', () => {
    const listing = (): Record<string, unknown>[] => [
      tool('get_note', {
        inputSchema: {
          type: 'object',
          properties: { filter: { type: 'object', properties: { tag: { type: 'string' } } } },
        },
        annotations: { readOnlyHint: true },
        _meta: { version: '1' },
      }),
      tool('purge', { annotations: { destructiveHint: true } }),
    ];
    const catalog = new Catalog();
    catalog.setServer('a', listing(), untrusted);
    const [note, purge] = catalog.entriesOf('a');
    const reordered = listing().map((item) => Object.fromEntries(Object.entries(item).reverse()));
    expect(catalog.setServer('a', reordered, untrusted).changed).toBe(false);
    expect(catalog.entriesOf('a')).toEqual([note, purge]);
    expect(catalog.entriesOf('a')[0]).toBe(note);
    // The earlier objects themselves (as the pin book serves unchanged tools).
    expect(catalog.setServer('a', [note?.tool ?? {}, purge?.tool ?? {}], untrusted).changed).toBe(
      false,
    );
    const edits: ((tools: Record<string, unknown>[]) => void)[] = [
      (tools) => {
        const schema = tools[0]?.['inputSchema'] as {
          properties: { filter: { properties: { tag: { type: string } } } };
        };
        schema.properties.filter.properties.tag.type = 'number';
      },
      (tools) => {
        (tools[0] as { annotations: unknown }).annotations = { readOnlyHint: false };
      },
      (tools) => {
        (tools[0] as { _meta: unknown })._meta = { version: '2' };
      },
      (tools) => {
        (tools[0] as { icons: unknown }).icons = [{ src: 'https://example.com/n.png' }];
      },
    ];
    for (const edit of edits) {
      catalog.setServer('a', listing(), untrusted);
      const [before, kept] = catalog.entriesOf('a');
      const changed = listing();
      edit(changed);
      expect(catalog.setServer('a', changed, untrusted).changed).toBe(true);
      const [after, same] = catalog.entriesOf('a');
      expect(after).not.toBe(before);
      expect(after?.tool).toBe(changed[0]);
      expect(same).toBe(kept);
    }
    catalog.setServer('a', listing(), untrusted);
    expect(catalog.getByFlattenedName('a_get_note')?.declared).toEqual({ readOnlyHint: true });
  });

  it('remembers the tools of a server that went down, and forgets them when it returns', () => {
    const catalog = new Catalog();
    catalog.setServer('a', [tool('get_one')], untrusted);
    expect(catalog.removeServer('a', { remember: true }).changed).toBe(true);
    expect(catalog.resolve('a_get_one')).toBeUndefined();
    expect(catalog.departedServerOf('a_get_one')).toBe('a');
    expect(catalog.departedServerOf('a.get_one')).toBe('a');
    catalog.setServer('a', [tool('get_one')], untrusted);
    expect(catalog.departedServerOf('a_get_one')).toBeUndefined();
    expect(catalog.listedTools()).toHaveLength(1);
  });

  it('keeps the first of two tools a server lists under one name, and skips nameless items', () => {
    const catalog = new Catalog();
    catalog.setServer(
      'a',
      [
        tool('dup', { description: 'first' }),
        tool('dup', { description: 'second' }),
        { description: 'no name' },
      ],
      untrusted,
    );
    expect(catalog.entries().map((entry) => entry.description)).toEqual(['first']);
  });

  it('stays fast and correct with ten thousand tools', () => {
    const catalog = new Catalog();
    for (let server = 0; server < 10; server++) {
      catalog.setServer(
        `s${server}`,
        Array.from({ length: 1000 }, (_, index) => tool(`get_item_${index}`)),
        untrusted,
      );
    }
    expect(catalog.size).toBe(10_000);
    expect(catalog.resolve('s7_get_item_999')?.server).toBe('s7');
    catalog.setServer('s3', [tool('only_one')], untrusted);
    expect(catalog.size).toBe(9001);
    expect(catalog.resolve('s3_get_item_1')).toBeUndefined();
    expect(catalog.resolve('s4_get_item_1')?.server).toBe('s4');
  });
});
