import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';

describe('--data-dir naming a directory that does not exist', () => {
  it('is refused instead of creating an empty store there', async () => {
    const typo = join(scratchDir(), 'hintgat');
    for (const args of [['toolset', 'list'], ['override', 'list'], ['audit']]) {
      const run = await runCli([...args, '--data-dir', typo]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`--data-dir ${typo}: no such directory`);
    }
    expect(existsSync(typo)).toBe(false);
  });
});

describe("a client's own config file used as hintgate's", () => {
  it('leaves its folder as it was: the data goes to the user data folder', async () => {
    const home = scratchDir();
    const claude = join(home, '.config', 'Claude');
    mkdirSync(claude, { recursive: true });
    const file = join(claude, 'claude_desktop_config.json');
    writeFileSync(
      file,
      JSON.stringify({ globalShortcut: 'Ctrl+Space', mcpServers: { echo: fixtureServer('echo') } }),
    );
    const run = await runCli(['tools', '--config', file], {
      env: { HOME: home, XDG_DATA_HOME: '' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(claude)).toEqual(['claude_desktop_config.json']);
    const dataDirs = readdirSync(join(home, '.local', 'share', 'hintgate'));
    expect(dataDirs).toEqual([expect.stringMatching(/^Claude-claude_desktop_config-[0-9a-f]{8}$/)]);
  }, 60_000);
});
