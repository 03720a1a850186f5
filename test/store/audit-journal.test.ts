import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AUDIT_COPY_COLUMNS, auditCopyLines } from '../../src/store/audit.js';
import type { AuditJournalOptions } from '../../src/store/audit-journal.js';
import { AUDIT_JOURNAL_DIR } from '../../src/store/audit-journal.js';
import type { PgliteStoreOptions, Store } from '../../src/store/store.js';
import { openStore } from '../../src/store/store.js';
import type { AuditRecordInput } from '../../src/store/types.js';
import { spawnStoreChild } from './helpers/child.js';
import type { StoreHarness } from './helpers/harness.js';
import { createHarness } from './helpers/harness.js';

const harnesses: StoreHarness[] = [];
const open: Store[] = [];
const children: { kill: (signal: NodeJS.Signals) => boolean }[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close().catch(() => undefined);
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const harness of harnesses) await harness.cleanup();
});

interface Opened {
  readonly harness: StoreHarness;
  readonly store: Store;
  readonly dir: string;
  readonly warnings: string[];
}

async function newHarness(): Promise<StoreHarness> {
  const harness = await createHarness('pglite');
  harnesses.push(harness);
  return harness;
}

async function openWith(
  journal: AuditJournalOptions | false,
  harness?: StoreHarness,
): Promise<Opened> {
  const used = harness ?? (await newHarness());
  const warnings: string[] = [];
  const store = await openStore({
    ...(used.options as PgliteStoreOptions),
    auditJournal: journal,
    onWarning: (message) => warnings.push(message),
  });
  open.push(store);
  const dir = join((used.options as { dataDir: string }).dataDir, AUDIT_JOURNAL_DIR);
  return { harness: used, store, dir, warnings };
}

/**
 * A store opened with `deferDatabase` on a database a first open created and migrated (and
 * closed): its journal's folder, and what it said.
 */
async function openDeferred(
  harness: StoreHarness,
  before: (dataDir: string) => void = () => undefined,
): Promise<{ store: Store; dir: string; warnings: string[] }> {
  await (await openWith({ quietMs: 60_000 }, harness)).store.close();
  open.pop();
  const dataDir = (harness.options as { dataDir: string }).dataDir;
  before(dataDir);
  const warnings: string[] = [];
  const store = await openStore({
    ...(harness.options as PgliteStoreOptions),
    auditJournal: { quietMs: 60_000 },
    deferDatabase: true,
    onWarning: (message) => warnings.push(message),
  });
  open.push(store);
  return { store, dir: join(dataDir, AUDIT_JOURNAL_DIR), warnings };
}

function segments(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.copy')) : [];
}

