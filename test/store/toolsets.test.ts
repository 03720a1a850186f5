import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

describe.each(STORE_KINDS)('%s store: toolsets', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('creates a toolset and reads it back with its members in order, without repeats', async () => {
    const store = shared.store();
    const name = uniqueName();
    const created = await store.createToolset({
      name,
      description: 'triage',
      members: [
        { kind: 'tool', namespacedName: 'github.list_issues' },
        { kind: 'server', server: 'filesystem' },
        { kind: 'ref', refId: '0123456789abcdef' },
        { kind: 'tool', namespacedName: 'github.list_issues' },
      ],
    });
    expect(created).toMatchObject({
      name,
      description: 'triage',
      revision: 1,
      notes: [],
      overrides: [],
    });
    expect(created.members).toEqual([
      { kind: 'tool', namespacedName: 'github.list_issues' },
      { kind: 'server', server: 'filesystem' },
      { kind: 'ref', refId: '0123456789abcdef' },
    ]);
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(await store.getToolset(name)).toEqual(created);
  });

  it('gives undefined for a toolset that does not exist', async () => {
    expect(await shared.store().getToolset('no-such-toolset')).toBeUndefined();
  });

  it('refuses a second toolset of the same name with CONFLICT', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({ name });
    await expect(store.createToolset({ name })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `toolset "${name}" already exists`,
    });
  });

  it('names each bad field of a new toolset', async () => {
    const store = shared.store();
    const error = await store
      .createToolset({
        name: 'Bad Name',
        members: [
          { kind: 'tool', namespacedName: 'no-dot' },
          { kind: 'ref', refId: 'XYZ' },
          { kind: 'server', server: 'a.b' },
          { kind: 'everything' } as never,
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INPUT_INVALID' });
    const paths = (error as { details: { issues: { path: string }[] } }).details.issues.map(
      (issue) => issue.path,
    );
    expect(paths).toEqual([
      'name',
      'members[0].namespacedName',
      'members[1].refId',
      'members[2].server',
      'members[3].kind',
    ]);
    expect((error as Error).message).toContain('members[1].refId: must be a refId');
  });

  it('lists toolsets by name with their counts', async () => {
    const store = shared.store();
    const name = uniqueName('list');
    await store.createToolset({
      name,
      members: [{ kind: 'server', server: 'github' }],
    });
    await store.addNotes(name, { namespacedName: 'github.a' }, [{ name: 'n', note: 'text' }]);
    await store.setOverride(
      { namespacedName: 'github.a' },
      { readOnlyHint: true },
      { toolset: name },
    );
    const listed = (await store.listToolsets()).find((summary) => summary.name === name);
    expect(listed).toMatchObject({ memberCount: 1, noteCount: 1, overrideCount: 1, revision: 3 });
    const names = (await store.listToolsets()).map((summary) => summary.name);
    expect(names).toEqual([...names].sort());
  });

  it('updates the description and replaces the members, moving the revision on', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({ name, members: [{ kind: 'server', server: 'a' }] });
    const updated = await store.updateToolset(name, {
      description: 'new',
      members: [
        { kind: 'server', server: 'b' },
        { kind: 'server', server: 'c' },
      ],
    });
    expect(updated.description).toBe('new');
    expect(updated.members).toEqual([
      { kind: 'server', server: 'b' },
      { kind: 'server', server: 'c' },
    ]);
    expect(updated.revision).toBe(2);
  });

  it('adds members after the others, skipping present ones, and removes members', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({ name, members: [{ kind: 'server', server: 'a' }] });
    const added = await store.addMembers(name, [
      { kind: 'server', server: 'a' },
      { kind: 'tool', namespacedName: 'b.x' },
    ]);
    expect(added.members).toEqual([
      { kind: 'server', server: 'a' },
      { kind: 'tool', namespacedName: 'b.x' },
    ]);
    expect(added.revision).toBe(2);
    const unchanged = await store.addMembers(name, [{ kind: 'server', server: 'a' }]);
    expect(unchanged.revision).toBe(2);
    const removed = await store.removeMembers(name, [
      { kind: 'server', server: 'a' },
      { kind: 'server', server: 'never-there' },
    ]);
    expect(removed.members).toEqual([{ kind: 'tool', namespacedName: 'b.x' }]);
    expect(removed.revision).toBe(3);
  });

  it('deletes a toolset with its notes and overrides', async () => {
    const store = shared.store();
    const name = uniqueName();
    await store.createToolset({ name });
    await store.addNotes(name, { namespacedName: 'a.b' }, [{ name: 'n', note: 'text' }]);
    await store.setOverride({ namespacedName: 'a.b' }, { readOnlyHint: true }, { toolset: name });
    await store.deleteToolset(name);
    expect(await store.getToolset(name)).toBeUndefined();
    await store.createToolset({ name });
    expect(await store.getToolset(name)).toMatchObject({ notes: [], overrides: [], revision: 1 });
  });

  it('answers NOT_FOUND for changes to a toolset that does not exist', async () => {
    const store = shared.store();
    const missing = { code: 'NOT_FOUND', message: 'toolset "ghost" does not exist' };
    await expect(store.deleteToolset('ghost')).rejects.toMatchObject(missing);
    await expect(store.updateToolset('ghost', { description: 'x' })).rejects.toMatchObject(missing);
    await expect(store.addMembers('ghost', [])).rejects.toMatchObject(missing);
    await expect(
      store.addNotes('ghost', { namespacedName: 'a.b' }, [{ name: 'n', note: 't' }]),
    ).rejects.toMatchObject(missing);
    await expect(
      store.setOverride({ namespacedName: 'a.b' }, { readOnlyHint: true }, { toolset: 'ghost' }),
    ).rejects.toMatchObject(missing);
    await expect(store.listNotes('ghost')).rejects.toMatchObject(missing);
    await expect(store.exportToolset('ghost')).rejects.toMatchObject(missing);
  });
});
