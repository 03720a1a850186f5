import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTE_LIMITS } from '../../src/core/notes/notes.js';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

const TOOL = { namespacedName: 'github.create_issue', refId: '00112233445566aa' };

describe.each(STORE_KINDS)('%s store: notes', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  async function newToolset(): Promise<string> {
    const name = uniqueName('notes');
    await shared.store().createToolset({ name, members: [{ kind: 'server', server: 'github' }] });
    return name;
  }

  it('adds notes in order and shows them in the toolset', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    const result = await store.addNotes(toolset, TOOL, [
      { name: 'team-selection', note: 'Ask which team first' },
      { name: 'label-convention', note: 'bug → "bug" label' },
    ]);
    expect(result.skipped).toEqual([]);
    expect(result.added.map((note) => [note.name, note.note, note.tool])).toEqual([
      ['team-selection', 'Ask which team first', TOOL],
      ['label-convention', 'bug → "bug" label', TOOL],
    ]);
    const read = await store.getToolset(toolset);
    expect(read?.notes.map((note) => note.name)).toEqual(['team-selection', 'label-convention']);
    expect(read?.revision).toBe(2);
  });

  it('skips a name the tool already has, with a warning, and adds the rest', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    await store.addNotes(toolset, TOOL, [{ name: 'first', note: 'one' }]);
    const result = await store.addNotes(toolset, TOOL, [
      { name: 'first', note: 'changed?' },
      { name: 'second', note: 'two' },
      { name: 'second', note: 'twice in one call' },
    ]);
    expect(result.added.map((note) => note.name)).toEqual(['second']);
    expect(result.skipped.map((skip) => skip.name)).toEqual(['first', 'second']);
    expect(result.skipped[0]?.warning).toBe(
      'note "first" already exists for tool github.create_issue (ref 00112233445566aa); skipped (edit it to change its text)',
    );
    const notes = await store.listNotes(toolset, TOOL);
    expect(notes.map((note) => [note.name, note.note])).toEqual([
      ['first', 'one'],
      ['second', 'two'],
    ]);
  });

  it('does not move the revision when every note was skipped', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    await store.addNotes(toolset, TOOL, [{ name: 'a', note: 'one' }]);
    const result = await store.addNotes(toolset, TOOL, [{ name: 'a', note: 'again' }]);
    expect(result.added).toEqual([]);
    expect((await store.getToolset(toolset))?.revision).toBe(2);
  });

  it('matches a tool by either reference', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    await store.addNotes(toolset, { namespacedName: TOOL.namespacedName }, [
      { name: 'by-name', note: 'x' },
    ]);
    await store.addNotes(toolset, { refId: TOOL.refId }, [{ name: 'by-ref', note: 'y' }]);
    const both = await store.listNotes(toolset, TOOL);
    expect(both.map((note) => note.name)).toEqual(['by-name', 'by-ref']);
    const skipped = await store.addNotes(toolset, { refId: TOOL.refId, namespacedName: 'x.y' }, [
      { name: 'by-ref', note: 'dup' },
    ]);
    expect(skipped.skipped.map((skip) => skip.name)).toEqual(['by-ref']);
    const other = await store.listNotes(toolset, { namespacedName: 'github.other' });
    expect(other).toEqual([]);
  });

  it('edits a note in place, keeping its position', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    await store.addNotes(toolset, TOOL, [
      { name: 'a', note: 'one' },
      { name: 'b', note: 'two' },
    ]);
    const edited = await store.editNote(toolset, TOOL, 'a', 'ONE');
    expect(edited).toMatchObject({ name: 'a', note: 'ONE', tool: TOOL });
    const notes = await store.listNotes(toolset);
    expect(notes.map((note) => [note.name, note.note])).toEqual([
      ['a', 'ONE'],
      ['b', 'two'],
    ]);
  });

  it('removes a note, and answers NOT_FOUND for one that is not there', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    await store.addNotes(toolset, TOOL, [{ name: 'a', note: 'one' }]);
    await store.removeNote(toolset, { refId: TOOL.refId }, 'a');
    expect(await store.listNotes(toolset)).toEqual([]);
    await expect(store.removeNote(toolset, TOOL, 'a')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `note "a" does not exist for tool github.create_issue (ref 00112233445566aa) in toolset "${toolset}"`,
    });
    await expect(store.editNote(toolset, TOOL, 'zzz', 'text')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('enforces the notes-per-tool bound without adding anything', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    const full = Array.from({ length: NOTE_LIMITS.notesPerTool }, (_, i) => ({
      name: `n-${i}`,
      note: 'text',
    }));
    await store.addNotes(toolset, TOOL, full.slice(0, NOTE_LIMITS.notesPerTool - 1));
    await expect(
      store.addNotes(toolset, TOOL, [
        { name: 'last', note: 'fits' },
        { name: 'extra', note: 'does not' },
      ]),
    ).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `tool github.create_issue (ref 00112233445566aa) in toolset "${toolset}" would have ${NOTE_LIMITS.notesPerTool + 1} notes; the limit is ${NOTE_LIMITS.notesPerTool} per tool`,
    });
    expect(await store.listNotes(toolset)).toHaveLength(NOTE_LIMITS.notesPerTool - 1);
    const skippedOnly = await store.addNotes(toolset, TOOL, [{ name: 'n-0', note: 'dup' }]);
    expect(skippedOnly.skipped).toHaveLength(1);
  });

  it('rejects bad notes and references, naming the field', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    await expect(
      store.addNotes(toolset, TOOL, [
        { name: 'ok', note: 'fine' },
        { name: 'Bad_Name', note: 'x' },
        { name: 'long', note: 'x'.repeat(NOTE_LIMITS.noteLength + 1) },
        { name: 'empty', note: '  ' },
      ]),
    ).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      details: {
        issues: [
          { path: 'notes[1]', message: expect.stringContaining('must match ^[a-z0-9-]+$') },
          {
            path: 'notes[2]',
            message: `note "long" is ${NOTE_LIMITS.noteLength + 1} characters long; the limit is ${NOTE_LIMITS.noteLength}`,
          },
          { path: 'notes[3]', message: 'note "empty" must have a non-empty text' },
        ],
      },
    });
    await expect(store.addNotes(toolset, {}, [{ name: 'a', note: 'b' }])).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      details: { issues: [{ path: 'tool', message: 'needs a namespacedName or a refId' }] },
    });
    await expect(store.addNotes(toolset, TOOL, [])).rejects.toMatchObject({
      details: { issues: [{ path: 'notes', message: 'must hold at least one note' }] },
    });
    await expect(
      store.editNote(toolset, TOOL, 'a', 'x'.repeat(NOTE_LIMITS.noteLength + 1)),
    ).rejects.toMatchObject({ code: 'INPUT_INVALID' });
    expect(await store.listNotes(toolset)).toEqual([]);
  });

  it('keeps notes of a tool that no member selects any more (orphans are the gateway’s call)', async () => {
    const store = shared.store();
    const toolset = await newToolset();
    await store.addNotes(toolset, TOOL, [{ name: 'kept', note: 'still here' }]);
    await store.updateToolset(toolset, { members: [] });
    expect((await store.getToolset(toolset))?.notes.map((note) => note.name)).toEqual(['kept']);
  });
});
