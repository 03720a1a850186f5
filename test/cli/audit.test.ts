import { describe, expect, it } from 'vitest';
import { parseWhen } from '../../src/cli/run-audit.js';

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
