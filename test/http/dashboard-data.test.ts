import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/gateway/catalog.js';
import { hintCells, queryCatalog, serverSummaries, toolStats } from '../../src/http/ui/data.js';
import type { AuditRecord } from '../../src/store/types.js';

const catalog = new Catalog();
catalog.setServer(
  'db',
  [
    {
      name: 'read_rows',
      description: 'Reads rows.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    },
    { name: 'drop_table', description: 'Drops a table for good.', inputSchema: { type: 'object' } },
    { name: 'mystery', inputSchema: { type: 'object' } },
  ],
  { trust: 'untrusted' },
);
catalog.setServer(
  'files',
  Array.from({ length: 120 }, (_, index) => ({
    name: `get_file_${index}`,
    description: `Gets file number ${index}.`,
    inputSchema: { type: 'object' },
  })),
  { trust: 'untrusted' },
);
const entries = catalog.entries();

describe('the catalog query', () => {
  it('tells true, false and unknown apart, with each value’s source', () => {
    const byName = (name: string) => entries.find((entry) => entry.name === name)!;
    const read = hintCells(byName('read_rows'));
    expect(read[0]).toMatchObject({ field: 'readOnlyHint', state: 'true', source: 'declared' });
    const drop = hintCells(byName('drop_table'));
    expect(drop[1]).toMatchObject({ field: 'destructiveHint', state: 'true', source: 'inferred' });
    expect(drop[1]?.reason).toContain('drop');
    const mystery = hintCells(byName('mystery'));
    expect(
      mystery.every((cell) => cell.state === 'unknown' || cell.source !== 'spec-default'),
    ).toBe(true);
    expect(mystery.some((cell) => cell.state === 'unknown')).toBe(true);
  });

  it('filters by words, server, hint and source, and pages on the server', () => {
    expect(queryCatalog(entries, { q: 'drops TABLE' }).tools.map((e) => e.name)).toEqual([
      'drop_table',
    ]);
    expect(queryCatalog(entries, { server: 'db' }).total).toBe(3);
    expect(
      queryCatalog(entries, { hint: 'destructiveHint:true' }).tools.map((e) => e.name),
    ).toContain('drop_table');
    expect(
      queryCatalog(entries, { hint: 'readOnlyHint:true', source: 'declared' }).tools.map(
        (e) => e.name,
      ),
    ).toEqual(['read_rows']);
    const page = queryCatalog(entries, { server: 'files', size: 50, page: 3 });
    expect(page).toMatchObject({ total: 120, page: 3, pages: 3, size: 50 });
    expect(page.tools.map((e) => e.name)).toEqual(
      Array.from({ length: 20 }, (_, i) => `get_file_${100 + i}`),
    );
    // Past the end: the last page; an unknown size: the default.
    expect(queryCatalog(entries, { page: 99, size: 7 })).toMatchObject({ page: 3, size: 50 });
  });

  it('names what is wrong with a filter', () => {
    expect(() => queryCatalog(entries, { hint: 'readOnly:yes' })).toThrow(
      /hint: expected field:state/,
    );
    expect(() => queryCatalog(entries, { source: 'guessed' })).toThrow(
      /source: expected one of spec-default, inferred/,
    );
  });
});

describe('tool statistics', () => {
  it('counts calls, errors, refusals and cache hits, with nearest-rank p50 and p95; pin records are no calls', () => {
    const record = (
      tool: string,
      outcome: string,
      durationMs: number,
      cacheHit = false,
    ): AuditRecord => ({
      id: String(Math.random()),
      time: '2026-01-01T00:00:00.000Z',
      tool,
      namespacedName: `s.${tool}`,
      decision: 'allow',
      outcome,
      durationMs,
      dynamic: false,
      retries: 0,
      cacheHit,
    });
    const records = [
      ...Array.from({ length: 18 }, (_, i) => record('a', 'ok', i + 1, i < 4)),
      record('a', 'error', 100),
      record('a', 'denied', 0),
      record('b', 'timeout', 5),
      // A pin check or decision about a tool is no call of it.
      { ...record('a', 'relaxation', 0), decision: 'pin:keep-pinned' },
      { ...record('c', 'first-sight', 0), decision: 'pin:trusted' },
    ];
    const stats = toolStats(records);
    expect(stats).toHaveLength(2);
    const [a, b] = stats;
    expect(a).toMatchObject({
      tool: 's.a',
      calls: 20,
      errors: 1,
      refused: 1,
      cacheHits: 4,
      p50Ms: 9,
      p95Ms: 18,
    });
    expect(a?.errorRate).toBeCloseTo(0.05);
    expect(b).toMatchObject({ tool: 's.b', calls: 1, errors: 1, errorRate: 1, p50Ms: 5 });
  });
});

describe('server summaries', () => {
  it('mask credentials in the reason a server is down', () => {
    const down = {
      name: 'remote',
      status: {
        state: 'down',
        since: 0,
        reason:
          'Error: 401 from https://ana:hunter22@api.example/mcp; sent Bearer sk-abcdefghijklmnopqrstuvwx',
      },
    };
    const [summary] = serverSummaries({
      catalog,
      servers: { all: () => [down] },
    } as unknown as Parameters<typeof serverSummaries>[0]);
    expect(summary?.reason).toBe(
      'Error: 401 from https://ana:[redacted]@api.example/mcp; sent Bearer [redacted]',
    );
    expect(JSON.stringify(summary)).not.toContain('hunter22');
  });
});
