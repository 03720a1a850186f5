import { describe, expect, it } from 'vitest';
import { stderrReason } from '../../src/downstream/stderr-reason.js';
import { runCli } from '../helpers/cli.js';
import { scratchDir, writeConfig } from '../helpers/config.js';

const NODE_CRASH = `node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/srv/nosuch/dist/index.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`;

describe('stderrReason', () => {
  it('picks the line that says what happened, not the last ones', () => {
    expect(stderrReason(NODE_CRASH)).toBe("Error: Cannot find module '/srv/nosuch/dist/index.js'");
    expect(
      stderrReason(
        'Traceback (most recent call last):\n  File "x.py", line 1\nModuleNotFoundError: No module named \'mcp\'\n',
      ),
    ).toBe("ModuleNotFoundError: No module named 'mcp'");
    expect(stderrReason('starting\nfatal: crashing on purpose\nbye\n')).toBe(
      'fatal: crashing on purpose',
    );
    expect(stderrReason('one\ntwo\nthree\nfour\n')).toBe('two | three | four');
    expect(stderrReason('')).toBe('');
  });

  it('is the reason a server that cannot start is down', async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, {
      broken: { command: process.execPath, args: [`${dir}/nosuch/dist/index.js`] },
    });
    const run = await runCli(['tools', '--config', config]);
    expect(run.stdout + run.stderr).toContain(
      `stderr: Error: Cannot find module '${dir}/nosuch/dist/index.js'`,
    );
  }, 120_000);
});
