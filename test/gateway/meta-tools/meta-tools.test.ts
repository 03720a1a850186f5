import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/gateway/catalog.js';
import { META_TOOLS, META_TOOLS_BY_NAME } from '../../../src/gateway/meta-tools/index.js';
import type { MetaToolContext } from '../../../src/gateway/meta-tools/define.js';
import { ToolsetService } from '../../../src/gateway/toolsets/service.js';
import { NOTE_LIMITS } from '../../../src/core/notes/notes.js';
import { emptySession } from '../../../src/front/session.js';
import type { SessionInfo } from '../../../src/front/session.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../helpers/store.js';
import type { Wire } from '../../helpers/wire.js';

/** The input schema of add-tool-annotation in the tool-annotations requirements, verbatim. */
const REQUIRED_ADD_TOOL_ANNOTATION_SCHEMA = {
  type: 'object',
  properties: {
    toolRef: {
      type: 'object',
      description: 'Reference to the tool (use namespacedName or refId)',
      properties: {
        namespacedName: {
          type: 'string',
          description: "Tool reference by namespaced name (e.g., 'linear.create_issue')",
        },
        refId: {
          type: 'string',
          description: 'Tool reference by unique hash identifier',
        },
      },
    },
    notes: {
      type: 'array',
      description: 'Array of annotations to add to the tool',
      items: {
        type: 'object',
        properties: {
          name: {
            type: 'string',
            description: "Identifier for this annotation (e.g., 'usage-with-project')",
            pattern: '^[a-z0-9-]+$',
          },
          note: {
            type: 'string',
            description: 'The annotation content to help guide LLM usage',
          },
        },
        required: ['name', 'note'],
      },
      minItems: 1,
    },
  },
  required: ['toolRef', 'notes'],
};

const listedOf = (name: string): Wire => META_TOOLS_BY_NAME.get(name)?.entry.listed;

