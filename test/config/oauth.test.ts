import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';

const env = { CLIENT_SECRET: 's3cret-from-env', SEAL: 'a secret of twenty chars' };

function parse(value: unknown) {
  return parseConfig(JSON.stringify(value), '/x/hintgate.config.json', { env });
}

function issuesOf(value: unknown): string[] {
  try {
    parse(value);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
}

describe('config: OAuth to downstream servers', () => {
  it('defaults an HTTP server to auth: oauth, and reads auth, oauth and secretKey with variables', () => {
    const { config } = parse({
      secretKey: '${SEAL}',
      mcpServers: {
        plain: { url: 'https://a.example/mcp' },
        team: {
          url: 'https://b.example/mcp',
          auth: 'per-user',
          oauth: { clientId: 'hintgate', clientSecret: '${CLIENT_SECRET}', callbackPort: 33418 },
        },
      },
    });
    expect(config.secretKey).toBe('a secret of twenty chars');
    expect(config.mcpServers['plain']?.auth).toBe('oauth');
    expect(config.mcpServers['plain']?.oauth).toBeUndefined();
    expect(config.mcpServers['team']).toMatchObject({
      auth: 'per-user',
      oauth: { clientId: 'hintgate', clientSecret: 's3cret-from-env', callbackPort: 33418 },
    });
    expect(config.mcpServers['team']?.timeouts.idleMs).toBe(300_000);
  });

  it('names each bad OAuth key by its path', () => {
    expect(
      issuesOf({
        secretKey: 'short',
        mcpServers: {
          a: { url: 'https://a.example/mcp', auth: 'maybe' },
          b: { command: 'x', oauth: {} },
          c: { url: 'https://c.example/mcp', oauth: { clientSecret: 'x', port: 1 } },
          d: { url: 'https://d.example/mcp', oauth: { clientId: 'i', clientSecret: 's' } },
          e: { auth: 'per-user', replicas: [{ url: 'https://e.example/mcp' }] },
        },
      }),
    ).toEqual([
      'mcpServers.a.auth: expected oauth, per-user or none',
      'mcpServers.b.oauth: "oauth" needs "url"',
      'mcpServers.c.oauth: unknown key "port"',
      'mcpServers.c.oauth.clientSecret: "clientSecret" needs "clientId"',
      'mcpServers.e.auth: "per-user" needs one "url" (a server with "replicas" logs in once, as "oauth")',
      'secretKey: expected a secret of at least 16 characters',
    ]);
  });
});