async function until(what: string, done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function records(tag: string, count: number, extra: Partial<AuditRecordInput> = {}) {
  return Array.from({ length: count }, (_, index): AuditRecordInput => ({
    tool: 'echo_echo',
    namespacedName: 'echo.echo',
    server: 'echo',
    decision: 'allow',
    outcome: 'ok',
    arguments: { text: `${tag}-${index}` },
    ...extra,
  }));
}

/** The argument texts of every record in the log, in any order. */
async function texts(store: Store): Promise<string[]> {
  const all = await store.queryAudit({ limit: 10_000 });
  return all.map((record) => (record.arguments as { text: string }).text);
}

/** A segment as an earlier process would have left it. */
function segmentText(lines: string): string {
  return `${['hintgate audit journal', '1', ...AUDIT_COPY_COLUMNS].join('\t')}\n${lines}`;
}

/** Leaves a segment file in the journal's folder, as a process that ended would have. */
function leave(dir: string, name: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
}

describe('embedded store: audit journal', () => {
  it('appends batches to a journal segment and copies them into the log once quiet', async () => {
    const { store, dir } = await openWith({ quietMs: 300 });
    await store.appendAudit(records('quiet', 3));
    const [segment, ...others] = segments(dir);
    expect(others).toEqual([]);
    const lines = readFileSync(join(dir, segment!), 'utf8').split('\n');
    expect(lines[0]).toBe(['hintgate audit journal', '1', ...AUDIT_COPY_COLUMNS].join('\t'));
    expect(lines.slice(1)).toHaveLength(4); // three records and the final line break
    await until('the segment is copied', () => segments(dir).length === 0);
    const stored = await store.queryAudit({});
    expect(stored.map((r) => (r.arguments as { text: string }).text).sort()).toEqual([
      'quiet-0',
      'quiet-1',
      'quiet-2',
    ]);
    expect(stored[0]).toMatchObject({
      tool: 'echo_echo',
      namespacedName: 'echo.echo',
      server: 'echo',
      decision: 'allow',
      outcome: 'ok',
    });
  });

  it('calls onQuiet half the quiet time in and again before the copy; an append in between starts over', async () => {
    const calls: { ms: number; waiting: number }[] = [];
    let started = 0;
    // Called 300 ms after the first append at the soonest: `opened` is set by then.
    const opened: Opened = await openWith({
      quietMs: 600,
      onQuiet: async () => {
        calls.push({ ms: Date.now() - started, waiting: segments(opened.dir).length });
        // The first call's append starts the wait over: two more calls, then one copy.
        if (calls.length === 1) {
          started = Date.now();
          await opened.store.appendAudit(records('between', 1));
        }
      },
    });
    started = Date.now();
    await opened.store.appendAudit(records('before', 2));
    await until(
      'the segments are copied',
      () => calls.length >= 3 && segments(opened.dir).length === 0,
    );
    expect(calls).toHaveLength(3);
    // Timers fire no sooner than asked (a millisecond of rounding aside), later on a busy machine.
    expect(calls.map((call) => call.ms >= 299)).toEqual([true, true, true]);
    expect(calls[2]!.ms).toBeGreaterThanOrEqual(599);
    // Nothing was copied before the last call.
    expect(calls.every((call) => call.waiting > 0)).toBe(true);
    expect((await texts(opened.store)).sort()).toEqual(['before-0', 'before-1', 'between-0']);
  });

  it('does not call onQuiet for a wait that enough records waiting cut short', async () => {
    let calls = 0;
    const { store, dir } = await openWith({
      quietMs: 400,
      maxPending: 3,
      onQuiet: () => {
        calls += 1;
        return Promise.resolve();
      },
    });
    await store.appendAudit(records('first', 1));
    // Three waiting: copied at once, and the quiet wait the first append started is over.
    await store.appendAudit(records('more', 2));
    await until('the segments are copied', () => segments(dir).length === 0);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(calls).toBe(0);
    expect((await texts(store)).sort()).toEqual(['first-0', 'more-0', 'more-1']);
  });

  it('copies even when onQuiet fails, and a close during onQuiet copies at once and ends the wait', async () => {
    const failing = await openWith({
      quietMs: 200,
      onQuiet: () => Promise.reject(new Error('hook failed')),
    });
    await failing.store.appendAudit(records('failed-hook', 2));
    await until('the segment is copied', () => segments(failing.dir).length === 0);
    expect((await texts(failing.store)).sort()).toEqual(['failed-hook-0', 'failed-hook-1']);

    const harness = await newHarness();
    let release: () => void = () => undefined;
    let calls = 0;
    const held = await openWith(
      {
        quietMs: 200,
        onQuiet: () => {
          calls += 1;
          return new Promise<void>((resolve) => (release = resolve));
        },
      },
      harness,
    );
    await held.store.appendAudit(records('closing', 3));
    await until('onQuiet is waited on', () => calls === 1);
    await held.store.close();
    open.pop();
    expect(segments(held.dir)).toEqual([]);
    // Released after the close: the wait it belonged to goes no further.
    release();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toBe(1);
    const again = await openWith({ quietMs: 60_000 }, harness);
    expect((await texts(again.store)).sort()).toEqual(['closing-0', 'closing-1', 'closing-2']);
  });

  it('copies what waits before a read, so a read never misses a record the store took', async () => {
    const { store, dir } = await openWith({ quietMs: 60_000 });
    await store.appendAudit(records('read', 5));
    expect(segments(dir)).toHaveLength(1);
    expect((await texts(store)).sort()).toEqual(['read-0', 'read-1', 'read-2', 'read-3', 'read-4']);
    expect(segments(dir)).toEqual([]);
  });

  it('keeps batches larger than its buffer, in any script, appended at once, byte for byte', async () => {
    const { store, dir } = await openWith({ quietMs: 60_000 });
    // 3 and 4 bytes of UTF-8 a character: more than the journal's first buffer of 512 KiB in
    // one batch (so it grows), and batches encoded while another's write holds the buffer.
    const wide = (tag: string, count: number) =>
      records(tag, count).map((record, index) => ({
        ...record,
        arguments: { text: `${tag}-${index} ${'日本語😀'.repeat(200)}` },
      }));
    const batches = [wide('a', 300), wide('b', 3), wide('c', 150), records('d', 2)];
    await Promise.all(batches.map((batch) => store.appendAudit(batch)));
    const expected = batches.flat().map((record) => (record.arguments as { text: string }).text);
    const bytes = segments(dir).reduce(
      (sum, name) => sum + readFileSync(join(dir, name)).byteLength,
      0,
    );
    expect(bytes).toBeGreaterThan(Buffer.byteLength(auditCopyLines(batches.flat())));
    expect((await texts(store)).sort()).toEqual(expected.sort());
  });

  it('copies at once when enough records wait, without waiting for quiet', async () => {
    const { store, dir } = await openWith({ quietMs: 60_000, maxPending: 10 });
    await store.appendAudit(records('many', 10));
    await until('the segment is copied', () => segments(dir).length === 0);
    expect(await texts(store)).toHaveLength(10);
  });

  it('copies at once when the records waiting reach maxPendingBytes, however few', async () => {
    const one = Buffer.byteLength(auditCopyLines(records('big', 1)));
    const { store, dir } = await openWith({ quietMs: 60_000, maxPendingBytes: 3 * one });
    await store.appendAudit(records('big', 2));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Below the bound: still waiting for quiet.
    expect(segments(dir)).toHaveLength(1);
    await store.appendAudit(records('big', 1));
    await until('the segment is copied', () => segments(dir).length === 0);
    // What was copied no longer counts: two new records wait again.
    await store.appendAudit(records('after', 2));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(segments(dir)).toHaveLength(1);
    expect(await texts(store)).toHaveLength(5);
  });

  it('copies everything when the store closes', async () => {
    const harness = await newHarness();
    const first = await openWith({ quietMs: 60_000 }, harness);
    await first.store.appendAudit(records('close', 4));
    await first.store.close();
    expect(segments(first.dir)).toEqual([]);
    const second = await openWith(false, harness);
    expect((await texts(second.store)).sort()).toEqual([
      'close-0',
      'close-1',
      'close-2',
      'close-3',
    ]);
  });

  it('with a deferred database never started, leaves the records for the next opener and does not start it', async () => {
    const harness = await newHarness();
    const { store: deferred, dir, warnings } = await openDeferred(harness);
    await deferred.appendAudit(records('deferred', 3));
    expect(deferred.databaseUsed?.()).toBe(false);
    await deferred.close();
    // Closing did not start the database to copy them: they wait on disk, whole.
    expect(deferred.databaseUsed?.()).toBe(false);
    expect(segments(dir)).toHaveLength(1);
    expect(warnings).toEqual([]);
    const next = await openWith({ quietMs: 60_000 }, harness);
    expect((await texts(next.store)).sort()).toEqual(['deferred-0', 'deferred-1', 'deferred-2']);
    expect(segments(dir)).toEqual([]);
  });

  it('with a deferred database, starts it (migrated) for the first statement, and copies at close once it has run', async () => {
    const harness = await newHarness();
    const { store: deferred, dir } = await openDeferred(harness);
    await deferred.appendAudit(records('ran', 2));
    expect(await deferred.listToolsets()).toEqual([]);
    expect(deferred.databaseUsed?.()).toBe(true);
    await deferred.close();
    expect(segments(dir)).toEqual([]);
    const next = await openWith(false, harness);
    expect((await texts(next.store)).sort()).toEqual(['ran-0', 'ran-1']);
  });

  it('with a deferred database that cannot start, fails statements as a store that is gone, said once', async () => {
    const harness = await newHarness();
    // Its control file gone, PostgreSQL cannot start on it.
    const { store: deferred, warnings } = await openDeferred(harness, (dataDir) =>
      rmSync(join(dataDir, 'store', 'global', 'pg_control')),
    );
    // The journal takes records all the same.
    await deferred.appendAudit(records('kept', 1));
    for (let i = 0; i < 2; i++) {
      const error: unknown = await deferred.listToolsets().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(String(error)).toMatch(/cannot start the store's database/);
    }
    expect(warnings.filter((w) => /cannot start the store's database/.test(w))).toHaveLength(1);
  });

  it('copies a segment an earlier process left from where its copy stopped, dropping an unfinished last line', async () => {
    const harness = await newHarness();
    const { dir } = await openWith({ quietMs: 60_000 }, harness);
    await open.pop()!.close();
    const lines = auditCopyLines(records('left', 5));
    const text = segmentText(lines);
    const name = '000000000000001-1-000000.copy';
    leave(dir, name, `${text}2026-11-28T00:00:00.000Z\tunfinished`);
    // The first two records were copied before that process ended.
    const copied =
      Buffer.byteLength(text) - Buffer.byteLength(lines.split('\n').slice(2).join('\n'));
    await harness.raw('INSERT INTO audit_journal (segment, ingested_bytes) VALUES ($1, $2)', [
      name,
      copied,
    ]);
    const { store, warnings } = await openWith({ quietMs: 60_000 }, harness);
    expect((await texts(store)).sort()).toEqual(['left-2', 'left-3', 'left-4']);
    expect(segments(dir)).toEqual([]);
    expect(warnings.join('\n')).toMatch(
      /byte\(s\) of an unfinished record at the end of .*dropped/,
    );
    await store.close();
    expect(await harness.raw('SELECT segment FROM audit_journal')).toEqual([]);
  });

  it('sets a segment it cannot read aside for a person, and goes on', async () => {
    const harness = await newHarness();
    const { dir } = await openWith({ quietMs: 60_000 }, harness);
    await open.pop()!.close();
    leave(dir, '000000000000001-1-000000.copy', 'hintgate audit journal\t9\ttool\n');
    const { store, warnings } = await openWith({ quietMs: 60_000 }, harness);
    await store.appendAudit(records('after', 1));
    expect(await texts(store)).toEqual(['after-0']);
    expect(readdirSync(dir)).toEqual(['000000000000001-1-000000.copy.unreadable']);
    expect(warnings.join('\n')).toMatch(/cannot be read \(format 9, this version reads 1\)/);
  });

  it('keeps a record the database refuses in a degraded form, and the rest of its chunk whole', async () => {
    const harness = await newHarness();
    const { dir } = await openWith({ quietMs: 60_000 }, harness);
    await open.pop()!.close();
    const good = auditCopyLines(records('fine', 2));
    const [bad] = auditCopyLines(records('bad', 1)).split('\n');
    const columns = [...AUDIT_COPY_COLUMNS];
    const values = bad!.split('\t');
    values[columns.indexOf('duration_ms')] = 'not a number';
    leave(dir, '000000000000001-1-000000.copy', segmentText(`${good}${values.join('\t')}\n`));
    const { store } = await openWith({ quietMs: 60_000 }, harness);
    const stored = await store.queryAudit({ limit: 10 });
    expect(stored).toHaveLength(3);
    const degraded = stored.find((record) => record.arguments === undefined);
    expect(degraded).toMatchObject({ tool: 'echo_echo', server: 'echo', outcome: 'ok' });
    expect(degraded?.error).toMatch(/^audit record stored without its details: .*integer/);
    expect(segments(dir)).toEqual([]);
  });

  // A database failing for its own reasons (an I/O error, a privilege taken away) would
  // refuse every record alike: the segment waits on disk, nothing dropped.
  it.each([
    ['an I/O error', '58030'],
    ['a missing privilege', '42501'],
  ])(
    'keeps a segment the database cannot take (%s) whole on disk, and copies it once it can',
    async (_what, sqlState) => {
      const harness = await newHarness();
      const { dir } = await openWith({ quietMs: 60_000 }, harness);
      await open.pop()!.close();
      await harness.raw(`CREATE FUNCTION refuse_all() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the disk is failing' USING ERRCODE = '${sqlState}'; END $$`);
      await harness.raw(
        'CREATE TRIGGER refuse_all BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_all()',
      );
      const name = '000000000000001-1-000000.copy';
      leave(dir, name, segmentText(auditCopyLines(records('kept', 3))));
      const failing = await openWith({ quietMs: 60_000, chunkRecords: 2 }, harness);
      // A read copies what waits first: it says why it cannot, rather than answer without it.
      await expect(failing.store.queryAudit({ limit: 10 })).rejects.toMatchObject({
        code: 'INTERNAL',
        message: expect.stringMatching(/the disk is failing/),
      });
      expect(segments(dir)).toEqual([name]);
      expect(failing.warnings.join('\n')).not.toMatch(/dropped/);
      await open.pop()!.close();
      expect(segments(dir)).toEqual([name]);
      await harness.raw('DROP TRIGGER refuse_all ON audit_log');
      const { store } = await openWith({ quietMs: 60_000 }, harness);
      expect((await texts(store)).sort()).toEqual(['kept-0', 'kept-1', 'kept-2']);
      expect(segments(dir)).toEqual([]);
    },
  );

  it('copies the others past a record that makes the database fail or is too large for it', async () => {
    const harness = await newHarness();
    const { dir } = await openWith({ quietMs: 60_000 }, harness);
    await open.pop()!.close();
    // `huge` runs the database out of memory with its arguments (its degraded form, without
    // them, goes in); `long` is too large for an index in either form (54000).
    await harness.raw(`CREATE FUNCTION refuse_some() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.tool = 'huge' AND NEW.arguments IS NOT NULL THEN
        RAISE EXCEPTION 'out of memory' USING ERRCODE = '53200';
      END IF;
      IF NEW.tool = 'long' THEN
        RAISE EXCEPTION 'index row size 3000 exceeds btree version 4 maximum 2704' USING ERRCODE = '54000';
      END IF;
      RETURN NEW; END $$`);
    await harness.raw(
      'CREATE TRIGGER refuse_some BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_some()',
    );
    const lines = auditCopyLines([
      ...records('before', 2),
      ...records('huge', 1, { tool: 'huge' }),
      ...records('long', 1, { tool: 'long' }),
      ...records('after', 2),
    ]);
    leave(dir, '000000000000001-1-000000.copy', segmentText(lines));
    const { store, warnings } = await openWith({ quietMs: 60_000 }, harness);
    const stored = await store.queryAudit({ limit: 10 });
    expect(stored.map((record) => record.tool).sort()).toEqual([
      'echo_echo',
      'echo_echo',
      'echo_echo',
      'echo_echo',
      'huge',
    ]);
    const huge = stored.find((record) => record.tool === 'huge');
    expect(huge?.arguments).toBeUndefined();
    expect(huge?.error).toMatch(/^audit record stored without its details: .*out of memory/);
    expect(
      warnings.filter((warning) => /refused by the database and dropped/.test(warning)),
    ).toEqual([expect.stringMatching(/index row size/)]);
    expect(segments(dir)).toEqual([]);
  });

  it('writes a batch the journal cannot take to the database, and says so', async () => {
    const harness = await newHarness();
    const dataDir = (harness.options as { dataDir: string }).dataDir;
    // A file where the journal's folder should be: the journal cannot be written.
    writeFileSync(join(dataDir, AUDIT_JOURNAL_DIR), 'in the way');
    const { store, warnings } = await openWith({ quietMs: 60_000 }, harness);
    await store.appendAudit(records('fallback', 2));
    await store.appendAudit(records('again', 1));
    expect((await texts(store)).sort()).toEqual(['again-0', 'fallback-0', 'fallback-1']);
    // Said once, not for every batch.
    expect(warnings.filter((w) => /cannot write to/.test(w))).toHaveLength(1);
    expect(warnings.join('\n')).toMatch(
      /cannot write to .*batches go to the database until it can/,
    );
  });

  it('takes many writers and readers at once, keeping every record exactly once', async () => {
    const { store, dir } = await openWith({
      quietMs: 5,
      segmentBytes: 2_000,
      chunkRecords: 7,
      maxPending: 40,
    });
    const batches = Array.from({ length: 30 }, (_, index) => records(`many${index}`, 13));
    await Promise.all([
      ...batches.map((batch) => store.appendAudit(batch)),
      ...Array.from({ length: 10 }, () => store.queryAudit({ limit: 1 })),
    ]);
    const stored = await texts(store);
    expect(stored).toHaveLength(30 * 13);
    expect(new Set(stored).size).toBe(30 * 13);
    expect(segments(dir)).toEqual([]);
  });
});

describe('embedded store: audit journal of a process killed with SIGKILL while copying', () => {
  it('keeps every acknowledged record, none twice', async () => {
    const harness = await newHarness();
    // Copies all the time, a few records a transaction, into many small segments.
    const writer = spawnStoreChild('journal-loop', {
      ...(harness.options as PgliteStoreOptions),
      auditJournal: { quietMs: 1, chunkRecords: 3, segmentBytes: 4_096 },
    });
    children.push(writer.process);
    await writer.waitFor(/^ready$/);
    await writer.waitFor(/^40$/, 60_000);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
    writer.process.kill('SIGKILL');
    expect((await writer.exited).signal).toBe('SIGKILL');
    const acknowledged = Math.max(...writer.lines.filter((l) => /^\d+$/.test(l)).map(Number));

    const store = await harness.open();
    open.push(store);
    const stored = await texts(store);
    expect(new Set(stored).size).toBe(stored.length);
    const batches = new Set(stored.map((text) => text.split('-')[0]));
    for (let batch = 0; batch <= acknowledged; batch++) {
      for (let index = 0; index < 10; index++) expect(stored).toContain(`j${batch}-${index}`);
    }
    // At most the batch in flight beyond the last acknowledged one, whole.
    expect(batches.size).toBeLessThanOrEqual(acknowledged + 2);
    expect(stored.length % 10).toBe(0);
  });
});
