import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { preparedDataDir, removeTempDirs } from './helpers/harness.js';

/** Every path under `root` whose permissions are not the owner's alone. */
function open(root: string): string[] {
  const found: string[] = [];
  const stack = [root];
  for (let path = stack.pop(); path !== undefined; path = stack.pop()) {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) continue;
    const mode = stat.mode & 0o777;
    if (stat.isDirectory()) {
      if (mode !== 0o700) found.push(`${path} ${mode.toString(8)}`);
      for (const name of readdirSync(path)) stack.push(join(path, name));
    } else if (mode !== 0o600) found.push(`${path} ${mode.toString(8)}`);
  }
  return found;
}

describe('the embedded store on disk', () => {
  afterAll(removeTempDirs);

  it("keeps its data directory 0700 and every file 0600, PGlite's own included", async () => {
    const dataDir = await preparedDataDir();
    const store = await openStore({ kind: 'pglite', dataDir });
    try {
      await store.appendAudit([{ tool: 't', decision: 'allow', outcome: 'ok' }]);
      expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
      expect(open(dataDir)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
