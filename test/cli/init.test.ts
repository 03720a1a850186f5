import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { runCli } from '../helpers/cli.js';
import { scratchDir } from '../helpers/config.js';

/** A home directory holding a Claude Desktop config (Linux place) with its own keys. */
function homeWithClaude(): string {
  const home = scratchDir('hintgate-home-');
  const dir = join(home, '.config', 'Claude');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'claude_desktop_config.json'),
    JSON.stringify({
      globalShortcut: 'Ctrl+Space',
      mcpServers: {
        memory: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { TOKEN: '${MY_TOKEN:-none}' },
        },
        old: { command: 'node', args: ['old.js'], disabled: true },
      },
    }),
  );
  return home;
}

const clean = { XDG_CONFIG_HOME: '' };

describe('hintgate init', () => {
  it("imports a Claude Desktop config's servers with --yes, and the result loads", async () => {
    const home = homeWithClaude();
    const cwd = scratchDir();
    const run = await runCli(['init', '--yes'], { cwd, env: { ...clean, HOME: home } });
    expect(run.stderr).toContain('1 server(s) from');
    expect(run.code).toBe(0);
    const file = join(cwd, 'hintgate.config.yaml');
    const written = parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> };
    // Only the servers, with their variables as written; disabled ones left out.
    expect(written.mcpServers).toEqual({
      memory: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        env: { TOKEN: '${MY_TOKEN:-none}' },
      },
    });
    const loaded = await loadConfig(file, { env: {} });
    expect(loaded.dataDir).toBe(join(cwd, '.hintgate'));
  });

  it('without consent (no terminal, no --yes) writes the starter config and says how to import', async () => {
    const home = homeWithClaude();
    const cwd = scratchDir();
    const run = await runCli(['init'], { cwd, env: { ...clean, HOME: home } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'Not imported: run `npx hintgate init --yes --force` to replace the starter config written now with them.',
    );
    const text = readFileSync(join(cwd, 'hintgate.config.yaml'), 'utf8');
    expect(text).toContain('@modelcontextprotocol/server-memory');
    expect(text).toContain('MEMORY_FILE_PATH: ${HINTGATE_DATA_DIR}/memory.jsonl');
    const loaded = await loadConfig(join(cwd, 'hintgate.config.yaml'), { env: {} });
    expect(loaded.config.mcpServers['memory']?.env['MEMORY_FILE_PATH']).toBe(
      join(cwd, '.hintgate', 'memory.jsonl'),
    );
    // What it says to run works.
    const again = await runCli(['init', '--yes', '--force'], {
      cwd,
      env: { ...clean, HOME: home },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'hintgate.config.yaml'), 'utf8')).toContain('${MY_TOKEN:-none}');
  });

  it('imports a VS Code file given with --from, and refuses to overwrite without --force', async () => {
    const cwd = scratchDir();
    const from = join(cwd, 'mcp.json');
    writeFileSync(
      from,
      JSON.stringify({
        inputs: [],
        servers: { remote: { type: 'http', url: 'https://mcp.example.test/mcp' } },
      }),
    );
    const home = scratchDir('hintgate-home-');
    const first = await runCli(['init', '--from', from], { cwd, env: { HOME: home } });
    expect(first.code).toBe(0);
    expect(readFileSync(join(cwd, 'hintgate.config.yaml'), 'utf8')).toContain(
      'url: https://mcp.example.test/mcp',
    );
    const again = await runCli(['init', '--from', from], { cwd, env: { HOME: home } });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists; pass --force');
    const forced = await runCli(['init', '--no-import', '--force'], { cwd, env: { HOME: home } });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(cwd, 'hintgate.config.yaml'), 'utf8')).toContain('server-memory');
  });

  it('refuses a client file hintgate could not load, naming the bad key', async () => {
    const cwd = scratchDir();
    const from = join(cwd, 'bad.json');
    writeFileSync(from, JSON.stringify({ mcpServers: { x: { command: 'a', comand: 'b' } } }));
    const run = await runCli(['init', '--from', from], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('mcpServers.x: unknown key "comand"');
  });
});
