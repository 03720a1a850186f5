import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixture } from '../helpers/paths.js';
import { scratchDir, writeConfig } from '../helpers/config.js';
import { connectStdio, rawListTools } from '../helpers/gateway.js';
import { isAlive, processTable, waitFor } from '../helpers/processes.js';

/**
 * The echo fixture, started through a shell that first appends its pid to `pidFile`; both
 * carry the file's path on their command line, to be found in the process table.
 */
function countedEcho(pidFile: string): Record<string, unknown> {
  return {
    command: '/bin/sh',
    args: [
      '-c',
      `echo $$ >> '${pidFile}'; exec '${process.execPath}' '${fixture('echo')}' '${pidFile}'`,
    ],
  };
}

function pidsIn(pidFile: string): number[] {
  if (!existsSync(pidFile)) return [];
  return readFileSync(pidFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

// `hintgate serve` starts its stdio servers as soon as it has read its config; each server's
// connection then takes over the process started for it, and none is left behind.
describe('servers started early', () => {
  it('are each started once: the connection uses the process started early', async () => {
    const dir = scratchDir();
    const pids = { a: join(dir, 'a.pids'), b: join(dir, 'b.pids') };
    const config = writeConfig(dir, { a: countedEcho(pids.a), b: countedEcho(pids.b) });
    const { client } = await connectStdio(config, 'v2-legacy');
    try {
      const names = (await rawListTools(client)).map((tool) => tool['name']);
      expect(names).toContain('a_add');
      expect(names).toContain('b_add');
      expect(pidsIn(pids.a)).toHaveLength(1);
      expect(pidsIn(pids.b)).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('are ended when serve stops before serving', async () => {
    const dir = scratchDir();
    const pidFile = join(dir, 'a.pids');
    const config = writeConfig(dir, { a: countedEcho(pidFile) });
    // Refused once the gateway has loaded: an address off loopback without a token.
    const serve = await runCli(['serve', '--config', config, '--http', '0.0.0.0:0'], {
      timeoutMs: 30_000,
    });
    expect(serve.stderr).toMatch(/needs a bearer token/);
    expect(serve.code).toBe(2);
    const started = pidsIn(pidFile);
    const left = await waitFor(
      () => [
        ...started.filter(isAlive),
        ...processTable()
          .filter((row) => row.args.includes(pidFile))
          .map((row) => row.pid),
      ],
      (alive) => alive.length === 0,
      5000,
    );
    expect(left).toEqual([]);
  }, 60_000);
});
