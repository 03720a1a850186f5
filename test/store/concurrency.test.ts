import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTE_LIMITS } from '../../src/core/notes/notes.js';
import type { Store } from '../../src/store/store.js';
import { spawnStoreChild } from './helpers/child.js';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

describe.each(STORE_KINDS)('%s store: concurrent writers', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('loses nothing when many writes to one toolset run at once', async () => {
    const store = shared.store();
    const name = uniqueName('conc');
    await store.createToolset({ name });
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) =>
        store.addNotes(name, { namespacedName: `srv.tool_${i}` }, [{ name: 'n', note: `${i}` }]),
      ),
      ...Array.from({ length: 20 }, (_, i) =>
        store.addMembers(name, [{ kind: 'tool', namespacedName: `srv.tool_${i}` }]),
      ),
    ]);
    const toolset = await store.getToolset(name);
    expect(toolset?.notes).toHaveLength(20);
    expect(toolset?.members).toHaveLength(20);
    expect(toolset?.revision).toBe(41);
  });

  it('keeps the notes-per-tool bound when writers race for the last places', async () => {
    const store = shared.store();
    const name = uniqueName('bound');
    await store.createToolset({ name });
    const tool = { namespacedName: 'srv.busy' };
    const results = await Promise.allSettled(
      Array.from({ length: NOTE_LIMITS.notesPerTool + 5 }, (_, i) =>
        store.addNotes(name, tool, [{ name: `n-${i}`, note: 'x' }]),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(NOTE_LIMITS.notesPerTool);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(5);
    expect(await store.listNotes(name, tool)).toHaveLength(NOTE_LIMITS.notesPerTool);
  });

  it('adds a name once when two writers add it at the same time', async () => {
    const store = shared.store();
    const name = uniqueName('dup');
    await store.createToolset({ name });
    const tool = { refId: 'aaaabbbbccccdddd' };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => store.addNotes(name, tool, [{ name: 'same', note: 'x' }])),
    );
    expect(results.filter((r) => r.added.length === 1)).toHaveLength(1);
    expect(results.filter((r) => r.skipped.length === 1)).toHaveLength(5);
  });
});

describe('postgres store: writers in two connections and two processes', () => {
  const shared = sharedStore('postgres');
  let second: Store | undefined;
  beforeAll(async () => {
    await shared.setup();
    second = await shared.harness().open();
  });
  afterAll(async () => {
    await second?.close();
    await shared.teardown();
  });

  it('loses nothing when two store instances write one toolset at once', async () => {
    const name = uniqueName('two');
    await shared.store().createToolset({ name });
    const writes = (store: Store, who: string): Promise<unknown>[] =>
      Array.from({ length: 15 }, (_, i) =>
        store.addNotes(name, { namespacedName: `srv.${who}_${i}` }, [{ name: 'n', note: who }]),
      );
    await Promise.all([...writes(shared.store(), 'a'), ...writes(second!, 'b')]);
    const toolset = await second!.getToolset(name);
    expect(toolset?.notes).toHaveLength(30);
    expect(toolset?.revision).toBe(31);
  });

  it('loses nothing when another process writes the same tool at the same time', async () => {
    const name = uniqueName('proc');
    await shared.store().createToolset({ name });
    const child = spawnStoreChild('add-notes', shared.harness().options, name);
    await child.waitFor(/^ready$/);
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        shared
          .store()
          .addNotes(name, { namespacedName: 'srv.shared' }, [
            { name: `parent-${i}`, note: 'from the parent' },
          ]),
      ),
    );
    await child.waitFor(/^done$/);
    const notes = await shared.store().listNotes(name, { namespacedName: 'srv.shared' });
    expect(notes).toHaveLength(NOTE_LIMITS.notesPerTool);
    expect(new Set(notes.map((note) => note.name)).size).toBe(NOTE_LIMITS.notesPerTool);
  });
});
