import type { Client } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import { LOOSE, connectStdio, rawListTools } from '../helpers/gateway.js';
import type { E2eStore } from '../helpers/toolsets.js';
import {
  callTool,
  countListChanged,
  e2eStore,
  listedTool,
  nextChange,
  resultText,
  toolsetConfig,
  waitForRelease,
} from '../helpers/toolsets.js';
import { waitFor } from '../helpers/processes.js';
import type { Wire } from '../helpers/wire.js';
import { STORE_KINDS } from '../store/helpers/harness.js';

const TEAM_NOTE =
  'Always ask user to confirm the team before creating. Our main teams are: Engineering (id: eng-123), Design (id: des-456), Product (id: prod-789)';
const LABEL_NOTE =
  "Apply labels based on issue type: bug → 'bug' label, feature → 'enhancement' label";
const ORIGINAL = 'Returns the text it is given.';
const HYDRATED = `${ORIGINAL}\n\n### Additional Tool Notes\n\n• **team-selection**: ${TEAM_NOTE}\n• **label-convention**: ${LABEL_NOTE}`;
const META = 'dev.hintgate/tool';
const TOOLSET_META = 'dev.hintgate/toolset';

interface Connected {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly changes: () => number;
}

describe.each(STORE_KINDS)('toolsets and notes end to end (%s store)', (kind) => {
  let store: E2eStore;
  let config: string;
  let session: Connected | undefined;

  const connect = async (): Promise<Connected> => {
    const { client, transport } = await connectStdio(config, 'v2-legacy');
    return { client, transport, changes: countListChanged(client) };
  };
  const close = async (): Promise<void> => {
    await session?.client.close();
    session = undefined;
    if (kind === 'pglite') await waitForRelease(store.dataDir);
  };
  const current = (): Connected => {
    if (session === undefined) throw new Error('not connected');
    return session;
  };
  const cli = (args: string[]) => runCli([...args, '--config', config]);

  beforeAll(async () => {
    store = await e2eStore(kind);
    config = toolsetConfig(
      store,
      {
        echo: fixtureServer('echo'),
        // Its tools come and go on purpose: new ones are recorded, not held for a person.
        changing: fixtureServer('changing', [], { era: 'legacy', pinning: { mode: 'warn' } }),
      },
      { toolsets: { configurationMode: 'always' } },
    );
    session = await connect();
  });

  afterAll(async () => {
    await close();
    await store.cleanup();
  });

  it('runs the requirements scenario: equip, add two notes in one call, see them exactly, skip a duplicate', async () => {
    const { client, changes } = current();
    const before = await listedTool(client, 'echo_echo');
    expect(before.description).toBe(ORIGINAL);

    const built = await callTool(client, 'build-toolset', {
      name: 'linear-work',
      description: 'Issue work',
      tools: [
        { namespacedName: 'echo.echo' },
        { namespacedName: 'echo.add' },
        { server: 'changing' },
      ],
    });
    expect(built.isError).toBeUndefined();
    const equipChange = changes();
    const equipped = await callTool(client, 'equip-toolset', { name: 'linear-work' });
    expect(resultText(equipped)).toMatch(/^Equipped toolset "linear-work"/);
    await nextChange(changes, equipChange);

    const listing = (await client.request({ method: 'tools/list', params: {} }, LOOSE)) as Wire;
    const names = listing.tools.map((tool: Wire) => String(tool.name));
    expect(names).toContain('add-tool-annotation');
    expect(names).toContain('echo_echo');
    expect(names).toContain('changing_grow');
    expect(names).not.toContain('echo_delete_all_records');
    expect(listing._meta[TOOLSET_META]).toMatchObject({ name: 'linear-work', tools: 4 });

    const noteChange = changes();
    const added = await callTool(client, 'add-tool-annotation', {
      toolRef: { namespacedName: 'echo.echo' },
      notes: [
        { name: 'team-selection', note: TEAM_NOTE },
        { name: 'label-convention', note: LABEL_NOTE },
      ],
    });
    expect(added.isError).toBeUndefined();
    expect(added.structuredContent.added.map((note: Wire) => String(note.name))).toEqual([
      'team-selection',
      'label-convention',
    ]);
    await nextChange(changes, noteChange);
    const hydrated = await listedTool(client, 'echo_echo');
    expect(hydrated.description).toBe(HYDRATED);
    expect(hydrated._meta[META].notes).toEqual(['team-selection', 'label-convention']);
    // Other tools keep their description byte for byte.
    expect((await listedTool(client, 'echo_add')).description).toBe(
      'Adds two numbers and returns the sum.',
    );

    const refId = hydrated._meta[META].refId as string;
    const duplicate = await callTool(client, 'add-tool-annotation', {
      toolRef: { refId },
      notes: [{ name: 'team-selection', note: 'something else' }],
    });
    expect(duplicate.isError).toBeUndefined();
    expect(duplicate.structuredContent.added).toEqual([]);
    expect(duplicate.structuredContent.warnings).toEqual([
      expect.stringMatching(/note "team-selection" already exists for tool echo\.echo/),
    ]);
    expect((await listedTool(client, 'echo_echo')).description).toBe(HYDRATED);
  });

  it('keeps the notes across unequip and equip, telling the client each time', async () => {
    const { client, changes } = current();
    const unequipChange = changes();
    await callTool(client, 'unequip-toolset');
    await nextChange(changes, unequipChange);
    const all = await rawListTools(client);
    expect(all.map((tool) => tool['name'])).toContain('echo_delete_all_records');
    expect(all.find((tool) => tool['name'] === 'echo_echo')?.['description']).toBe(ORIGINAL);

    const equipChange = changes();
    await callTool(client, 'equip-toolset', { name: 'linear-work' });
    await nextChange(changes, equipChange);
    expect((await listedTool(client, 'echo_echo')).description).toBe(HYDRATED);
  });

  it('keeps the notes across a restart of the gateway', async () => {
    await close();
    session = await connect();
    const { client } = current();
    // A new session starts without a toolset; the notes come with it when equipped.
    expect((await listedTool(client, 'echo_echo')).description).toBe(ORIGINAL);
    await callTool(client, 'equip-toolset', { name: 'linear-work' });
    expect((await listedTool(client, 'echo_echo')).description).toBe(HYDRATED);
  });

  it('answers every error case with a clear message', async () => {
    const { client } = current();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        'add-tool-annotation',
        { toolRef: { namespacedName: 'echo.missing' }, notes: [{ name: 'a', note: 'b' }] },
        /cannot resolve tool echo\.missing/,
      ],
      [
        'add-tool-annotation',
        {
          toolRef: { namespacedName: 'echo.delete_all_records' },
          notes: [{ name: 'a', note: 'b' }],
        },
        /echo\.delete_all_records is not in the equipped toolset "linear-work"/,
      ],
      [
        'add-tool-annotation',
        { toolRef: { namespacedName: 'echo.add' }, notes: [{ name: 'Not OK', note: 'b' }] },
        /notes\[0\]\.name: must match \^\[a-z0-9-\]\+\$/,
      ],
      [
        'add-tool-annotation',
        {
          toolRef: { namespacedName: 'echo.add' },
          notes: [{ name: 'long', note: 'x'.repeat(2001) }],
        },
        /note "long" is 2001 characters long; the limit is 2000/,
      ],
      [
        'add-tool-annotation',
        {
          toolRef: { namespacedName: 'echo.add' },
          notes: Array.from({ length: 21 }, (_, index) => ({ name: `n${index}`, note: 'x' })),
        },
        /would have 21 notes; the limit is 20 per tool/,
      ],
      ['equip-toolset', { name: 'no-such-set' }, /toolset "no-such-set" does not exist/],
      [
        'delete-toolset',
        { name: 'no-such-set', confirm: true },
        /toolset "no-such-set" does not exist/,
      ],
    ];
    for (const [name, args, message] of cases) {
      const result = await callTool(client, name, args);
      expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect(resultText(result)).toMatch(message);
    }
    // Calling a tool outside the equipped toolset is a protocol error naming the toolset.
    await expect(callTool(client, 'echo_delete_all_records')).rejects.toThrow(
      /not in the equipped toolset "linear-work"/,
    );
    // With no toolset equipped, adding a note is refused.
    await callTool(client, 'unequip-toolset');
    const none = await callTool(client, 'add-tool-annotation', {
      toolRef: { namespacedName: 'echo.echo' },
      notes: [{ name: 'a', note: 'b' }],
    });
    expect(resultText(none)).toMatch(/no toolset is equipped/);
    await callTool(client, 'equip-toolset', { name: 'linear-work' });
  });

  it('passes a note added by the CLI in another process to the connected client', async () => {
    const { client, changes } = current();
    const before = changes();
    const run = await cli([
      'note',
      'add',
      'linear-work',
      'echo.echo',
      'from-cli',
      'Added',
      'from',
      'a',
      'second',
      'process.',
    ]);
    expect(run.stderr).toContain('added note "from-cli" to echo.echo in "linear-work"');
    expect(run.code).toBe(0);
    await nextChange(changes, before);
    // The client is told, and its listing shows the note: waited for, since a change told
    // while the CLI ran (a late event of an earlier step) can come before this one's.
    await waitFor(
      () => listedTool(client, 'echo_echo'),
      (tool: Wire) =>
        tool.description === `${HYDRATED}\n• **from-cli**: Added from a second process.`,
      5_000,
      20,
    );
    const listed = await cli(['note', 'list', 'linear-work', '--json']);
    expect(JSON.parse(listed.stdout).map((note: Wire) => String(note.name))).toEqual([
      'team-selection',
      'label-convention',
      'from-cli',
    ]);
    const edited = await cli(['note', 'edit', 'linear-work', 'echo.echo', 'from-cli', 'Edited.']);
    expect(edited.code).toBe(0);
    await waitFor(
      () => listedTool(client, 'echo_echo'),
      (tool: Wire) => String(tool.description).endsWith('• **from-cli**: Edited.'),
      5_000,
      20,
    );
    expect((await cli(['note', 'rm', 'linear-work', 'echo.echo', 'from-cli'])).code).toBe(0);
    await waitFor(
      () => listedTool(client, 'echo_echo'),
      (tool: Wire) => tool.description === HYDRATED,
      5_000,
      20,
    );
  });

  it('shows global and toolset overrides in tools/list with source override', async () => {
    const { client, changes } = current();
    const before = changes();
    const global = await cli(['override', 'set', 'echo.add', 'readOnlyHint=true', 'title=Sum']);
    expect(global.code).toBe(0);
    await nextChange(changes, before);
    const scoped = await cli([
      'override',
      'set',
      'echo.add',
      'openWorldHint=true',
      '--toolset',
      'linear-work',
    ]);
    expect(scoped.code).toBe(0);
    // `openWorldHint` is true by the protocol's default already: the toolset's override has
    // arrived when it is the source.
    const add = await waitFor(
      () => listedTool(client, 'echo_add'),
      (tool: Wire) =>
        tool._meta[META].sources.openWorldHint === 'override' &&
        tool.annotations.readOnlyHint === true,
      5_000,
      20,
    );
    expect(add.annotations).toMatchObject({
      readOnlyHint: true,
      title: 'Sum',
      openWorldHint: true,
    });
    expect(add._meta[META].sources).toMatchObject({
      readOnlyHint: 'override',
      title: 'override',
      openWorldHint: 'override',
    });
    expect(add._meta[META].overrides).toEqual({
      readOnlyHint: 'global',
      title: 'global',
      openWorldHint: 'toolset',
    });
    // `hintgate tools` shows the same values and where they came from.
    const report = JSON.parse((await cli(['tools', '--json', '--toolset', 'linear-work'])).stdout);
    const reported = report.tools.find((tool: Wire) => tool.namespacedName === 'echo.add');
    expect(reported.sources).toMatchObject({ readOnlyHint: 'override', openWorldHint: 'override' });
    expect(reported.overrides).toEqual({
      readOnlyHint: 'global',
      title: 'global',
      openWorldHint: 'toolset',
    });
    const table = await cli(['tools', '--toolset', 'linear-work']);
    const row = table.stdout.split('\n').find((line) => line.startsWith('echo_add ')) ?? '';
    expect(row).toMatch(/^echo_add +echo +RO= OPEN= +Sum /);
    expect(row).toContain('readOnlyHint=true (global)');
    expect(row).toContain('title=Sum (global)');
    expect(row).toContain('openWorldHint=true (toolset)');
    expect(table.stdout).toContain('= override');
    const listed = await cli(['override', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ tool: { namespacedName: 'echo.add' } }),
    ]);
    expect((await cli(['override', 'unset', 'echo.add'])).code).toBe(0);
    await waitFor(
      () => listedTool(client, 'echo_add'),
      (tool: Wire) => tool._meta[META].sources.readOnlyHint !== 'override',
      5_000,
      20,
    );
  });

  it('keeps an orphaned tool with its note, reports it, and brings it back when the tool returns', async () => {
    const { client } = current();
    await callTool(client, 'changing_grow');
    await waitFor(
      () => listedTool(client, 'changing_added_1'),
      (tool) => tool !== undefined,
      5_000,
      20,
    );
    await callTool(client, 'add-tool-annotation', {
      toolRef: { namespacedName: 'changing.added_1' },
      notes: [{ name: 'survives', note: 'Kept while the tool is gone.' }],
    });
    expect((await listedTool(client, 'changing_added_1')).description).toBe(
      'Gets item 1.\n\n### Additional Tool Notes\n\n• **survives**: Kept while the tool is gone.',
    );
    await callTool(client, 'changing_shrink');
    await waitFor(
      () => listedTool(client, 'changing_added_1'),
      (tool) => tool === undefined,
      5_000,
      20,
    );
    const listing = (await client.request({ method: 'tools/list', params: {} }, LOOSE)) as Wire;
    expect(listing._meta[TOOLSET_META].orphans.notes).toEqual([
      expect.objectContaining({
        name: 'survives',
        tool: expect.objectContaining({ namespacedName: 'changing.added_1' }),
      }),
    ]);
    const active = await callTool(client, 'get-active-toolset');
    expect(active.structuredContent.orphans.notes).toEqual([
      expect.objectContaining({ name: 'survives' }),
    ]);
    const shown = await cli(['toolset', 'show', 'linear-work', '--check']);
    expect(shown.stdout).toMatch(/orphans \(1; kept/);
    expect(shown.stdout).toMatch(
      /note changing\.added_1 .* survives: no tool in the catalog matches it now/,
    );

    await callTool(client, 'changing_grow');
    const back = await waitFor(
      () => listedTool(client, 'changing_added_1'),
      (tool) => tool !== undefined,
      5_000,
      20,
    );
    expect(back.description).toBe(
      'Gets item 1.\n\n### Additional Tool Notes\n\n• **survives**: Kept while the tool is gone.',
    );
  });

  it('exports and imports whole toolsets and notes, and still loads a toolset written before notes', async () => {
    const exported = await cli(['toolset', 'export', 'linear-work']);
    expect(exported.code).toBe(0);
    const document = JSON.parse(exported.stdout);
    expect(document).toMatchObject({ hintgate: 'toolset', version: 1, name: 'linear-work' });
    expect(document.notes.map((note: Wire) => String(note.name))).toContain('team-selection');

    const dir = scratchDir();
    const legacy = join(dir, 'legacy.json');
    // A document from before notes existed: no notes, no overrides.
    writeFileSync(
      legacy,
      JSON.stringify({
        hintgate: 'toolset',
        version: 1,
        name: 'old-style',
        members: [{ kind: 'tool', namespacedName: 'echo.echo' }],
      }),
    );
    expect((await cli(['toolset', 'import', legacy])).code).toBe(0);
    const notesFile = join(dir, 'notes.json');
    const notes = await cli(['note', 'export', 'linear-work', '-o', notesFile]);
    expect(notes.code).toBe(0);
    const imported = await cli(['note', 'import', 'old-style', notesFile]);
    expect(imported.stderr).toMatch(/imported 3 note\(s\) into "old-style"/);

    const { client } = current();
    await callTool(client, 'equip-toolset', { name: 'old-style' });
    expect((await listedTool(client, 'echo_echo')).description).toBe(HYDRATED);
    expect((await rawListTools(client)).map((tool) => tool['name'])).not.toContain('echo_add');
    const refused = await cli(['toolset', 'import', legacy]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/toolset "old-style" already exists; import with replace/);
  });

  it('gives clear CLI errors for bad names, unknown toolsets and tools, and bounds', async () => {
    const badName = await cli(['toolset', 'create', 'Bad Name']);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/toolset name "Bad Name" must match/);
    const unknown = await cli(['toolset', 'show', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/toolset "nope" does not exist; toolsets: /);
    const badTool = await cli(['note', 'add', 'linear-work', 'notatool', 'n', 'text']);
    expect(badTool.stderr).toMatch(/tool "notatool": expected a namespaced name/);
    const badNote = await cli(['note', 'add', 'linear-work', 'echo.echo', 'BAD', 'text']);
    expect(badNote.stderr).toMatch(/note name "BAD" must match/);
    const tooLong = await cli([
      'note',
      'add',
      'linear-work',
      'echo.echo',
      'long',
      'x'.repeat(2001),
    ]);
    expect(tooLong.stderr).toMatch(/is 2001 characters long; the limit is 2000/);
    const badField = await cli(['override', 'set', 'echo.echo', 'fast=true']);
    expect(badField.stderr).toMatch(/"fast=true": expected field=value with a field among/);
    const badValue = await cli(['override', 'set', 'echo.echo', 'readOnlyHint=maybe']);
    expect(badValue.stderr).toMatch(/readOnlyHint: expected true or false, got "maybe"/);
  });
});