describe('meta tools: definitions', () => {
  it('lists the eight meta tools of the design', () => {
    expect(META_TOOLS.map((tool) => tool.name)).toEqual([
      'list-available-tools',
      'build-toolset',
      'equip-toolset',
      'unequip-toolset',
      'list-saved-toolsets',
      'delete-toolset',
      'get-active-toolset',
      'add-tool-annotation',
    ]);
  });

  it('gives add-tool-annotation exactly the input schema of the requirements', () => {
    const listed = listedOf('add-tool-annotation');
    expect(listed.inputSchema).toEqual(REQUIRED_ADD_TOOL_ANNOTATION_SCHEMA);
    expect(listed.description).toBe(
      'Add contextual annotations to a tool in the current toolset to guide LLM usage',
    );
  });

  it.each([
    ['list-available-tools', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['list-saved-toolsets', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['get-active-toolset', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['delete-toolset', { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
    ['build-toolset', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['equip-toolset', { readOnlyHint: false, destructiveHint: false, idempotentHint: true }],
    ['unequip-toolset', { readOnlyHint: false, destructiveHint: false, idempotentHint: true }],
    ['add-tool-annotation', { readOnlyHint: false, destructiveHint: false, idempotentHint: true }],
  ])('gives %s its own annotations, declared and closed-world', (name, hints) => {
    const listed = listedOf(name);
    expect(listed.annotations).toMatchObject({ ...hints, openWorldHint: false });
    const meta = listed._meta['dev.hintgate/tool'];
    expect(meta.server).toBe('hintgate');
    expect(meta.sources).toMatchObject({
      readOnlyHint: 'declared',
      destructiveHint: 'declared',
      idempotentHint: 'declared',
      openWorldHint: 'declared',
    });
  });

  it('gives every other meta tool a closed input schema', () => {
    for (const tool of META_TOOLS) {
      if (tool.name === 'add-tool-annotation') continue;
      expect(tool.entry.listed['inputSchema']).toMatchObject({
        type: 'object',
        additionalProperties: false,
      });
    }
  });
});

describe('meta tools: calls', () => {
  let store: Store;
  let service: ToolsetService;
  const catalog = new Catalog();
  const session: SessionInfo = { ...emptySession('s1', 'stdio'), era: 'legacy' };
  const ctx = (who: SessionInfo = session): MetaToolContext => ({
    session: who,
    toolsets: service,
    catalog,
    signal: new AbortController().signal,
  });
  const call = async (name: string, args: unknown, who?: SessionInfo): Promise<Wire> =>
    META_TOOLS_BY_NAME.get(name)?.call(args, ctx(who));
  const text = (result: Wire): string => String(result.content[0].text);

  beforeAll(async () => {
    catalog.setServer(
      'linear',
      [
        {
          name: 'create_issue',
          description: 'Creates a new issue in Linear',
          inputSchema: { type: 'object' },
        },
        {
          name: 'search_projects',
          description: 'Searches projects',
          inputSchema: { type: 'object' },
        },
      ],
      { trust: 'untrusted' },
    );
    store = await openTestStore();
    service = new ToolsetService({
      store,
      catalog,
      configurationMode: 'always',
      localTools: META_TOOLS,
      notify: () => undefined,
    });
    await service.start();
  });

  afterAll(async () => {
    service.close();
    await store.close();
  });

  it('refuses add-tool-annotation while no toolset is equipped', async () => {
    const result = await call('add-tool-annotation', {
      toolRef: { namespacedName: 'linear.create_issue' },
      notes: [{ name: 'a', note: 'b' }],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no toolset is equipped; equip one with equip-toolset/);
  });

  it('builds and equips a toolset, refusing references that resolve to nothing', async () => {
    const bad = await call('build-toolset', {
      name: 'linear',
      tools: [{ namespacedName: 'linear.nope' }, { refId: 'ffffffffffffffff' }],
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('tools[0]: no tool is named "linear.nope"');
    expect(text(bad)).toContain('tools[1]: no tool has refId "ffffffffffffffff"');
    const both = await call('build-toolset', {
      name: 'linear',
      tools: [{ namespacedName: 'linear.create_issue', server: 'linear' }],
    });
    expect(text(both)).toContain('tools[0]: give exactly one of namespacedName, refId, server');
    const badName = await call('build-toolset', {
      name: 'Bad Name',
      tools: [{ server: 'linear' }],
    });
    expect(text(badName)).toMatch(/^build-toolset: invalid arguments: name: must be lowercase/);
    const built = await call('build-toolset', {
      name: 'linear',
      tools: [{ namespacedName: 'linear.create_issue' }],
      equip: true,
    });
    expect(built.isError).toBeUndefined();
    expect(built.structuredContent).toEqual({
      toolset: 'linear',
      members: 1,
      equipped: true,
      tools: 1,
    });
    const again = await call('build-toolset', { name: 'linear', tools: [{ server: 'linear' }] });
    expect(text(again)).toContain('toolset "linear" already exists');
  });

  it('adds notes, skipping a name that exists with a warning, and rejects every bad input clearly', async () => {
    const added = await call('add-tool-annotation', {
      toolRef: { namespacedName: 'linear.create_issue' },
      notes: [
        { name: 'team-selection', note: 'Ask which team first.' },
        { name: 'label-convention', note: "bug → 'bug' label" },
      ],
    });
    expect(added.structuredContent.added.map((note: Wire) => String(note.name))).toEqual([
      'team-selection',
      'label-convention',
    ]);
    const refId = catalog.getByNamespacedName('linear.create_issue')?.refId;
    const duplicate = await call('add-tool-annotation', {
      toolRef: { refId },
      notes: [
        { name: 'team-selection', note: 'again' },
        { name: 'new-one', note: 'fresh' },
      ],
    });
    expect(duplicate.isError).toBeUndefined();
    expect(duplicate.structuredContent.added.map((note: Wire) => String(note.name))).toEqual([
      'new-one',
    ]);
    expect(duplicate.structuredContent.skipped).toEqual([
      expect.objectContaining({ name: 'team-selection' }),
    ]);
    expect(text(duplicate)).toMatch(/Warning: note "team-selection" already exists/);

    const cases: [unknown, RegExp][] = [
      [
        { toolRef: { namespacedName: 'linear.nope' }, notes: [{ name: 'a', note: 'b' }] },
        /cannot resolve tool linear\.nope/,
      ],
      [
        {
          toolRef: { namespacedName: 'linear.search_projects' },
          notes: [{ name: 'a', note: 'b' }],
        },
        /linear\.search_projects is not in the equipped toolset "linear"/,
      ],
      [
        { toolRef: {}, notes: [{ name: 'a', note: 'b' }] },
        /toolRef needs a namespacedName or a refId/,
      ],
      [
        {
          toolRef: { namespacedName: 'linear.create_issue' },
          notes: [{ name: 'Bad_Name', note: 'b' }],
        },
        /notes\[0\]\.name: must match \^\[a-z0-9-\]\+\$/,
      ],
      [
        {
          toolRef: { namespacedName: 'linear.create_issue' },
          notes: [{ name: 'long', note: 'x'.repeat(NOTE_LIMITS.noteLength + 1) }],
        },
        /notes\[0\]: note "long" is 2001 characters long; the limit is 2000/,
      ],
      [
        { toolRef: { namespacedName: 'linear.create_issue' }, notes: [] },
        /notes: must hold at least one note/,
      ],
      [{ notes: [{ name: 'a', note: 'b' }] }, /toolRef: /],
    ];
    for (const [args, message] of cases) {
      const result = await call('add-tool-annotation', args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(text(result)).toMatch(message);
    }
    const many = Array.from({ length: NOTE_LIMITS.notesPerTool }, (_, index) => ({
      name: `n-${index}`,
      note: 'one of many',
    }));
    const tooMany = await call('add-tool-annotation', {
      toolRef: { namespacedName: 'linear.create_issue' },
      notes: many,
    });
    expect(tooMany.isError).toBe(true);
    expect(text(tooMany)).toMatch(/would have 23 notes; the limit is 20 per tool/);
    // Nothing of a refused call was saved.
    expect(await store.listNotes('linear')).toHaveLength(3);
  });

  it('reports the active toolset, lists the saved ones, and unequips', async () => {
    const active = await call('get-active-toolset', {});
    expect(active.structuredContent).toMatchObject({
      equipped: 'linear',
      tools: [
        {
          name: 'linear_create_issue',
          namespacedName: 'linear.create_issue',
          notes: [
            { name: 'team-selection', note: 'Ask which team first.' },
            { name: 'label-convention', note: "bug → 'bug' label" },
            { name: 'new-one', note: 'fresh' },
          ],
        },
      ],
      orphans: { members: [], notes: [], overrides: [] },
    });
    const saved = await call('list-saved-toolsets', {});
    expect(saved.structuredContent.toolsets).toEqual([
      expect.objectContaining({ name: 'linear', members: 1, notes: 3, equipped: true }),
    ]);
    const other: SessionInfo = { ...emptySession('s2', 'stdio'), era: 'legacy' };
    expect((await call('get-active-toolset', {}, other)).structuredContent.equipped).toBeNull();
    expect((await call('unequip-toolset', {})).structuredContent).toEqual({ unequipped: 'linear' });
    expect((await call('unequip-toolset', {})).structuredContent).toEqual({ unequipped: null });
    const unknown = await call('equip-toolset', { name: 'nope' });
    expect(text(unknown)).toMatch(/toolset "nope" does not exist; saved toolsets: linear/);
    const extra = await call('equip-toolset', { name: 'linear', extra: 1 });
    expect(text(extra)).toMatch(/invalid arguments: Unrecognized key: "extra"/);
  });

  it('lists available tools by server and text, with paging', async () => {
    const page = await call('list-available-tools', { search: 'issue', limit: 1 });
    expect(page.structuredContent).toMatchObject({
      total: 1,
      tools: [{ namespacedName: 'linear.create_issue', name: 'linear_create_issue' }],
    });
    const all = await call('list-available-tools', { limit: 1 });
    expect(all.structuredContent).toMatchObject({ total: 2, nextOffset: 1 });
    const bad = await call('list-available-tools', { limit: 0 });
    expect(text(bad)).toMatch(/limit: must be at least 1/);
  });

  it('deletes a toolset only when confirmed', async () => {
    await call('equip-toolset', { name: 'linear' });
    const unconfirmed = await call('delete-toolset', { name: 'linear' });
    expect(unconfirmed.isError).toBe(true);
    expect(text(unconfirmed)).toMatch(/confirm: must be true/);
    const deleted = await call('delete-toolset', { name: 'linear', confirm: true });
    expect(deleted.structuredContent).toEqual({ deleted: 'linear', wasEquipped: true });
    expect(service.equippedName(session)).toBeUndefined();
    const missing = await call('delete-toolset', { name: 'linear', confirm: true });
    expect(text(missing)).toMatch(/toolset "linear" does not exist/);
  });
});
