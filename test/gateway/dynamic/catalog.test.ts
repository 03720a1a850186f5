import { describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/gateway/catalog.js';
import { withResolvableMarker } from '../../../src/gateway/catalog-entry.js';
import { ToolView } from '../../../src/gateway/toolsets/view.js';
import type { Toolset } from '../../../src/store/types.js';
import {
  EXTENSION,
  MANAGE_FILES,
  QUERY,
  RUN_JOB,
  configRules,
  dynamicCatalog,
  dynamicSettings,
  entryOf,
  hintgateMeta,
} from './helpers.js';

const PLAIN = {
  name: 'get_time',
  description: 'Gets the time.',
  inputSchema: { type: 'object', properties: { zone: { type: 'string' } } },
  annotations: { readOnlyHint: true },
};

describe('dynamic tools in the catalog', () => {
  it('lists a tool a classifier reads with dynamicAnnotations and its worst case', () => {
    // Trusted, so that its declared read-only holds statically (untrusted, inference already
    // disputes it: an argument run as code).
    const entry = entryOf(dynamicCatalog([QUERY], { trust: 'trusted' }), 'db_query');
    expect(entry.dynamic?.detected.map((item) => [item.kind, item.pointer])).toEqual([
      ['sql', '/sql'],
    ]);
    expect(entry.listed['dynamicAnnotations']).toBe(true);
    // A DELETE can go through it: the listing says so, whatever the server declared.
    expect(entry.listed['annotations']).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(hintgateMeta(entry.listed)['dynamic']).toEqual([
      { source: 'classifier', classifier: 'sql', pointer: '/sql' },
    ]);
    expect(entry.effective.provenance['readOnlyHint']).toMatchObject({
      source: 'dynamic',
      reason: expect.stringContaining('worst case over all arguments: argument `sql` takes SQL'),
    });
    // The static annotations it is bounded by stay as they were before the worst case.
    expect(entry.dynamic?.bound['openWorldHint']).toBe(false);
  });

  it('leaves a tool static when nothing applies, removing markers it cannot honour', () => {
    const tool = {
      ...PLAIN,
      dynamicAnnotations: true,
      _meta: { [EXTENSION]: { resolvable: true } },
    };
    const entry = entryOf(dynamicCatalog([tool]), 'db_get_time');
    expect(entry.dynamic).toBeUndefined();
    expect(entry.listed).not.toHaveProperty('dynamicAnnotations');
    expect(entry.listed['_meta']).not.toHaveProperty([EXTENSION]);
    expect(hintgateMeta(entry.listed)).not.toHaveProperty('dynamic');
  });

  it('forwards to a server that declares the extension and marks the tool, preferring tools/resolve', () => {
    const both = entryOf(
      dynamicCatalog([MANAGE_FILES], { dynamic: { serverResolve: true, serverAnnotations: true } }),
      'db_manage_files',
    );
    expect(both.dynamic?.forward).toBe('tools/resolve');
    expect(hintgateMeta(both.listed)['dynamic']).toEqual([
      { source: 'server', method: 'tools/resolve' },
      { source: 'classifier', classifier: 'action', pointer: '/action' },
    ]);
    // The server's own markers are hintgate's to give; its other _meta keys pass through.
    expect(both.listed['_meta']).toMatchObject({ 'x/keep': 1 });
    expect(both.listed['_meta']).not.toHaveProperty([EXTENSION]);
    const proposalOnly = entryOf(
      dynamicCatalog([MANAGE_FILES], { dynamic: { serverAnnotations: true } }),
      'db_manage_files',
    );
    expect(proposalOnly.dynamic?.forward).toBe('tools/annotations');
    const neither = entryOf(dynamicCatalog([MANAGE_FILES]), 'db_manage_files');
    expect(neither.dynamic?.forward).toBeUndefined();
    // Its worst case is what it declared: no field needed the dynamic layer.
    expect(Object.values(neither.effective.provenance).map((value) => value.source)).not.toContain(
      'dynamic',
    );
  });

  it('reads no argument with classifiers off, and then a tool is static', () => {
    const entry = entryOf(dynamicCatalog([QUERY], { dynamic: { classifiers: false } }), 'db_query');
    expect(entry.detected).toEqual([]);
    expect(entry.dynamic).toBeUndefined();
  });

  it('makes a tool dynamic for a config rule that names it, including the rule in its worst case', () => {
    const rules = configRules([
      {
        name: 'reports',
        tool: 'db.run_job',
        match: [{ pointer: '/job', equals: 'report' }],
        set: { readOnlyHint: true },
      },
      { tool: 'other.*', match: [{ pointer: '/x', equals: 1 }], set: { readOnlyHint: true } },
    ]);
    const catalog = dynamicCatalog([RUN_JOB, PLAIN], { dynamic: { rules } });
    const job = entryOf(catalog, 'db_run_job');
    expect(hintgateMeta(job.listed)['dynamic']).toEqual([
      { source: 'rule', rule: 'config rule 1 ("reports")', scope: 'config' },
    ]);
    expect(job.dynamic?.rules.map((rule) => rule.label)).toEqual(['config rule 1 ("reports")']);
    expect(entryOf(catalog, 'db_get_time').dynamic).toBeUndefined();
  });

  it('reads a tool again when its server comes back with other capabilities', () => {
    const catalog = new Catalog();
    const settings = { trust: 'untrusted' as const, dynamic: dynamicSettings() };
    catalog.setServer('db', [MANAGE_FILES], settings);
    const before = entryOf(catalog, 'db_manage_files');
    expect(
      catalog.setServer('db', [MANAGE_FILES], { ...settings, dynamic: dynamicSettings() }).changed,
    ).toBe(false);
    const change = catalog.setServer('db', [MANAGE_FILES], {
      ...settings,
      dynamic: dynamicSettings({ serverResolve: true }),
    });
    expect(change.changed).toBe(true);
    const after = entryOf(catalog, 'db_manage_files');
    expect(after).not.toBe(before);
    expect(after.dynamic?.forward).toBe('tools/resolve');
  });

  it('adds the extension marker for negotiating clients, once per listed tool, to dynamic tools only', () => {
    const catalog = dynamicCatalog([QUERY, PLAIN]);
    const query = entryOf(catalog, 'db_query').listed;
    const plain = entryOf(catalog, 'db_get_time').listed;
    const marked = withResolvableMarker(query);
    expect(marked['_meta']).toMatchObject({ [EXTENSION]: { resolvable: true } });
    expect(marked['_meta']).toHaveProperty(['dev.hintgate/tool']);
    expect(withResolvableMarker(query)).toBe(marked);
    expect(query['_meta']).not.toHaveProperty([EXTENSION]);
    expect(withResolvableMarker(plain)).toBe(plain);
  });
});

const NOW = '2026-01-01T00:00:00.000Z';

function toolset(partial: Partial<Toolset> & { name: string }): Toolset {
  return {
    description: '',
    createdAt: NOW,
    updatedAt: NOW,
    revision: 1,
    members: [{ kind: 'server', server: 'db' }],
    notes: [],
    overrides: [],
    rules: [],
    ...partial,
  };
}

function viewOf(catalog: Catalog, set: Toolset | undefined): ToolView {
  return new ToolView({
    key: { catalogVersion: catalog.version, toolset: set, globalOverrides: [], localTools: false },
    catalog,
    localTools: [],
  });
}

describe('dynamic tools in a toolset view', () => {
  const catalog = dynamicCatalog([RUN_JOB, QUERY, PLAIN]);
  const withRules = toolset({
    name: 'ops',
    rules: [
      {
        tool: 'db.run_job',
        match: [{ pointer: '/job', equals: 'report' }],
        set: { readOnlyHint: true },
      },
    ],
  });

  it("makes the members a toolset's rules name dynamic, in that view only", () => {
    const view = viewOf(catalog, withRules);
    const job = view.lookup('db_run_job');
    expect(job.kind).toBe('tool');
    const entry = job.kind === 'tool' ? job.entry : undefined;
    expect(entry?.dynamic?.sources).toEqual([
      { source: 'rule', rule: 'toolset ops rule 1', scope: 'toolset' },
    ]);
    expect(view.listed.find((tool) => tool['name'] === 'db_run_job')?.['dynamicAnnotations']).toBe(
      true,
    );
    // The catalog's own entry, and the view without the toolset, stay static.
    expect(entryOf(catalog, 'db_run_job').dynamic).toBeUndefined();
    expect(viewOf(catalog, undefined).lookup('db_run_job')).toMatchObject({
      entry: { dynamic: undefined },
    });
  });

  it('puts a toolset rule before the classifiers of a tool it names', () => {
    const set = toolset({
      name: 'sql',
      rules: [{ match: [{ pointer: '/sql', regex: '^VACUUM' }], set: { destructiveHint: false } }],
    });
    const found = viewOf(catalog, set).lookup('db_query');
    const entry = found.kind === 'tool' ? found.entry : undefined;
    expect(entry?.dynamic?.sources.map((source) => source.source)).toEqual(['rule', 'classifier']);
    // The same adjusted entry is reused by a view rebuilt from the same toolset.
    const again = viewOf(catalog, set).lookup('db_query');
    expect(again.kind === 'tool' ? again.entry : undefined).toBe(entry);
  });

  it('serves both listing variants, serialized once each', () => {
    const view = viewOf(catalog, withRules);
    const plain = view.listJson(false);
    const marked = view.listJson(true);
    expect(view.listJson(true)).toBe(marked);
    expect(plain.tools).not.toContain(EXTENSION);
    const tools = JSON.parse(marked.tools) as Record<string, unknown>[];
    const markedNames = tools
      .filter((tool) => JSON.stringify(tool['_meta']).includes(EXTENSION))
      .map((tool) => tool['name']);
    expect(markedNames.sort()).toEqual(['db_query', 'db_run_job']);
    expect(view.listedFor(false)).toBe(view.listed);
  });
});
