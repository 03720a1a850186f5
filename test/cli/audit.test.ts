import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratchDir } from '../helpers/config.js';
import { parseWhen } from '../../src/core/util/when.js';

describe('parseWhen', () => {
  it('reads times ago and ISO dates, and names the option it rejects', () => {
    const now = Date.parse('2026-01-02T03:04:05Z');
    expect(parseWhen('30s', '--since', now).toISOString()).toBe('2026-01-02T03:03:35.000Z');
    expect(parseWhen('2h', '--since', now).toISOString()).toBe('2026-01-02T01:04:05.000Z');
    expect(parseWhen('7d', '--since', now).toISOString()).toBe('2025-12-26T03:04:05.000Z');
    expect(parseWhen('2026-01-01', '--until', now).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(() => parseWhen('last week', '--since', now)).toThrow(
      '--since: expected an ISO 8601 date or a time ago (30s, 10m, 2h, 7d), got "last week"',
    );
  });
});

describe('hintgate audit --limit', () => {
  it('refuses 0 (it would return a record) and more than the store gives', async () => {
    for (const limit of ['0', '10001', 'ten']) {
      const run = await runCli(['audit', '--data-dir', scratchDir(), '--limit', limit]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--limit: expected a whole number from 1 to 10000');
    }
  });
});
