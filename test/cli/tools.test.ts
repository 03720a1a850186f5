import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { Wire } from '../helpers/wire.js';

describe('hintgate tools', () => {
  const servers = {
    echo: fixtureServer('echo', [], { defaultAnnotations: { tags: ['fixture'] } }),
    modern: fixtureServer('modern'),
  };

  it('prints the catalog with badges, markers for inferred values and conflicts, and each server', async () => {
    const run = await runCli(['tools', '--config', writeConfig(scratchDir(), servers)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^tool +server +hints +title +policy$/m);
    expect(run.stdout).toMatch(/^echo_echo +echo +RO IDEM\S? +Echo text$/m);
    expect(run.stdout).toMatch(/^echo_delete_all_records +echo +no-RO! DESTR\*/m);
    expect(run.stdout).toMatch(/^modern_lookup +modern +RO /m);
    expect(run.stdout).toContain('* inferred');
    expect(run.stdout).toMatch(/^server "echo": up, 10 tool\(s\), protocol 2026-07-28$/m);
    expect(run.stdout).toMatch(
      /^conflict: echo_delete_all_records: declared read-only, but .*; acting on readOnlyHint=false$/m,
    );
  });

  it('prints JSON with sources and the status of every server, and exits 3 when one is down', async () => {
    const dir = scratchDir();
    const run = await runCli([
      'tools',
      '--json',
      '--config',
      writeConfig(dir, { ...servers, gone: { command: join(dir, 'missing') } }),
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('1 of 3 server(s) did not come up');
    const report = JSON.parse(run.stdout);
    expect(report.servers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'gone',
          state: 'down',
          reason: expect.stringContaining('command not found'),
        }),
        expect.objectContaining({ name: 'modern', state: 'up', era: 'modern', tools: 3 }),
      ]),
    );
    const echo = report.tools.find((tool: Wire) => tool.flattenedName === 'echo_echo');
    expect(echo).toMatchObject({
      server: 'echo',
      name: 'echo',
      namespacedName: 'echo.echo',
      declared: { title: 'Echo text', readOnlyHint: true, openWorldHint: false },
      annotations: { title: 'Echo text', readOnlyHint: true, openWorldHint: false },
      extensions: { tags: ['fixture'] },
      sources: { readOnlyHint: 'declared', tags: 'server-default' },
    });
  });

  it('says which tools policy will ask about, queue or refuse, with a toolset too', async () => {
    const dir = scratchDir();
    const config = writeConfig(
      dir,
      { echo: fixtureServer('echo') },
      {
        policy: {
          servers: { echo: { confirm: 'writes' } },
          tools: {
            'echo.delete_all_records': { deny: true },
            'echo.add': { requireApprovalQueue: true },
          },
        },
      },
    );
    const run = await runCli(['tools', '--config', config]);
    expect(run.code, run.stderr).toBe(0);
    const policyOf = (stdout: string, tool: string): string =>
      new RegExp(`^${tool} .*$`, 'm')
        .exec(stdout)?.[0]
        .split(/\s{2,}/)
        .at(-1) ?? '';
    expect(run.stdout).toMatch(/^echo_echo +echo +RO IDEM\S? +Echo text$/m);
    expect(policyOf(run.stdout, 'echo_add')).toBe('approval queue');
    expect(policyOf(run.stdout, 'echo_delete_all_records')).toBe('denied');
    expect(policyOf(run.stdout, 'echo_log')).toBe('confirm');
    expect(run.stdout).toMatch(
      /^policy: \d+ tool\(s\) confirm \(the client is asked when it can answer, else the approval queue\), 1 only through the approval queue, 1 denied; --explain says why$/m,
    );
    const explained = await runCli(['tools', '--config', config, '--explain']);
    expect(explained.stdout).toMatch(/^ {2}denied: calls to this tool are denied by policy$/m);
    expect(explained.stdout).toMatch(/^ {2}confirm: policy confirm: writes; readOnlyHint: false/m);

    const json = JSON.parse((await runCli(['tools', '--config', config, '--json'])).stdout);
    const add = json.tools.find((tool: Wire) => tool.flattenedName === 'echo_add');
    expect(add.policy).toMatchObject({ decision: 'confirm', channel: 'queue' });

    // In a toolset whose override makes echo.add read-only, it is called without asking.
    for (const args of [
      ['toolset', 'create', 'calm', '--server', 'echo'],
      ['override', 'set', 'echo.add', 'readOnlyHint=true', '--toolset', 'calm'],
    ]) {
      const setup = await runCli([...args, '--config', config]);
      expect(setup.code, setup.stderr).toBe(0);
    }
    const calm = await runCli(['tools', '--config', config, '--toolset', 'calm']);
    expect(calm.code, calm.stderr).toBe(0);
    expect(policyOf(calm.stdout, 'echo_add')).not.toMatch(/confirm|queue|denied/);
    expect(policyOf(calm.stdout, 'echo_delete_all_records')).toBe('denied');
  }, 180_000);

  it('finds hintgate.config.json in the working directory, and says so when there is none', async () => {
    const missing = await runCli(['tools'], { env: {} });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /no config file: pass --config <file> or create one of hintgate\.config\.json/,
    );
  });
});
