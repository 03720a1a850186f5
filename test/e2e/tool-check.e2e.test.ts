import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { startHttpGateway } from '../helpers/gateway.js';
import { waitForRelease } from '../helpers/toolsets.js';
import { join } from 'node:path';

// Store commands told about a tool check it against the running gateway's catalog: a tool
// that does not exist is written anyway (an orphan is legal) with a warning, or refused with
// --strict; without a running gateway they say that nothing was checked.
describe('tools checked against the catalog by the store commands', () => {
  const dir = scratchDir();
  let config: string;
  let gateway: (GatewayProcess & { url: string }) | undefined;
  const cli = (...args: string[]) => runCli([...args, '--config', config]);

  beforeAll(async () => {
    config = writeConfig(dir, {
      echo: fixtureServer('echo'),
      broken: {
        command: process.execPath,
        args: ['-e', 'process.exit(1)'],
        reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      },
    });
    gateway = await startHttpGateway(config);
    await gateway.waitForStderr(/1 of 2 server\(s\) up/, 60_000);
  }, 90_000);

  afterAll(async () => {
    if (gateway !== undefined) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
  });

  it('warns about a tool or server that does not exist, and keeps it', async () => {
    const created = await cli('toolset', 'create', 'bad', '--tool', 'nosuch.tool');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain(
      'hintgate: warning: nosuch.tool: the running gateway has no server of that name (servers: broken, echo)',
    );
    expect(created.stderr).toContain('kept anyway: it resolves to no tool now (an orphan');

    const note = await cli('note', 'add', 'bad', 'echo.ecko', 'tip', 'Say', 'hello.');
    expect(note.code, note.stderr).toBe(0);
    expect(note.stderr).toContain(
      'warning: echo.ecko: server "echo" has no tool "ecko" (did you mean echo.echo?)',
    );
    const notes = await cli('note', 'list', 'bad', '--json');
    expect(JSON.parse(notes.stdout)).toEqual([
      expect.objectContaining({ tool: { namespacedName: 'echo.ecko' }, name: 'tip' }),
    ]);

    const added = await cli('toolset', 'add', 'bad', '--server', 'ecko', '--tool', 'echo.add');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(
      'warning: server "ecko": the running gateway has no such server (servers: broken, echo) (did you mean echo?)',
    );
    expect(added.stderr).not.toContain('echo.add');

    // An imported toolset is checked as written: members, notes and overrides.
    const file = join(dir, 'bad.json');
    expect((await cli('toolset', 'export', 'bad', '-o', file)).code).toBe(0);
    const imported = await cli('toolset', 'import', file, '--name', 'bad-copy');
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('warning: nosuch.tool: the running gateway has no server');
    expect(imported.stderr).toContain('warning: echo.ecko: server "echo" has no tool "ecko"');
    expect(imported.stderr).toContain('warning: server "ecko": the running gateway has no such');

    const notesFile = join(dir, 'notes.json');
    expect((await cli('note', 'export', 'bad', '-o', notesFile)).code).toBe(0);
    const notesImported = await cli('note', 'import', 'bad-copy', notesFile);
    expect(notesImported.code, notesImported.stderr).toBe(0);
    expect(notesImported.stderr).toContain('warning: echo.ecko: server "echo" has no tool');

    const removed = await cli('toolset', 'remove', 'bad', '--server', 'ecko', '--tool', 'echo.x');
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toBe(
      'hintgate: removed 1 member(s) of "bad"; 2 left (the others were not members)\n',
    );
  }, 180_000);

  it('says what it cannot check: a tool of a server that is down', async () => {
    const run = await cli('override', 'set', 'broken.reset', 'destructiveHint=true');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /not checked: server "broken" is (down|connecting).*, so whether it has a tool "reset" is not known/,
    );
  }, 180_000);

  it('writes silently what exists, and refuses with --strict what does not', async () => {
    const good = await cli('toolset', 'create', 'good', '--tool', 'echo.echo', '--server', 'echo');
    expect(good.code, good.stderr).toBe(0);
    expect(good.stderr).toBe('hintgate: created toolset "good" with 2 member(s)\n');

    const strict = await cli('override', 'set', 'echo.typo', 'readOnlyHint=true', '--strict');
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain(
      '--strict: echo.typo: server "echo" has no tool "typo"; nothing was written',
    );
    const overrides = await cli('override', 'list', '--json');
    expect(JSON.parse(overrides.stdout)).not.toContainEqual(
      expect.objectContaining({ tool: { namespacedName: 'echo.typo' } }),
    );
    const strictCreate = await cli('toolset', 'create', 'never', '--tool', 'echo.nope', '--strict');
    expect(strictCreate.code).toBe(2);
    const list = await cli('toolset', 'list', '--json');
    expect(JSON.parse(list.stdout).map((row: { name: string }) => row.name)).not.toContain('never');
  }, 180_000);

  it('without a running gateway, writes and says nothing was checked (--strict refuses)', async () => {
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
    gateway = undefined;
    await waitForRelease(join(dir, 'data'));
    const run = await cli('note', 'add', 'good', 'echo.echo', 'tone', 'Be', 'brief.');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'not checked against the catalog: echo.echo: no gateway is running on this data directory (its servers are not started just for this)',
    );
    const strict = await cli('note', 'add', 'good', 'echo.echo', 'other', 'x', '--strict');
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain(
      '--strict: echo.echo could not be checked: no gateway is running',
    );
  }, 180_000);
});
