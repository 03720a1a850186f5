import { describe, expect, it } from 'vitest';
import { policySchema } from '../../src/config/policy-schema.js';
import { ToolSettingsTable, globToRegExp } from '../../src/gateway/tool-settings.js';

describe('ToolSettingsTable', () => {
  it('holds every default', () => {
    const settings = new ToolSettingsTable(policySchema.parse({})).forTool('s', 's.t');
    expect(settings).toEqual({
      confirm: {
        confirm: 'destructive',
        autoApproveReadOnly: true,
        requireApprovalQueue: false,
        deny: false,
      },
      approvalTimeoutMs: undefined,
      elicitation: true,
      waitForApproval: true,
      cache: true,
      cacheTtlMs: undefined,
      retry: true,
      retryOnTimeout: false,
      rateLimit: undefined,
      timeoutMs: undefined,
      restrictedArguments: 'omit',
    });
  });

  it('layers global, server, matching patterns in order, then the exact name', () => {
    const table = new ToolSettingsTable(
      policySchema.parse({
        approvalTimeoutMs: 1000,
        servers: { gh: { approvalTimeoutMs: 2000, confirm: 'writes' } },
        tools: {
          'gh.delete_repo': { message: 'exact' },
          'gh.delete_*': { message: 'pattern', deny: true },
          '*.delete_?epo': { approvalTimeoutMs: 3000 },
        },
      }),
    );
    expect(table.forTool('gh', 'gh.delete_repo')).toMatchObject({
      approvalTimeoutMs: 3000,
      confirm: { confirm: 'writes', deny: true, message: 'exact' },
    });
    expect(table.forTool('gh', 'gh.delete_issue')).toMatchObject({
      approvalTimeoutMs: 2000,
      confirm: { message: 'pattern', deny: true },
    });
    expect(table.forTool('other', 'other.delete_repo').approvalTimeoutMs).toBe(3000);
    expect(table.forTool('gh', 'gh.delete_repo')).toBe(table.forTool('gh', 'gh.delete_repo'));
  });

  it('turns steps off globally whatever the rules say', () => {
    const table = new ToolSettingsTable(
      policySchema.parse({
        cache: { enabled: false },
        retry: { enabled: false },
        rateLimit: { enabled: false },
        tools: { 's.*': { cache: true, retry: true, rateLimit: 10 } },
      }),
    );
    expect(table.forTool('s', 's.t')).toMatchObject({
      cache: false,
      retry: false,
      rateLimit: false,
    });
  });
});

describe('globToRegExp', () => {
  it('matches * and ? and nothing else specially', () => {
    expect(globToRegExp('a.*').test('a.b.c')).toBe(true);
    expect(globToRegExp('a.?').test('a.bc')).toBe(false);
    expect(globToRegExp('a.b').test('aXb')).toBe(false);
    expect(globToRegExp('(x)+').test('(x)+')).toBe(true);
  });
});
