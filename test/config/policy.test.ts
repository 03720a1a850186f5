import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';

const parse = (config: unknown, env: Record<string, string> = {}) =>
  parseConfig(JSON.stringify(config), '/tmp/hintgate.config.json', { env }).config;

describe('the policy section', () => {
  it('holds every default', () => {
    const { policy } = parse({});
    expect(policy).toMatchObject({
      confirm: 'destructive',
      autoApproveReadOnly: true,
      requireApprovalQueue: false,
      elicitation: true,
      waitForApproval: true,
      servers: {},
      tools: {},
      cache: { enabled: true, readOnlyTtlMs: 300_000, idempotentTtlMs: 30_000 },
      retry: { enabled: true, maxAttempts: 3, initialDelayMs: 100 },
      rateLimit: { enabled: true, maxWaitMs: 5_000 },
      timeouts: { estimateFactor: 5, minMs: 5_000, maxMs: 3_600_000 },
      routing: { failureThreshold: 3, cooldownMs: 30_000 },
      audit: { enabled: true, restrictedArguments: 'omit' },
      waiting: {
        progressMs: 5_000,
        approvalTimeoutMs: 50_000,
        keptAliveApprovalTimeoutMs: 300_000,
      },
      passthrough: false,
    });
    // Unset: how long a call waits for a person depends on its client (`waiting`).
    expect(policy.approvalTimeoutMs).toBeUndefined();
  });

  it('refuses a timeout floor above its ceiling', () => {
    expect(() => parse({ policy: { timeouts: { minMs: 10_000, maxMs: 5_000 } } })).toThrow(
      expect.objectContaining({
        issues: [{ path: 'policy.timeouts.minMs', message: 'expected at most maxMs' }],
      }),
    );
  });

  it('names every bad key by its path', () => {
    expect(() =>
      parse({
        policy: {
          confirm: 'sometimes',
          tools: { 'gh.delete_*': { deny: 'yes', rateLimit: -1 } },
          retry: { maxAttempts: 0 },
          extra: true,
        },
      }),
    ).toThrow(
      expect.objectContaining({
        issues: expect.arrayContaining([
          { path: 'policy.confirm', message: 'expected destructive, writes, always or never' },
          expect.objectContaining({ path: 'policy.tools.gh.delete_*.deny' }),
          expect.objectContaining({ path: 'policy.tools.gh.delete_*.rateLimit' }),
          expect.objectContaining({ path: 'policy.retry.maxAttempts' }),
          { path: 'policy', message: 'unknown key "extra"' },
        ]),
      }),
    );
  });

  it('names rules for servers and tools that are not configured, so a typo cannot go unnoticed', () => {
    let issues: unknown;
    try {
      parse({
        mcpServers: { github: { command: 'gh-mcp' }, db: { url: 'http://db.local/mcp' } },
        policy: {
          servers: { github: { confirm: 'writes' }, githb: { confirm: 'always' } },
          tools: {
            'github.delete_*': { requireApprovalQueue: true },
            'db.drop_table': { deny: true },
            '*.purge_*': { deny: true },
            'gihub.delete_repo': { deny: true },
            delete_repo: { deny: true },
          },
        },
      });
    } catch (error) {
      issues = (error as { issues?: unknown }).issues;
    }
    expect(issues).toEqual([
      {
        path: 'policy.servers.githb',
        message: 'no server named "githb" in mcpServers (expected one of github, db)',
      },
      {
        path: 'policy.tools.gihub.delete_repo',
        message: 'no server named "gihub" in mcpServers (expected one of github, db)',
      },
      {
        path: 'policy.tools.delete_repo',
        message: 'expected a namespaced name (server.tool) or a pattern with * or ?',
      },
    ]);
  });
});

describe('replicas', () => {
  it('expands variables in each replica like in a server, and defaults weight and categories', () => {
    const config = parse(
      {
        mcpServers: {
          s: {
            replicas: [
              { command: 'x', env: { TOKEN: '${TOKEN}' } },
              { url: 'http://${HOST}/mcp', headers: { A: '${TOKEN}' }, weight: 10 },
            ],
          },
        },
      },
      { TOKEN: 't0k', HOST: 'h.example' },
    );
    expect(config.mcpServers['s']?.replicas).toMatchObject([
      { command: 'x', env: { TOKEN: 't0k' }, weight: 100, categories: [] },
      { url: 'http://h.example/mcp', headers: { A: 't0k' }, weight: 10 },
    ]);
  });

  it('names a missing variable in a replica by its path', () => {
    expect(() =>
      parse({ mcpServers: { s: { replicas: [{ command: 'x', env: { A: '${NOPE}' } }] } } }),
    ).toThrow(
      expect.objectContaining({
        issues: [
          {
            path: 'mcpServers.s.replicas.0.env.A',
            message: 'environment variable NOPE is not set (used as ${NOPE})',
          },
        ],
      }),
    );
  });
});
