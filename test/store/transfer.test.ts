import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTE_LIMITS } from '../../src/core/notes/notes.js';
import { parseToolsetDocument } from '../../src/store/transfer.js';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

const TOOL = { namespacedName: 'github.create_issue', refId: '00112233445566aa' };

describe('parseToolsetDocument', () => {
  it('reports every bad field by its path', () => {
    let caught: unknown;
    try {
      parseToolsetDocument({
        hintgate: 'toolset',
        version: 1,
        name: 'ok',
        members: [{ kind: 'tool', namespacedName: 'nodot' }],
        notes: [
          { tool: TOOL, name: 'fine', note: 'x' },
          { tool: {}, name: 'Bad', note: '' },
          { tool: TOOL, name: 'fine', note: 'repeat' },
        ],
        overrides: [{ tool: TOOL, annotations: { readOnlyHint: 'yes' } }],
        extra: true,
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'INPUT_INVALID' });
    const issues = (caught as { details: { issues: { path: string }[] } }).details.issues;
    expect(issues.map((issue) => issue.path)).toEqual([
      'extra',
      'members[0].namespacedName',
      'notes[1].tool',
      'notes[1]',
      'notes[2].name',
      'overrides[0].annotations.readOnlyHint',
    ]);
  });

  it('refuses a newer document version and a file that is not a toolset', () => {
    expect(() =>
      parseToolsetDocument({ hintgate: 'toolset', version: 2, name: 'a', members: [] }),
    ).toThrow(
      'version: is 2, but this hintgate reads toolset documents up to version 1; upgrade hintgate',
    );
    expect(() => parseToolsetDocument({ name: 'a', members: [] })).toThrow(
      'hintgate: must be "toolset"',
    );
    expect(() => parseToolsetDocument([])).toThrow('expected a JSON object');
  });

  it('bounds the notes per tool', () => {
    const notes = Array.from({ length: NOTE_LIMITS.notesPerTool + 1 }, (_, i) => ({
      tool: { refId: TOOL.refId },
      name: `n-${i}`,
      note: 'x',
    }));
    expect(() =>
      parseToolsetDocument({ hintgate: 'toolset', version: 1, name: 'a', members: [], notes }),
    ).toThrow(`notes[${NOTE_LIMITS.notesPerTool}]: more than ${NOTE_LIMITS.notesPerTool} notes`);
  });
});

describe.each(STORE_KINDS)('%s store: export and import', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('round-trips a toolset through JSON with members, notes in order, and overrides', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({
      name,
      description: 'everything',
      members: [
        { kind: 'tool', namespacedName: TOOL.namespacedName },
        { kind: 'server', server: 'filesystem' },
        { kind: 'ref', refId: 'ffffeeeeddddcccc' },
      ],
    });
    await store.addNotes(name, TOOL, [
      { name: 'b-first', note: 'one' },
      { name: 'a-second', note: 'two' },
    ]);
    await store.addNotes(name, { refId: 'ffffeeeeddddcccc' }, [{ name: 'c', note: 'three' }]);
    await store.setOverride(TOOL, { readOnlyHint: false, tags: ['x'] }, { toolset: name });
    const exported = await store.exportToolset(name);
    expect(exported).toMatchObject({ hintgate: 'toolset', version: 1, name });
    const json = JSON.parse(JSON.stringify(exported)) as unknown;

    const copy = uniqueName('copy');
    const { toolset, replaced } = await store.importToolset(json, { name: copy });
    expect(replaced).toBe(false);
    const original = await store.getToolset(name);
    expect(toolset.description).toBe('everything');
    expect(toolset.members).toEqual(original?.members);
    expect(toolset.notes.map((n) => [n.tool, n.name, n.note])).toEqual(
      original?.notes.map((n) => [n.tool, n.name, n.note]),
    );
    expect(toolset.overrides.map((o) => [o.tool, o.annotations])).toEqual(
      original?.overrides.map((o) => [o.tool, o.annotations]),
    );
    const again = await store.exportToolset(copy);
    expect({ ...again, name, exportedAt: '' }).toEqual({ ...exported, exportedAt: '' });
  });

  it('loads a toolset written before notes existed', async () => {
    const store = shared.store();
    const name = uniqueName('legacy');
    const { toolset } = await store.importToolset({
      hintgate: 'toolset',
      version: 1,
      name,
      description: 'old',
      members: [{ kind: 'server', server: 'github' }],
    });
    expect(toolset).toMatchObject({ name, description: 'old', notes: [], overrides: [] });
    expect(toolset.members).toEqual([{ kind: 'server', server: 'github' }]);
  });

  it('refuses to import over an existing toolset unless told to replace it', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({ name, members: [{ kind: 'server', server: 'old' }] });
    await store.addNotes(name, TOOL, [{ name: 'old-note', note: 'gone after replace' }]);
    const doc = {
      hintgate: 'toolset',
      version: 1,
      name,
      members: [{ kind: 'server', server: 'new' }],
      notes: [{ tool: TOOL, name: 'new-note', note: 'kept' }],
    };
    await expect(store.importToolset(doc)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `toolset "${name}" already exists; import with replace (--replace) to overwrite it`,
    });
    expect((await store.getToolset(name))?.notes.map((n) => n.name)).toEqual(['old-note']);
    const { toolset, replaced } = await store.importToolset(doc, { replace: true });
    expect(replaced).toBe(true);
    expect(toolset.members).toEqual([{ kind: 'server', server: 'new' }]);
    expect(toolset.notes.map((n) => n.name)).toEqual(['new-note']);
    expect(toolset.revision).toBe(3);
  });

  it('writes nothing when a document is invalid', async () => {
    const store = shared.store();
    const name = uniqueName();
    await expect(
      store.importToolset({ hintgate: 'toolset', version: 1, name, members: 'all' }),
    ).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      details: { issues: [{ path: 'members', message: 'must be an array' }] },
    });
    expect(await store.getToolset(name)).toBeUndefined();
  });
});
