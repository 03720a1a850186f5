import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from './paths.js';

/** A server entry of a test config. */
export type ServerEntry = Record<string, unknown>;

/** A fixture server spawned with this Node, plus extra config keys. */
export function fixtureServer(
  name: string,
  args: readonly string[] = [],
  extra: ServerEntry = {},
): ServerEntry {
  return { command: process.execPath, args: [fixture(name), ...args], ...extra };
}

/** A scratch directory for one test. */
export function scratchDir(prefix = 'hintgate-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes a config file (JSON) into `dir` and returns its path. */
export function writeConfig(
  dir: string,
  servers: Record<string, ServerEntry>,
  rest: Record<string, unknown> = {},
): string {
  const path = join(dir, 'hintgate.config.json');
  writeFileSync(
    path,
    JSON.stringify({ mcpServers: servers, dataDir: join(dir, 'data'), ...rest }, null, 2),
  );
  return path;
}
