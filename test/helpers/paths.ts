import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The built CLI the end-to-end tests spawn. */
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** A fixture server script under test/fixtures/servers. */
export function fixture(name: string): string {
  return join(ROOT, 'test', 'fixtures', 'servers', `${name}.mjs`);
}

/** Fails with a clear message when the CLI has not been built (`npm run build`). */
export function requireBuiltCli(): string {
  if (!existsSync(CLI)) {
    throw new Error(
      `${CLI} is missing: run "npm run build" before the end-to-end tests (npm test does)`,
    );
  }
  return CLI;
}

/** The entry script of an installed npm package's bin (runs offline with `node`). */
export function packageBin(pkg: string, bin?: string): string {
  const manifest = join(ROOT, 'node_modules', pkg, 'package.json');
  const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const entry =
    typeof json.bin === 'string'
      ? json.bin
      : json.bin?.[bin ?? Object.keys(json.bin ?? {})[0] ?? ''];
  if (entry === undefined) throw new Error(`${pkg} has no bin`);
  return join(ROOT, 'node_modules', pkg, entry);
}
