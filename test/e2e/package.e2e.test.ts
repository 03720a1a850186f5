import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratchDir } from '../helpers/config.js';
import { ROOT, requireBuiltCli } from '../helpers/paths.js';

const run = promisify(execFile);

// The package as a new user gets it: packed, installed into an empty folder without dev
// dependencies, a config written by `hintgate init` from a Claude Desktop file, served, and
// a tool called through it by an SDK client.
describe('the packed package, installed into an empty folder', () => {
  let folder: string;
  let home: string;
  let tarball: string;
  let client: Client | undefined;
  let stderr = '';

  beforeAll(async () => {
    requireBuiltCli(); // packed as built (npm test builds first)
    const packs = scratchDir('hintgate-pack-');
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', packs], {
      cwd: ROOT,
    });
    tarball = join(packs, packed.stdout.trim().split('\n').pop() as string);
    folder = scratchDir('hintgate-user-');
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ private: true }));
    const memoryVersion = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies['@modelcontextprotocol/server-memory'] as string;
    await run(
      'npm',
      [
        'install',
        '--omit=dev',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        tarball,
        `@modelcontextprotocol/server-memory@${memoryVersion}`,
      ],
      { cwd: folder, maxBuffer: 16 * 1024 * 1024 },
    );
    // The user's Claude Desktop config (Linux place), with the app's own keys beside it.
    home = join(folder, 'home');
    mkdirSync(join(home, '.config', 'Claude'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'Claude', 'claude_desktop_config.json'),
      JSON.stringify({
        globalShortcut: 'Ctrl+Space',
        mcpServers: {
          memory: {
            command: 'node',
            args: [join(folder, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
            env: { MEMORY_FILE_PATH: join(folder, 'memory.jsonl') },
          },
        },
      }),
    );
  }, 300_000);

  afterAll(async () => {
    await client?.close();
  });

  it('holds what it needs and no scratch files', async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.split('\n').filter((line) => line !== '');
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/dist/cli/main.js');
    expect(files).toContain('package/examples/hintgate.config.yaml');
    const demo = files.filter((file) => file.startsWith('package/examples/demo/'));
    expect(demo.sort()).toEqual([
      'package/examples/demo/README.md',
      'package/examples/demo/data/cities.json',
      'package/examples/demo/notes.txt',
      'package/examples/demo/todo.md',
    ]);
    expect(files.some((file) => file.includes('tsbuildinfo'))).toBe(false);
    // No dev dependency came along.
    expect(existsSync(join(folder, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(folder, 'node_modules', '.bin', 'hintgate'))).toBe(true);
  });

  it('writes a config with `hintgate init --yes` and serves it with `hintgate serve`', async () => {
    const bin = join(folder, 'node_modules', '.bin', 'hintgate');
    const init = await runCli(['init', '--yes'], {
      cwd: folder,
      env: { HOME: home, XDG_CONFIG_HOME: '' },
      command: bin,
    });
    expect(init.stderr).toContain('1 server(s) from');
    expect(init.code).toBe(0);

    const transport = new StdioClientTransport({
      command: bin,
      args: ['serve'],
      cwd: folder,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(transport);
    const result = await client.callTool({
      name: 'memory_create_entities',
      arguments: {
        entities: [{ name: 'hintgate', entityType: 'package', observations: ['installed'] }],
      },
    });
    expect(result.isError, stderr).not.toBe(true);
    expect(readFileSync(join(folder, 'memory.jsonl'), 'utf8')).toContain('"hintgate"');
    // The store lives beside the config, never inside the installed package.
    expect(existsSync(join(folder, '.hintgate'))).toBe(true);
    expect(readdirSync(join(folder, 'node_modules', 'hintgate'))).not.toContain('.hintgate');
  }, 120_000);
});
