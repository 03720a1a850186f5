import { describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/gateway/catalog.js';
import { TOOL_META_KEY } from '../../../src/gateway/catalog-entry.js';
import { TOOLSET_META_KEY, ToolView } from '../../../src/gateway/toolsets/view.js';
import type { AnnotationOverride, Toolset } from '../../../src/store/types.js';
import type { Wire } from '../../helpers/wire.js';

const untrusted = { trust: 'untrusted' as const };
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
  ...extra,
});

function catalogOf(): Catalog {
  const catalog = new Catalog();
  catalog.setServer(
    'linear',
    [
      tool('create_issue', { description: 'Creates a new issue in Linear' }),
      tool('list_issues', { annotations: { readOnlyHint: true } }),
      tool('no_description', { description: undefined }),
    ],
    untrusted,
  );
  catalog.setServer('files', [tool('read_file'), tool('delete_file')], untrusted);
  return catalog;
}

const NOW = '2026-01-01T00:00:00.000Z';

function toolset(partial: Partial<Toolset> & { name: string }): Toolset {
  return {
    description: '',
    createdAt: NOW,
    updatedAt: NOW,
    revision: 1,
    members: [],
    notes: [],
    overrides: [],
    rules: [],
    ...partial,
  };
}

function viewOf(
  catalog: Catalog,
  set: Toolset | undefined,
  globalOverrides: readonly AnnotationOverride[] = [],
): ToolView {
  return new ToolView({
    key: { catalogVersion: catalog.version, toolset: set, globalOverrides, localTools: false },
    catalog,
    localTools: [],
  });
}

const note = (namespacedName: string, name: string, text: string) => ({
  tool: { namespacedName },
  name,
  note: text,
  createdAt: NOW,
  updatedAt: NOW,
});

