import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createAuditWriter } from '../../src/store/audit-writer.js';
import type { AuditRecordInput } from '../../src/store/types.js';
import { STORE_KINDS, sharedStore, uniqueName } from './helpers/harness.js';

function record(overrides: Partial<AuditRecordInput> = {}): AuditRecordInput {
  return {
    tool: 'github_create_issue',
    namespacedName: 'github.create_issue',
    server: 'github',
    decision: 'allow',
    outcome: 'ok',
    ...overrides,
  };
}

describe.each(STORE_KINDS)('%s store: audit log', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('keeps text PostgreSQL refuses (NUL, half a surrogate pair) escaped, with the rest of its batch', async () => {
    const store = shared.store();
    const server = uniqueName('nul');
    await store.appendAudit([
      record({ server, tool: 'before' }),
      record({
        server,
        tool: 'evil\u0000',
        error: 'bad\u0000text',
        arguments: { text: 'evil\u0000', 'key\u0000': '\ud800 alone', plain: 'C:\\u0000' },
      }),
      record({ server, tool: 'after' }),
    ]);
    const stored = await store.queryAudit({ server });
    expect(stored.map((r) => r.tool).sort()).toEqual(['after', 'before', 'evil\\u0000']);
    const evil = stored.find((r) => r.tool.startsWith('evil'));
    expect(evil?.error).toBe('bad\\u0000text');
    expect(evil?.arguments).toEqual({
      text: 'evil\\u0000',
      'key\\u0000': '\\ud800 alone',
      // A backslash the client sent stays one backslash.
      plain: 'C:\\u0000',
    });
  });

  it('keeps tabs, line breaks, backslashes and characters beyond the BMP as they were', async () => {
    const store = shared.store();
    const server = uniqueName('text');
    const odd = 'a\tb\nc\rd\\e \\N \\. \u{1f600} \\\\u0000';
    await store.appendAudit([
      record({
        server,
        tool: odd,
        sessionId: odd,
        error: `${odd}\n\\.\n`,
        annotations: { title: odd, tags: [odd] },
        sources: { title: 'declared' },
        arguments: { [odd]: odd, list: [odd, '\\'] },
        durationMs: Number.NaN,
      }),
      record({ server, tool: 'after' }),
    ]);
    const stored = await store.queryAudit({ server });
    expect(stored.map((r) => r.tool).sort()).toEqual(['after', odd].sort());
    const found = stored.find((r) => r.tool === odd);
    expect(found).toMatchObject({
      sessionId: odd,
      error: `${odd}\n\\.\n`,
      annotations: { title: odd, tags: [odd] },
      arguments: { [odd]: odd, list: [odd, '\\'] },
    });
    // A duration that is not a number is not one: absent, the record kept whole.
    expect(found?.durationMs).toBeUndefined();
  });

  it('writes the rest of a batch when one record is refused, that one in a degraded form', async () => {
    const store = shared.store();
    const server = uniqueName('bad');
    // A BigInt cannot be written as JSON at all.
    await store.appendAudit([
      record({ server, tool: 'first' }),
      record({ server, tool: 'broken', arguments: { n: 10n } }),
      record({ server, tool: 'last' }),
    ]);
    const stored = await store.queryAudit({ server });
    expect(stored.map((r) => r.tool).sort()).toEqual(['broken', 'first', 'last']);
    const broken = stored.find((r) => r.tool === 'broken');
    expect(broken?.arguments).toBeUndefined();
    expect(broken?.error).toMatch(/^audit record stored without its details: .*BigInt/);
  });

  it('appends a batch and reads every field back', async () => {
    const store = shared.store();
    const server = uniqueName('srv');
    const full: AuditRecordInput = {
      time: '2026-01-02T03:04:05.678Z',
      sessionId: 's1',
      client: 'cursor',
      tool: `${server}_delete`,
      namespacedName: `${server}.delete`,
      server,
      replica: 'primary',
      annotations: { destructiveHint: true, tags: ['x'] },
      sources: { destructiveHint: 'declared' },
      dynamic: true,
      decision: 'confirm',
      approver: 'alice',
      durationMs: 12.6,
      outcome: 'ok',
      error: 'none',
      retries: 2,
      cacheHit: true,
      arguments: { path: '/tmp/x', token: '[redacted]' },
    };
    await store.appendAudit([full, record({ server, tool: `${server}_read` })]);
    const [newest, oldest] = await store.queryAudit({ server });
    expect(oldest).toEqual({ ...full, id: oldest?.id, time: full.time, durationMs: 13 });
    expect(newest).toMatchObject({
      tool: `${server}_read`,
      dynamic: false,
      retries: 0,
      cacheHit: false,
    });
    expect(newest?.arguments).toBeUndefined();
    expect(Date.parse(newest!.time)).toBeGreaterThan(Date.parse(full.time as string));
  });

  it('filters by tool (either name), server, decision, outcome and time, newest first', async () => {
    const store = shared.store();
    const server = uniqueName('srv');
    const at = (minute: number): string =>
      `2026-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
    await store.appendAudit([
      record({ server, tool: `${server}_a`, namespacedName: `${server}.a`, time: at(1) }),
      record({ server, tool: `${server}_b`, time: at(2), decision: 'deny', outcome: 'denied' }),
      record({
        server,
        tool: `${server}_a`,
        namespacedName: `${server}.a`,
        time: at(3),
        outcome: 'error',
      }),
      record({ server, tool: `${server}_a`, namespacedName: `${server}.a`, time: at(4) }),
    ]);
    const times = (records: { time: string }[]): string[] => records.map((r) => r.time);
    expect(times(await store.queryAudit({ server }))).toEqual([at(4), at(3), at(2), at(1)]);
    expect(times(await store.queryAudit({ tool: `${server}.a` }))).toEqual([at(4), at(3), at(1)]);
    expect(times(await store.queryAudit({ tool: `${server}_b` }))).toEqual([at(2)]);
    expect(times(await store.queryAudit({ server, decision: 'deny' }))).toEqual([at(2)]);
    expect(times(await store.queryAudit({ server, outcome: 'error' }))).toEqual([at(3)]);
    expect(times(await store.queryAudit({ server, since: at(2), until: new Date(at(4)) }))).toEqual(
      [at(3), at(2)],
    );
    expect(times(await store.queryAudit({ server, limit: 2 }))).toEqual([at(4), at(3)]);
  });

  it('rejects records without a tool, decision or outcome, writing none', async () => {
    const store = shared.store();
    const server = uniqueName('srv');
    await expect(
      store.appendAudit([record({ server }), record({ server, decision: '' })]),
    ).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      details: { issues: [{ path: 'records[1].decision' }] },
    });
    expect(await store.queryAudit({ server })).toEqual([]);
    await expect(store.queryAudit({ since: 'yesterday-ish' })).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      details: { issues: [{ path: 'since', message: 'must be a date' }] },
    });
  });

  it('batches writes off the call path with an audit writer', async () => {
    const store = shared.store();
    const server = uniqueName('srv');
    const append = vi.spyOn(store, 'appendAudit');
    const writer = createAuditWriter(store, { maxBatch: 50, flushIntervalMs: 10 });
    for (let i = 0; i < 120; i++) writer.write(record({ server, retries: i }));
    await writer.close();
    const written = await store.queryAudit({ server, limit: 1000 });
    expect(written).toHaveLength(120);
    expect(append.mock.calls.length).toBeLessThanOrEqual(4);
    expect(writer.dropped).toBe(0);
    writer.write(record({ server }));
    expect(writer.dropped).toBe(1);
    append.mockRestore();
  });
});

describe('audit writer', () => {
  it('drops and reports a batch the store refuses, and keeps going', async () => {
    const errors: number[] = [];
    let calls = 0;
    const writer = createAuditWriter(
      {
        appendAudit: () => {
          calls += 1;
          return calls === 1 ? Promise.reject(new Error('store down')) : Promise.resolve();
        },
      },
      { maxBatch: 2, flushIntervalMs: 5, onError: (_error, lost) => errors.push(lost) },
    );
    for (let i = 0; i < 4; i++) writer.write(record());
    await writer.flush();
    expect(errors).toEqual([2]);
    expect(writer.dropped).toBe(2);
    expect(calls).toBe(2);
  });

  it('bounds its queue', () => {
    const writer = createAuditWriter(
      { appendAudit: () => new Promise(() => undefined) },
      { maxBatch: 1000, maxQueue: 3, flushIntervalMs: 60_000 },
    );
    for (let i = 0; i < 5; i++) writer.write(record());
    expect(writer.dropped).toBe(2);
  });
});

describe('postgres store: audit records a failing database cannot take', () => {
  const shared = sharedStore('postgres');
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  /**
   * A trigger refusing this server's `refused` record always, `huge` with its arguments (the
   * database out of memory), and `disk*` ones while `full` (out of disk, in any form).
   */
  async function failWhile(server: string, full: boolean): Promise<void> {
    await shared.harness().raw(`CREATE OR REPLACE FUNCTION refuse_some() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.server = '${server}' AND NEW.tool = 'refused' THEN
          RAISE EXCEPTION 'not this one' USING ERRCODE = '22023';
        END IF;
        IF NEW.server = '${server}' AND NEW.tool = 'huge' AND NEW.arguments IS NOT NULL THEN
          RAISE EXCEPTION 'out of memory' USING ERRCODE = '53200';
        END IF;
        IF ${full} AND NEW.server = '${server}' AND NEW.tool LIKE 'disk%' THEN
          RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100';
        END IF;
        RETURN NEW;
      END $$`);
  }

  it('keeps what the database could not take for its own reasons, and writes it later, none twice', async () => {
    const store = shared.store();
    const server = uniqueName('full');
    await failWhile(server, true);
    await shared
      .harness()
      .raw(
        'CREATE TRIGGER refuse_some BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_some()',
      );
    onTestFinished(async () => {
      await shared.harness().raw('DROP TRIGGER IF EXISTS refuse_some ON audit_log');
    });
    const unavailable: number[] = [];
    const lost: string[] = [];
    const writer = createAuditWriter(store, {
      retryMinMs: 20,
      onUnavailable: (_error, waiting) => unavailable.push(waiting),
      onError: (error, count) => lost.push(`${count}: ${(error as Error).message}`),
    });
    for (const tool of ['first', 'refused', 'huge', 'disk', 'last'])
      writer.write(record({ server, tool, arguments: { n: 1 } }));
    await writer.flush();
    // The refused record is lost (refused even in its degraded form), said once; `huge` goes
    // in degraded; the disk's failure is not a record's: it and the one after wait in memory.
    expect(lost).toEqual([expect.stringMatching(/^1: .*not this one/)]);
    expect(unavailable[0]).toBe(2);
    const before = await store.queryAudit({ server });
    expect(before.map((r) => r.tool).sort()).toEqual(['first', 'huge']);
    expect(before.find((r) => r.tool === 'huge')?.arguments).toBeUndefined();
    await failWhile(server, false);
    await vi.waitFor(
      async () => {
        const tools = (await store.queryAudit({ server })).map((r) => r.tool);
        expect(tools.sort()).toEqual(['disk', 'first', 'huge', 'last']);
      },
      { timeout: 10_000, interval: 50 },
    );
    await writer.close();
    expect((await store.queryAudit({ server })).map((r) => r.tool).sort()).toEqual([
      'disk',
      'first',
      'huge',
      'last',
    ]);
    expect(writer.dropped).toBe(1);
  });
});
