import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';

// The store opens while the servers start; a store that cannot be opened still ends the
// gateway with its reason, as it did when it was opened first.
describe('a store that cannot be opened', () => {
  it('ends serve with the reason, after the servers it started', async () => {
    const config = writeConfig(scratchDir(), { echo: fixtureServer('echo') });
    const run = await runCli([
      'serve',
      '--config',
      config,
      '--http',
      '127.0.0.1:0',
      '--no-auth',
      '--store',
      'postgres://postgres@127.0.0.1:1/nothing',
    ]);
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBe(13);
    expect(run.stderr).toMatch(/127\.0\.0\.1:1/);
    expect(run.stderr).toMatch(/shutting down/);
  }, 60_000);
});