describe('ToolView', () => {
  it('shows the whole catalog unchanged, byte for byte, without a toolset, notes or overrides', () => {
    const catalog = catalogOf();
    const view = viewOf(catalog, undefined);
    expect(view.listed).toBe(catalog.listedTools());
    expect(view.meta).toBeUndefined();
    expect(view.listJson().tools).toBe(JSON.stringify(catalog.listedTools()));
  });

  it('lists only the toolset members, in member order (a server in its own order), each once', () => {
    const catalog = catalogOf();
    const set = toolset({
      name: 'triage',
      members: [
        { kind: 'tool', namespacedName: 'linear.list_issues' },
        { kind: 'server', server: 'files' },
        { kind: 'ref', refId: catalog.getByNamespacedName('linear.list_issues')?.refId ?? '' },
      ],
    });
    const view = viewOf(catalog, set);
    expect(view.listed.map((item) => item['name'])).toEqual([
      'linear_list_issues',
      'files_read_file',
      'files_delete_file',
    ]);
    expect(view.meta).toEqual({ [TOOLSET_META_KEY]: { name: 'triage', revision: 1, tools: 3 } });
    expect(view.lookup('linear_list_issues').kind).toBe('tool');
    expect(view.lookup('linear.create_issue')).toMatchObject({
      kind: 'outside',
      toolset: 'triage',
    });
    expect(view.lookup('nothing_here').kind).toBe('missing');
  });

  it('appends notes exactly as the requirements show, and leaves tools without notes untouched', () => {
    const catalog = catalogOf();
    const set = toolset({
      name: 'triage',
      members: [{ kind: 'server', server: 'linear' }],
      notes: [
        note(
          'linear.create_issue',
          'usage-with-project',
          'Always load linear projects using the linear_search_projects tool and reflect with the user on which team to add an issue to',
        ),
        note(
          'linear.create_issue',
          'priority-handling',
          "For urgent issues, always set priority to 1 (Urgent) and add the 'urgent' label",
        ),
        note('linear.no_description', 'only-note', 'A note alone'),
      ],
    });
    const view = viewOf(catalog, set);
    const byName = new Map(view.listed.map((item) => [item['name'], item as Wire]));
    expect(byName.get('linear_create_issue').description).toBe(
      'Creates a new issue in Linear\n\n### Additional Tool Notes\n\n' +
        '• **usage-with-project**: Always load linear projects using the linear_search_projects tool and reflect with the user on which team to add an issue to\n' +
        "• **priority-handling**: For urgent issues, always set priority to 1 (Urgent) and add the 'urgent' label",
    );
    expect(byName.get('linear_create_issue')._meta[TOOL_META_KEY].notes).toEqual([
      'usage-with-project',
      'priority-handling',
    ]);
    // A tool without a description gets the section alone.
    expect(byName.get('linear_no_description').description).toBe(
      '### Additional Tool Notes\n\n• **only-note**: A note alone',
    );
    // No notes: the very same object the catalog lists.
    const plain = catalog.getByNamespacedName('linear.list_issues');
    expect(byName.get('linear_list_issues')).toBe(plain?.listed);
    // The catalog's own entries are never changed.
    expect(catalog.getByNamespacedName('linear.create_issue')?.listed['description']).toBe(
      'Creates a new issue in Linear',
    );
  });

  it('applies global and toolset overrides as the override layer, the toolset winning per field', () => {
    const catalog = catalogOf();
    const globals: AnnotationOverride[] = [
      {
        tool: { namespacedName: 'files.read_file' },
        annotations: { readOnlyHint: true, openWorldHint: true },
        updatedAt: NOW,
      },
    ];
    const set = toolset({
      name: 'ops',
      members: [{ kind: 'server', server: 'files' }],
      overrides: [
        {
          toolset: 'ops',
          tool: { namespacedName: 'files.read_file' },
          annotations: { openWorldHint: false, tags: ['io'] },
          updatedAt: NOW,
        },
      ],
    });
    const view = viewOf(catalog, set, globals);
    const read = view.listed.find((item) => item['name'] === 'files_read_file') as Wire;
    expect(read.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    const meta = read._meta[TOOL_META_KEY];
    expect(meta.sources).toMatchObject({
      readOnlyHint: 'override',
      openWorldHint: 'override',
      tags: 'override',
    });
    expect(meta.overrides).toEqual({
      readOnlyHint: 'global',
      openWorldHint: 'toolset',
      tags: 'toolset',
    });
    expect(meta.extensions).toMatchObject({ tags: ['io'] });
    // The call path sees the same annotations as the listing.
    const found = view.lookup('files_read_file');
    expect(found.kind === 'tool' && found.entry.effective.annotations.readOnlyHint).toBe(true);
    // Without the toolset, only the global override applies.
    const whole = viewOf(catalog, undefined, globals);
    const plainRead = whole.listed.find((item) => item['name'] === 'files_read_file') as Wire;
    expect(plainRead.annotations.openWorldHint).toBe(true);
    expect(plainRead._meta[TOOL_META_KEY].overrides).toEqual({
      readOnlyHint: 'global',
      openWorldHint: 'global',
    });
  });

  it('keeps orphaned members, notes and overrides and reports them, in the listing _meta too', () => {
    const catalog = catalogOf();
    const set = toolset({
      name: 'ops',
      members: [
        { kind: 'tool', namespacedName: 'files.read_file' },
        { kind: 'tool', namespacedName: 'files.renamed_away' },
        { kind: 'server', server: 'github' },
      ],
      notes: [
        note('files.renamed_away', 'keep-me', 'still here'),
        note('linear.list_issues', 'x', 'y'),
      ],
      overrides: [
        {
          toolset: 'ops',
          tool: { refId: '0123456789abcdef' },
          annotations: { readOnlyHint: true },
          updatedAt: NOW,
        },
      ],
    });
    const globals: AnnotationOverride[] = [
      { tool: { namespacedName: 'gone.tool' }, annotations: { title: 'T' }, updatedAt: NOW },
    ];
    const view = viewOf(catalog, set, globals);
    expect(view.listed.map((item) => item['name'])).toEqual(['files_read_file']);
    expect(view.orphans.members.map((orphan) => orphan.member)).toEqual([
      { kind: 'tool', namespacedName: 'files.renamed_away' },
      { kind: 'server', server: 'github' },
    ]);
    expect(view.orphans.notes).toEqual([
      expect.objectContaining({ name: 'keep-me', tool: { namespacedName: 'files.renamed_away' } }),
      expect.objectContaining({
        name: 'x',
        reason: 'linear.list_issues is not in the toolset now',
      }),
    ]);
    expect(view.orphans.overrides.map((orphan) => orphan.scope)).toEqual(['ops', 'global']);
    expect((view.meta as Wire)[TOOLSET_META_KEY].orphans.members).toHaveLength(2);

    // The tool comes back: the member and its note are in use again.
    catalog.setServer(
      'files',
      [tool('read_file'), tool('delete_file'), tool('renamed_away', { description: 'Back.' })],
      untrusted,
    );
    const again = viewOf(catalog, set, globals);
    const back = again.listed.find((item) => item['name'] === 'files_renamed_away') as Wire;
    expect(back.description).toBe(
      'Back.\n\n### Additional Tool Notes\n\n• **keep-me**: still here',
    );
    expect(again.orphans.members.map((orphan) => orphan.member)).toEqual([
      { kind: 'server', server: 'github' },
    ]);
  });

  it('lists meta tools first when shown, and resolves them as local tools', async () => {
    const { META_TOOLS } = await import('../../../src/gateway/meta-tools/index.js');
    const catalog = catalogOf();
    const view = new ToolView({
      key: {
        catalogVersion: catalog.version,
        toolset: undefined,
        globalOverrides: [],
        localTools: true,
      },
      catalog,
      localTools: META_TOOLS,
    });
    expect(view.listed.slice(0, META_TOOLS.length).map((item) => item['name'])).toEqual(
      META_TOOLS.map((meta) => meta.name),
    );
    expect(view.lookup('equip-toolset').kind).toBe('local');
    expect(view.entries).toHaveLength(catalog.size);
  });
});
