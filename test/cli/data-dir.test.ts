import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratchDir } from '../helpers/config.js';

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
