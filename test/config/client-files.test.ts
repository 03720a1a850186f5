import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';

const env = { HOME: '/home/u' };

function issuesOf(value: unknown): string[] {
  try {
    parseConfig(JSON.stringify(value), '/x/claude_desktop_config.json', { env });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe("clients' own config files", () => {
  it("reads a Claude Desktop file with the app's own settings beside mcpServers", () => {
    const file = {
      globalShortcut: 'Ctrl+Space',
      preferences: { menuBarEnabled: true, quickEntryShortcut: 'off' },
      isUsingBuiltInNodeForMcp: true,
      isDxtAutoUpdatesEnabled: true,
      'dxt:allowlistEnabled': false,
      mcpServers: { fs: { command: 'npx', args: ['-y', 'server-filesystem', '/tmp'] } },
    };
    expect(issuesOf(file)).toEqual([]);
    const { config } = parseConfig(JSON.stringify(file), '/x/c.json', { env });
    expect(Object.keys(config.mcpServers)).toEqual(['fs']);
  });

  it("reads VS Code's servers and inputs format", () => {
    const file = {
      inputs: [{ type: 'promptString', id: 'token', description: 'API token', password: true }],
      servers: {
        files: {
          type: 'stdio',
          command: 'node',
          args: ['server.js', '${workspaceFolder}'],
          envFile: '${workspaceFolder}/.env',
        },
        remote: { type: 'http', url: 'https://mcp.example.test/mcp' },
      },
    };
    expect(issuesOf(file)).toEqual([]);
    const { config } = parseConfig(JSON.stringify(file), '/x/mcp.json', { env });
    expect(Object.keys(config.mcpServers)).toEqual(['files', 'remote']);
    // A variable meant for another client passes through unchanged.
    expect(config.mcpServers['files']?.args).toEqual(['server.js', '${workspaceFolder}']);
  });

  it('still refuses unknown keys elsewhere, by their path', () => {
    expect(
      issuesOf({
        globalShortcut: 'Ctrl+Space',
        globalShortcutt: 'typo',
        mcpServers: { fs: { command: 'x', comand: 'y' } },
        policy: { confrim: 'writes' },
      }).sort(),
    ).toEqual([
      '(top level): unknown key "globalShortcutt"',
      'mcpServers.fs: unknown key "comand"',
      'policy: unknown key "confrim"',
    ]);
  });

  it('refuses a file with both servers and mcpServers', () => {
    expect(issuesOf({ servers: {}, mcpServers: {} })).toEqual([
      'servers: both "servers" (VS Code) and "mcpServers" are given; keep one',
    ]);
  });
});

describe('paths in a config', () => {
  it('runs servers in the config file directory, with relative cwd resolved against it', () => {
    const { config } = parseConfig(
      JSON.stringify({
        mcpServers: {
          a: { command: 'node', args: ['a.js'] },
          b: { command: 'node', cwd: 'sub' },
          c: { command: 'node', cwd: '/abs' },
          d: { replicas: [{ command: 'node' }, { command: 'node', cwd: 'r' }] },
        },
      }),
      '/etc/hg/hintgate.config.json',
      { env },
    );
    expect(config.mcpServers['a']?.cwd).toBe('/etc/hg');
    expect(config.mcpServers['b']?.cwd).toBe('/etc/hg/sub');
    expect(config.mcpServers['c']?.cwd).toBe('/abs');
    expect(config.mcpServers['d']?.cwd).toBe('/etc/hg');
    expect(config.mcpServers['d']?.replicas.map((r) => r.cwd)).toEqual([undefined, '/etc/hg/r']);
  });

  it('expands the config and data directories, absolute, in env, args and cwd', () => {
    const { config, dataDir } = parseConfig(
      JSON.stringify({
        dataDir: '../data',
        mcpServers: {
          memory: {
            command: 'node',
            args: ['${HINTGATE_CONFIG_DIR}/server.js'],
            env: { MEMORY_FILE_PATH: '${HINTGATE_DATA_DIR}/memory.jsonl' },
          },
        },
      }),
      '/etc/hg/conf/c.json',
      { env: { ...env, HINTGATE_DATA_DIR: '/not/this' } },
    );
    expect(dataDir).toBe('/etc/hg/data');
    expect(config.mcpServers['memory']?.args).toEqual(['/etc/hg/conf/server.js']);
    expect(config.mcpServers['memory']?.env).toEqual({
      MEMORY_FILE_PATH: '/etc/hg/data/memory.jsonl',
    });
  });

  it("keeps the data of a client's own file in the user's data folder, never beside the file", () => {
    const servers = { mcpServers: { m: { command: 'node' } } };
    const dataDirOf = (
      file: string,
      value: unknown,
      extra: { env?: Record<string, string>; platform?: NodeJS.Platform } = {},
    ) =>
      parseConfig(JSON.stringify(value), file, {
        env: extra.env ?? env,
        platform: extra.platform ?? 'linux',
      }).dataDir;
    const claude = '/home/u/.config/Claude/claude_desktop_config.json';
    expect(dataDirOf(claude, servers)).toMatch(
      /^\/home\/u\/\.local\/share\/hintgate\/Claude-claude_desktop_config-[0-9a-f]{8}$/,
    );
    // One folder per file: another client's file gets another.
    expect(dataDirOf('/home/u/.cursor/mcp.json', servers)).toMatch(
      /^\/home\/u\/\.local\/share\/hintgate\/cursor-mcp-[0-9a-f]{8}$/,
    );
    expect(dataDirOf('/w/p/.vscode/mcp.json', { servers: { m: { command: 'node' } } })).toMatch(
      /\/vscode-mcp-[0-9a-f]{8}$/,
    );
    // Any file holding a client's own keys counts.
    expect(dataDirOf('/w/any.json', { globalShortcut: 'Ctrl+Space', ...servers })).toMatch(
      /^\/home\/u\/\.local\/share\/hintgate\/w-any-[0-9a-f]{8}$/,
    );
    expect(dataDirOf(claude, servers, { env: { HOME: '/home/u', XDG_DATA_HOME: '/xdg' } })).toMatch(
      /^\/xdg\/hintgate\//,
    );
    expect(dataDirOf(claude, servers, { platform: 'darwin' })).toMatch(
      /^\/home\/u\/Library\/Application Support\/hintgate\//,
    );
    // Set by hand, or a hintgate config of its own: as written, beside the file by default.
    expect(dataDirOf(claude, { ...servers, dataDir: '/srv/hg' })).toBe('/srv/hg');
    expect(dataDirOf('/w/hintgate.config.json', servers)).toBe('/w/.hintgate');
  });
});
