import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load.js';
import { namePrefixes } from '../../src/config/schema.js';

const env = { HOME: '/home/u', GH_TOKEN: 'ghp_secret' };

function issuesOf(text: string, file = '/x/hintgate.config.json'): string[] {
  try {
    parseConfig(text, file, { env });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('reads a Claude Desktop config unchanged and fills the defaults', () => {
    const { config, dataDir } = parseConfig(
      JSON.stringify({
        mcpServers: {
          fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
          remote: {
            url: 'https://example.test/mcp',
            headers: { Authorization: 'Bearer ${GH_TOKEN}' },
          },
        },
      }),
      '/etc/hg/config.json',
      { env },
    );
    expect(config.mcpServers['fs']).toMatchObject({
      command: 'npx',
      trust: 'untrusted',
      enabled: true,
      env: {},
      timeouts: { connectMs: 30_000, callMs: 60_000 },
    });
    expect(config.mcpServers['remote']?.headers).toEqual({ Authorization: 'Bearer ghp_secret' });
    expect(dataDir).toBe('/etc/hg/.hintgate');
  });

  it('reads YAML', () => {
    const { config } = parseConfig(
      'mcpServers:\n  mem:\n    command: node\n    trust: trusted\n    defaultAnnotations:\n      openWorldHint: false\n',
      '/x/c.yaml',
      { env },
    );
    expect(config.mcpServers['mem']?.trust).toBe('trusted');
    expect(config.mcpServers['mem']?.defaultAnnotations).toEqual({ openWorldHint: false });
  });

  it('names every bad key by its path', () => {
    expect(
      issuesOf(
        JSON.stringify({
          mcpServers: {
            github: { command: 'gh', args: 'serve', trust: 'maybe' },
            web: { url: 'not a url' },
            none: {},
            'bad name': { command: 'x' },
          },
          htttp: {},
          http: { uiToken: 'short' },
        }),
      ),
    ).toEqual(
      expect.arrayContaining([
        'http.uiToken: expected a token of at least 16 characters',
        'mcpServers.github.args: expected an array of strings',
        'mcpServers.github.trust: expected trusted or untrusted',
        'mcpServers.web.url: expected a URL (http:// or https://)',
        'mcpServers.none: expected "command" (stdio), "url" (HTTP) or "openapi" (an HTTP API)',
        'mcpServers.bad name: server names may hold only letters, digits, "_" and "-"',
        '(top level): unknown key "htttp"',
      ]),
    );
  });

  it("reads a server's name prefix: true by default, false, or a prefix of its own", () => {
    const { config } = parseConfig(
      JSON.stringify({
        mcpServers: {
          a: { command: 'x' },
          b: { command: 'x', prefix: false },
          c: { command: 'x', prefix: 'gh' },
        },
      }),
      '/x/c.json',
      { env },
    );
    expect(namePrefixes(config.mcpServers)('a')).toBe('a');
    expect(namePrefixes(config.mcpServers)('b')).toBe(false);
    expect(namePrefixes(config.mcpServers)('c')).toBe('gh');
    expect(
      issuesOf(
        JSON.stringify({
          mcpServers: { a: { command: 'x', prefix: 'g h' }, b: { command: 'x', prefix: '' } },
        }),
      ),
    ).toEqual([
      'mcpServers.a.prefix: expected up to 64 letters, digits, "_" and "-"',
      'mcpServers.b.prefix: expected up to 64 letters, digits, "_" and "-"',
    ]);
  });

  it('checks annotation values in server defaults', () => {
    expect(
      issuesOf(
        JSON.stringify({
          mcpServers: { a: { command: 'x', defaultAnnotations: { readOnlyHint: 'yes' } } },
        }),
      ),
    ).toEqual([
      'mcpServers.a.defaultAnnotations.readOnlyHint: Invalid input: expected boolean, received string',
    ]);
  });

  it('reports a missing environment variable where it is used, and honours defaults', () => {
    expect(
      issuesOf(
        JSON.stringify({
          mcpServers: { a: { command: 'x', env: { T: '${NOPE}', U: '${NOPE:-fallback}' } } },
        }),
      ),
    ).toEqual(['mcpServers.a.env.T: environment variable NOPE is not set (used as ${NOPE})']);
  });

  it('reports unreadable and unparsable files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hg-config-'));
    await expect(loadConfig(join(dir, 'missing.json'), { env })).rejects.toThrow(/no such file/);
    await writeFile(join(dir, 'bad.json'), '{ "mcpServers": ');
    await expect(loadConfig(join(dir, 'bad.json'), { env })).rejects.toThrow(/not valid JSON/);
  });
});
