import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BUNDLE_NAME,
  BUNDLE_STAMP,
  bundleBeside,
  cacheKey,
  codeCacheDir,
} from '../../src/cli/code-cache.js';
import { Client } from '@modelcontextprotocol/client';
import { connectGatewayStdio, writeFastConfig } from '../helpers/call-path.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import { waitFor } from '../helpers/processes.js';
import { CLI, requireBuiltCli } from '../helpers/paths.js';

/** Runs the built `hintgate` with these variables added to a plain environment. */
function hintgate(args: string[], env: Record<string, string>) {
  const run = spawnSync(process.execPath, [requireBuiltCli(), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The one cache file in `dir`. */
function cacheFile(dir: string): string {
  const files = readdirSync(dir).filter((name) => name.endsWith('.v8'));
  expect(files).toHaveLength(1);
  return join(dir, files[0] as string);
}

describe('the bundled CLI and its code cache', () => {
  it('writes a cache for this user alone, then runs from it without writing it again', () => {
    const dir = join(scratchDir(), 'cache');
    const first = hintgate(['--version'], { HINTGATE_CODE_CACHE: dir });
    expect(first).toMatchObject({ status: 0, stderr: '' });
    expect(first.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const file = cacheFile(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stamp = readFileSync(join(CLI, '..', BUNDLE_NAME), 'utf8').split('\n')[0] ?? '';
    const header = readFileSync(file).subarray(0, 200).toString('latin1').split('\n')[0];
    expect(header).toBe(
      `hintgate code cache 1 ${stamp.slice(BUNDLE_STAMP.length)} ${process.version} ${process.arch}`,
    );

    // Used as it is: not written again (the same file, untouched).
    const before = statSync(file);
    const second = hintgate(['--version'], { HINTGATE_CODE_CACHE: dir });
    expect(second).toMatchObject({ status: 0, stdout: first.stdout, stderr: '' });
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);

    // Run from the cache, what the bundle loads from outside (here Node's fs, which the
    // OpenAPI parser imports on use) still loads: the error is the document's, not a read's.
    const openapi = join(dirname(dir), 'bad.yaml');
    writeFileSync(
      openapi,
      'openapi: 3.0.3\ninfo: { title: bad, version: "1" }\npaths:\n  /pets:\n    get:\n      responses:\n        "200": { descriptio: typo }\n',
    );
    const config = join(dirname(dir), 'hintgate.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { broken: { openapi } },
        dataDir: join(dirname(dir), 'data'),
      }),
    );
    const broken = hintgate(['serve', '--config', config], { HINTGATE_CODE_CACHE: dir });
    expect(broken.status).toBe(2);
    expect(broken.stderr).toContain("must have required property 'description'");
    expect(statSync(file).ino).toBe(before.ino);
  });

  it("grows the cache a short command left with what a gateway's start compiles", async () => {
    const dir = join(scratchDir(), 'cache');
    expect(hintgate(['--version'], { HINTGATE_CODE_CACHE: dir }).status).toBe(0);
    const file = cacheFile(dir);
    const small = statSync(file);
    const client = new Client({ name: 'test', version: '1' });
    try {
      const config = await writeFastConfig(scratchDir(), { echo: fixtureServer('echo') });
      await connectGatewayStdio(client, config, [], { HINTGATE_CODE_CACHE: dir });
      await client.listTools();
      // Written again about a second after the start settled, while the gateway serves.
      const grown = await waitFor(
        () => statSync(file),
        (stat) => stat.ino !== small.ino,
        10_000,
      );
      expect(grown.size).toBeGreaterThan(small.size * 1.05);
      expect(grown.mode & 0o777).toBe(0o600);
    } finally {
      await client.close();
    }
    // What a later run reads: a cache this Node and bundle use.
    const later = hintgate(['--version'], { HINTGATE_CODE_CACHE: dir });
    expect(later).toMatchObject({ status: 0, stderr: '' });
    expect(statSync(file).size).toBeGreaterThan(small.size * 1.05);
  });

  it('replaces a cache V8 refuses, and one others could have written, and runs all the same', () => {
    const dir = join(scratchDir(), 'cache');
    expect(hintgate(['--version'], { HINTGATE_CODE_CACHE: dir }).status).toBe(0);
    const file = cacheFile(dir);
    const good = readFileSync(file);

    // Damaged V8 data behind a valid header: V8 refuses it, the run compiles, a new one is written.
    const damaged = Buffer.from(good);
    const start = damaged.indexOf(0x0a) + 1;
    damaged.fill(0x5a, start, start + 64);
    writeFileSync(file, damaged, { mode: 0o600 });
    const refused = hintgate(['--version'], { HINTGATE_CODE_CACHE: dir });
    expect(refused).toMatchObject({ status: 0, stderr: '' });
    expect(readFileSync(file).equals(damaged)).toBe(false);
    expect(readFileSync(file).subarray(0, start)).toEqual(good.subarray(0, start));

    // A file others may write is not read, and is replaced by one only this user can write.
    chmodSync(file, 0o666);
    const before = statSync(file).ino;
    expect(hintgate(['--version'], { HINTGATE_CODE_CACHE: dir }).status).toBe(0);
    expect(statSync(file).ino).not.toBe(before);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps a cache of its own for other V8 options, and both are used', () => {
    const dir = join(scratchDir(), 'cache');
    const flags = { HINTGATE_CODE_CACHE: dir, NODE_OPTIONS: '--max-old-space-size=512' };
    expect(hintgate(['--version'], { HINTGATE_CODE_CACHE: dir }).status).toBe(0);
    expect(hintgate(['--version'], flags).status).toBe(0);
    const files = readdirSync(dir).filter((name) => name.endsWith('.v8'));
    expect(files).toHaveLength(2);
    const before = files.map((name) => statSync(join(dir, name)).ino);
    // Each run finds its own, which V8 takes: neither is written again.
    expect(hintgate(['--version'], { HINTGATE_CODE_CACHE: dir }).status).toBe(0);
    expect(hintgate(['--version'], flags).status).toBe(0);
    expect(files.map((name) => statSync(join(dir, name)).ino)).toEqual(before);
  });

  it('writes no cache when told not to, and runs the same program from the modules', () => {
    const scratch = scratchDir();
    const bundled = hintgate(['--help'], { HINTGATE_CODE_CACHE: 'off', XDG_CACHE_HOME: scratch });
    expect(bundled.status).toBe(0);
    expect(readdirSync(scratch)).toEqual([]);
    const modules = hintgate(['--help'], { HINTGATE_BUNDLE: 'off', XDG_CACHE_HOME: scratch });
    expect(modules).toEqual(bundled);
    expect(readdirSync(scratch)).toEqual([]);
    const unknown = hintgate(['no-such-command'], { HINTGATE_CODE_CACHE: 'off' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'no-such-command'");
  });
});

describe('bundleBeside', () => {
  it('takes the bundle beside main.js unless it is missing, older than the modules, or off', () => {
    const dist = scratchDir();
    const cli = join(dist, 'cli');
    mkdirSync(cli);
    const main = join(cli, 'main.js');
    expect(bundleBeside(main, {})).toBeUndefined();
    writeFileSync(join(cli, BUNDLE_NAME), `${BUNDLE_STAMP}x\n`);
    expect(bundleBeside(main, {})).toBe(join(cli, BUNDLE_NAME));
    expect(bundleBeside(main, { HINTGATE_BUNDLE: 'off' })).toBeUndefined();
    // tsc emitted after the bundle was made: the modules are newer.
    writeFileSync(join(dist, '.tsbuildinfo'), '{}');
    const later = new Date(Date.now() + 5000);
    utimesSync(join(dist, '.tsbuildinfo'), later, later);
    expect(bundleBeside(main, {})).toBeUndefined();
  });
});

describe('cacheKey', () => {
  it("names one file per bundle and per Node options V8's flags may depend on", () => {
    const key = cacheKey('/a/hintgate.cjs', [], undefined);
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(cacheKey('/a/hintgate.cjs', [], '')).toBe(key);
    expect(cacheKey('/b/hintgate.cjs', [], undefined)).not.toBe(key);
    expect(cacheKey('/a/hintgate.cjs', ['--max-old-space-size=512'], undefined)).not.toBe(key);
    expect(cacheKey('/a/hintgate.cjs', [], '--max-old-space-size=512')).not.toBe(key);
  });
});

describe('codeCacheDir', () => {
  it('is HINTGATE_CODE_CACHE, else under XDG_CACHE_HOME, else ~/.cache; off is none', () => {
    expect(codeCacheDir({ HINTGATE_CODE_CACHE: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(codeCacheDir({ HINTGATE_CODE_CACHE: 'off' })).toBeUndefined();
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x' })).toBe(join('/x', 'hintgate'));
    expect(codeCacheDir({})).toMatch(/\.cache[/\\]hintgate$/);
  });
});
