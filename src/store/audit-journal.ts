/**
 * The embedded store's audit journal. PGlite runs every statement on one thread of its own
 * process, and an audit record costs that process 25-50 µs of CPU (the row, its indexes, the
 * write-ahead log): under a busy client that is as much CPU again as the gateway spends on
 * the call, taken from the same two cores as the client and the server. So the embedded
 * store does not copy each batch into the database as it comes: it appends the batch to a
 * journal file (the lines its `COPY` would read, written and synced to disk in one go), and
 * copies the journal into the audit log once the gateway is quiet, when enough waits, when
 * the log is read, and when the store closes.
 *
 * A batch appended is kept: a gateway killed outright (`kill -9`) leaves its journal behind,
 * and whoever opens the store next copies it. Reads of the audit log copy what waits first,
 * so nobody ever sees the log without a record the store took. The copy goes by chunks of
 * records, each in one transaction that also records how far the segment has been copied
 * (table `audit_journal`), so an interrupted copy goes on where it stopped and no record is
 * copied twice.
 *
 * Files: `<dataDir>/audit-journal/<time>-<pid>-<n>.copy`, 0600, each a segment: a header
 * line naming the format and its columns, then one line per record. A segment is written by
 * one process and never appended to once sealed (at rotation, when a copy starts, at close);
 * a segment that cannot be read is renamed `.unreadable` and left for a person, never
 * deleted.
 */
import { Buffer } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HintgateError, errorMessage, isHintgateError } from '../core/errors.js';
import { AUDIT_COPY_COLUMNS, degradedCopyLine } from './audit.js';
import type { StoreRunner } from './runner.js';
import type { Sql } from './sql.js';
import { isRecordRefused } from './sql.js';

/** The journal's folder inside the data directory. */
export const AUDIT_JOURNAL_DIR = 'audit-journal';

/** A segment's first line: this, a tab, the format's version, then its columns, tab-separated. */
const HEADER = 'hintgate audit journal';
const FORMAT = '1';
const SEGMENT_SUFFIX = '.copy';
const KNOWN_COLUMNS = new Set<string>(AUDIT_COPY_COLUMNS);

/** The spare buffer's first size: a batch of 200 records with 1 KiB arguments fits. */
const SPARE_START_BYTES = 512 * 1024;
/** A larger buffer (made for an unusually large batch) is not kept. */
const SPARE_BYTES = 8 * 1024 * 1024;

/** Options of {@link AuditJournal}. */
export interface AuditJournalOptions {
  /** Copy into the log once nothing was appended for this long, in ms (default 10,000). */
  readonly quietMs?: number;
  /** Copy at once when this many records wait (default 250,000). */
  readonly maxPending?: number;
  /** Copy at once when the records waiting take this many bytes (default 256 MiB). */
  readonly maxPendingBytes?: number;
  /** Start a new segment once one holds this many bytes (default 4 MiB). */
  readonly segmentBytes?: number;
  /** Records copied in one transaction (default 1,000). */
  readonly chunkRecords?: number;
  /** Told what is worth a log line: a failed write or copy, a damaged segment. */
  readonly onWarning?: (message: string) => void;
  /**
   * Awaited twice before a copy made because nothing was appended for `quietMs`: once half
   * of that time in, and again at its end, just before the copy; an append in between starts
   * the wait over, and a close or a copy started because enough records wait ends it. The
   * database's process grows as it copies (by about 70 MiB), and a gateway whose heap grew
   * under the burst of calls being copied gives that memory back here first, so that the
   * two processes together stay small (V8 shrinks its young generation only at a collection
   * that finds little allocated over the 5 s before it: the first call's collection comes
   * right after the burst, the second's 5 s later). A rejection is ignored.
   */
  readonly onQuiet?: () => Promise<void>;
}

/** A segment being written by this process. */
interface OpenSegment {
  readonly name: string;
  readonly handle: Promise<FileHandle>;
  /** Bytes written and synced so far (the header included). */
  bytes: number;
  /** The header's length: where its records start. */
  readonly headerBytes: number;
  /** Records appended to it. */
  records: number;
  /** The writes in order; settles once the last one has. */
  writing: Promise<void>;
}

/** A segment no longer written, waiting to be copied. */
interface SealedSegment {
  readonly name: string;
  /** Settles once its writes have ended and its file is closed. */
  readonly done: Promise<void>;
  /** This process's segment (its record count); absent for one an earlier process left. */
  readonly written?: OpenSegment;
  /** Its records no longer count as waiting ({@link AuditJournal.#discount}). */
  discounted?: boolean;
}

/** The data a segment's bytes hold: its columns and where its records start. */
interface SegmentHeader {
  readonly columns: readonly string[];
  readonly end: number;
}

/** How far each segment has been copied, read and written in the copy's transactions. */
const PROGRESS_OF = 'SELECT ingested_bytes::text AS bytes FROM audit_journal WHERE segment = $1';
const SET_PROGRESS = `INSERT INTO audit_journal (segment, ingested_bytes) VALUES ($1, $2)
  ON CONFLICT (segment) DO UPDATE SET ingested_bytes = excluded.ingested_bytes`;

/**
 * The journal of one embedded store (see the module's comment). `append` writes a batch;
 * `ingest` copies everything appended before it into the audit log; `close` copies what is
 * left and stops.
 */
export class AuditJournal {
  readonly #dir: string;
  readonly #quietMs: number;
  readonly #maxPending: number;
  readonly #maxPendingBytes: number;
  readonly #segmentBytes: number;
  readonly #chunkRecords: number;
  readonly #warn: (message: string) => void;
  readonly #onQuiet: (() => Promise<void>) | undefined;
  /** Counts the quiet waits started: a wait's later steps run only if it is still the last. */
  #quietWaits = 0;
  #current: OpenSegment | undefined;
  readonly #sealed: SealedSegment[] = [];
  /** Whether the segments earlier processes left have been listed (before the first copy). */
  #leftoversTaken = false;
  #listingFailed = false;
  /** Whether the last write failed (said once until one succeeds). */
  #writeFailing = false;
  /** The names of this process's segments not yet copied. */
  readonly #mine = new Set<string>();
  /** Records appended and not yet copied (those of leftover segments not counted). */
  #pending = 0;
  /** Their bytes. */
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Copies run one after another. */
  #copying: Promise<void> = Promise.resolve();
  #sequence = 0;
  #closed = false;
  #madeDir = false;
  /** The buffer batches are encoded into, while no write holds it. */
  #spare: Buffer | undefined;

  constructor(
    dir: string,
    private readonly runner: Pick<StoreRunner, 'read' | 'write'>,
    options: AuditJournalOptions = {},
  ) {
    this.#dir = dir;
    this.#quietMs = options.quietMs ?? 10_000;
    this.#maxPending = options.maxPending ?? 250_000;
    this.#maxPendingBytes = options.maxPendingBytes ?? 256 * 1024 * 1024;
    this.#segmentBytes = options.segmentBytes ?? 4 * 1024 * 1024;
    this.#chunkRecords = options.chunkRecords ?? 1_000;
    this.#warn = options.onWarning ?? (() => {});
    this.#onQuiet = options.onQuiet;
    // What an earlier process left is copied once this one has been quiet a while.
    listSegments(dir).then(
      (names) => {
        if (names.length > 0) this.#quietLater();
      },
      () => this.#quietLater(),
    );
  }

  /** Records appended and not yet copied into the log. */
  get pending(): number {
    return this.#pending;
  }

  /**
   * Appends `lines`, a record's each (COPY's text format for the audit log's columns, each
   * ending with a line break), and syncs them to disk. On failure the segment is cut back to
   * its last whole batch and set aside, and the error thrown: the caller writes the batch to
   * the database instead.
   */
  async append(lines: readonly string[]): Promise<void> {
    const records = lines.length;
    if (this.#closed) {
      throw new HintgateError('STORE_UNAVAILABLE', `audit journal in ${this.#dir} is closed`, {
        location: this.#dir,
      });
    }
    if (records === 0) return;
    const segment = this.#current ?? (this.#current = this.#openSegment());
    const bytes = this.#encode(lines);
    // Counted before the write: a segment sealed meanwhile is known not to be empty.
    segment.records += records;
    const written = segment.writing.then(async () => {
      const handle = await segment.handle;
      const before = segment.bytes;
      try {
        await handle.writeFile(bytes);
        await handle.datasync();
        segment.bytes = before + bytes.length;
      } catch (error) {
        // Cut back to the last whole batch, so that no part of this one is copied as well as
        // the database's own copy of it.
        await handle.truncate(before).catch((cut: unknown) => {
          this.#warn(
            `audit journal: cannot cut ${segment.name} back to ${before} bytes after a failed write (${errorMessage(cut)}); some records of that batch may be kept twice`,
          );
        });
        throw error;
      }
    });
    segment.writing = written.catch(() => undefined);
    try {
      await written;
    } catch (error) {
      this.#release(bytes);
      segment.records -= records;
      if (this.#current === segment) this.#seal();
      // Said when writes start failing, not for every batch after.
      if (!this.#writeFailing) {
        this.#writeFailing = true;
        this.#warn(
          `audit journal: cannot write to ${join(this.#dir, segment.name)} (${errorMessage(error)}); batches go to the database until it can`,
        );
      }
      throw error;
    }
    this.#release(bytes);
    if (this.#writeFailing) {
      this.#writeFailing = false;
      this.#warn(`audit journal: writing to ${this.#dir} again`);
    }
    this.#pending += records;
    this.#pendingBytes += bytes.length;
    if (segment.bytes >= this.#segmentBytes && this.#current === segment) this.#seal();
    if (this.#pending >= this.#maxPending || this.#pendingBytes >= this.#maxPendingBytes) {
      // Not quiet: a wait an earlier append started must not call `onQuiet` under load.
      this.#endQuietWait();
      void this.ingest().catch(() => undefined);
    } else this.#quietLater();
  }

  /**
   * The lines' UTF-8, in the spare buffer when it is free (see {@link SPARE_BYTES}): a batch
   * made into one string and then into a new Buffer cost the gateway, for every batch, a
   * string and a buffer of its whole size in memory the process had just been given, and the
   * page faults of touching it.
   */
  #encode(lines: readonly string[]): Buffer {
    let buffer = this.#spare ?? Buffer.allocUnsafeSlow(SPARE_START_BYTES);
    this.#spare = undefined;
    let used = 0;
    for (const line of lines) {
      // At most three bytes of UTF-8 for each UTF-16 code unit.
      const most = line.length * 3;
      if (buffer.length - used < most) {
        const larger = Buffer.allocUnsafeSlow(Math.max(buffer.length * 2, used + most));
        buffer.copy(larger, 0, 0, used);
        buffer = larger;
      }
      used += buffer.write(line, used, 'utf8');
    }
    return buffer.subarray(0, used);
  }

  /** A batch's bytes are written (or given up): their buffer is the spare again. */
  #release(bytes: Buffer): void {
    // The whole buffer `#encode` made (its own memory, from its start).
    if (bytes.buffer.byteLength <= SPARE_BYTES) this.#spare = Buffer.from(bytes.buffer);
  }

  /**
   * Copies every record appended before this call (and any segment an earlier process left)
   * into the audit log. Copies run one after another. Rejects when the store cannot be
   * reached (what is left is copied by a later call); a record the database refuses is
   * copied in a degraded form instead ({@link degradedCopyLine}).
   */
  ingest(): Promise<void> {
    this.#seal();
    const run = this.#copying.then(() => this.#copyAll());
    this.#copying = run.catch(() => undefined);
    return run;
  }

  /**
   * Copies what is left into the log (what cannot be is left on disk) and stops. With `copy`
   * false, it only finishes writing: every record stays on disk, copied by the next process
   * that opens the store, as after a gateway killed outright.
   */
  async close({ copy = true }: { readonly copy?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    if (!copy) {
      this.#seal();
      await Promise.all([this.#copying, ...this.#sealed.map((segment) => segment.done)]);
      return;
    }
    try {
      await this.ingest();
    } catch (error) {
      this.#warn(
        `audit journal: records left in ${this.#dir} for the next start (${errorMessage(error)})`,
      );
    }
  }

  /**
   * Copies once nothing has been appended for {@link AuditJournalOptions.quietMs}, calling
   * `onQuiet` half of that time in and again before the copy (without it, simply copies).
   */
  #quietLater(): void {
    this.#endQuietWait();
    if (this.#closed) return;
    const wait = this.#quietWaits;
    const half = this.#quietMs / 2;
    // Each step runs only if no append, close or later wait came since the wait began.
    const step = (then: () => void) => {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#callOnQuiet().then(() => {
          if (wait === this.#quietWaits && !this.#closed) then();
        });
      }, half);
      this.#timer.unref();
    };
    const copy = () => {
      this.ingest().catch((error: unknown) => {
        this.#warn(`audit journal: copy into the audit log failed (${errorMessage(error)})`);
        // Tried again once the gateway has been quiet again.
        this.#quietLater();
      });
    };
    step(() => step(copy));
  }

  /** Ends the quiet wait under way, if any: its timer, and its steps after a hook in progress. */
  #endQuietWait(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#quietWaits += 1;
  }

  async #callOnQuiet(): Promise<void> {
    try {
      await this.#onQuiet?.();
    } catch {
      // The hook's own business: the copy goes on.
    }
  }

  #openSegment(): OpenSegment {
    const name = `${String(Date.now()).padStart(15, '0')}-${process.pid}-${String(this.#sequence++).padStart(6, '0')}${SEGMENT_SUFFIX}`;
    const header = Buffer.from(`${[HEADER, FORMAT, ...AUDIT_COPY_COLUMNS].join('\t')}\n`, 'utf8');
    this.#mine.add(name);
    const segment: OpenSegment = {
      name,
      bytes: header.length,
      headerBytes: header.length,
      records: 0,
      handle: (async () => {
        if (!this.#madeDir) {
          await mkdir(this.#dir, { recursive: true, mode: 0o700 });
          this.#madeDir = true;
        }
        // `ax`: a new file, appended to; never one of another process.
        const handle = await open(join(this.#dir, name), 'ax', 0o600);
        try {
          await handle.writeFile(header);
        } catch (error) {
          await handle.close().catch(() => undefined);
          throw error;
        }
        return handle;
      })(),
      writing: Promise.resolve(),
    };
    // A segment that could not be created fails its first append; the next opens another.
    segment.writing = segment.handle.then(
      () => undefined,
      () => undefined,
    );
    return segment;
  }

  /** Stops writing the current segment; it waits to be copied. */
  #seal(): void {
    const segment = this.#current;
    if (segment === undefined) return;
    this.#current = undefined;
    const done = segment.writing.then(async () => {
      const handle = await segment.handle.catch(() => undefined);
      await handle?.close().catch(() => undefined);
    });
    this.#sealed.push({ name: segment.name, done, written: segment });
  }

  async #copyAll(): Promise<void> {
    if (!this.#leftoversTaken) {
      // Every segment on disk that this process did not write was left by an earlier one.
      let listed: string[] | undefined;
      try {
        listed = await listSegments(this.#dir);
      } catch (error) {
        // Nothing there can be read now; listed again by the next copy, said once.
        if (!this.#listingFailed) {
          this.#listingFailed = true;
          this.#warn(`audit journal: cannot list ${this.#dir} (${errorMessage(error)})`);
        }
      }
      this.#leftoversTaken = listed !== undefined;
      listed ??= [];
      const leftovers = listed.filter((name) => !this.#mine.has(name));
      if (leftovers.length > 0) {
        // Rows of segments whose files are gone (a process that ended between removing a
        // copied segment and its row) are dropped.
        await this.runner.write((sql) =>
          sql.query('DELETE FROM audit_journal WHERE NOT (segment = ANY($1::text[]))', [
            [...leftovers, ...this.#mine],
          ]),
        );
      }
      this.#sealed.unshift(...leftovers.map((name) => ({ name, done: Promise.resolve() })));
    }
    while (this.#sealed.length > 0) {
      const segment = this.#sealed[0]!;
      await segment.done;
      if (segment.written?.records === 0) {
        // Nothing but its header (its one write failed, and went to the database).
        await unlink(join(this.#dir, segment.name)).catch(() => undefined);
      } else {
        await this.#copySegment(segment.name, () => this.#discount(segment));
      }
      this.#sealed.shift();
      if (segment.written !== undefined) this.#mine.delete(segment.name);
      this.#discount(segment);
    }
  }

  /**
   * Stops counting a segment's records as waiting, once: as soon as they are in the database,
   * before its file goes, so that a batch appended the moment it has gone is not counted
   * against records already copied (nor twice when removing the file failed and is retried).
   */
  #discount(segment: SealedSegment): void {
    const written = segment.written;
    if (written === undefined || segment.discounted === true) return;
    segment.discounted = true;
    this.#pending = Math.max(0, this.#pending - written.records);
    this.#pendingBytes = Math.max(0, this.#pendingBytes - (written.bytes - written.headerBytes));
  }

  /**
   * Copies one sealed segment from where its last copy stopped, then removes it; `copied` is
   * called once every record is in the database, before the file is removed.
   */
  async #copySegment(name: string, copied: () => void): Promise<void> {
    const path = join(this.#dir, name);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const header = readHeader(bytes);
    if (typeof header === 'string') {
      await this.#setAside(path, header);
      return;
    }
    const rows = await this.runner.read((sql) => sql.query<{ bytes: string }>(PROGRESS_OF, [name]));
    let start = Math.max(header.end, Number(rows[0]?.bytes ?? 0));
    while (start < bytes.length) {
      const end = chunkEnd(bytes, start, this.#chunkRecords);
      if (end === undefined) break;
      const data = bytes.toString('utf8', start, end);
      try {
        await this.runner.write((sql) => copyChunk(sql, header.columns, data, name, end));
      } catch (error) {
        if (isHintgateError(error, 'STORE_UNAVAILABLE')) throw error;
        await this.#copyOneByOne(header.columns, bytes, start, end, name, error);
      }
      start = end;
    }
    if (start < bytes.length) {
      this.#warn(
        `audit journal: ${bytes.length - start} byte(s) of an unfinished record at the end of ${path} dropped`,
      );
    }
    copied();
    await unlink(path);
    await this.runner.write((sql) =>
      sql.query('DELETE FROM audit_journal WHERE segment = $1', [name]),
    );
  }

  /**
   * A chunk the database refused, record by record: one still refused is copied in its
   * degraded form, and one refused even so for what is in it ({@link isRecordRefused}) is
   * dropped with a log line. A degraded form failing for the database's own reasons (out of
   * disk or files, its files gone, a privilege missing) would fail every record alike: the
   * copy stops there, the rest kept on disk for a later one. Trying the degraded form before
   * stopping keeps one record that makes the database fail (too large for its memory) from
   * holding up the others.
   */
  async #copyOneByOne(
    columns: readonly string[],
    bytes: Buffer,
    start: number,
    end: number,
    segment: string,
    cause: unknown,
  ): Promise<void> {
    for (let at = start; at < end;) {
      const next = bytes.indexOf(0x0a, at) + 1;
      const line = bytes.toString('utf8', at, next - 1);
      try {
        await this.runner.write((sql) => copyChunk(sql, columns, `${line}\n`, segment, next));
      } catch (error) {
        if (isHintgateError(error, 'STORE_UNAVAILABLE')) throw error;
        const degraded = degradedCopyLine(line, columns, errorMessage(error));
        try {
          await this.runner.write((sql) => copyChunk(sql, columns, `${degraded}\n`, segment, next));
        } catch (last) {
          if (!isRecordRefused(last)) throw last;
          await this.runner.write((sql) => sql.query(SET_PROGRESS, [segment, next]));
          this.#warn(
            `audit journal: a record of ${segment} was refused by the database and dropped (${errorMessage(last)}; the batch: ${errorMessage(cause)})`,
          );
        }
      }
      at = next;
    }
  }

  /** A segment this code cannot read: renamed for a person to look at, never deleted. */
  async #setAside(path: string, reason: string): Promise<void> {
    const aside = `${path}.unreadable`;
    await rename(path, aside);
    this.#warn(`audit journal: ${path} cannot be read (${reason}); kept as ${aside}`);
  }
}

/** Copies `data` and records the segment copied up to byte `end`, in one transaction. */
async function copyChunk(
  sql: Sql,
  columns: readonly string[],
  data: string,
  segment: string,
  end: number,
): Promise<void> {
  await sql.copyFrom('audit_log', columns, data);
  await sql.query(SET_PROGRESS, [segment, end]);
}

/** The byte after the last whole line of a chunk from `start`, or undefined without one. */
function chunkEnd(bytes: Buffer, start: number, records: number): number | undefined {
  let end: number | undefined;
  let at = start;
  for (let count = 0; count < records; count++) {
    const newline = bytes.indexOf(0x0a, at);
    if (newline === -1) break;
    end = newline + 1;
    at = end;
  }
  return end;
}

/** A segment's header, or why it cannot be read. */
function readHeader(bytes: Buffer): SegmentHeader | string {
  const newline = bytes.indexOf(0x0a);
  if (newline === -1) return 'no header line';
  const [magic, format, ...columns] = bytes.toString('utf8', 0, newline).split('\t');
  if (magic !== HEADER) return 'not an audit journal segment';
  if (format !== FORMAT) return `format ${format ?? '?'}, this version reads ${FORMAT}`;
  const unknown = columns.filter((column) => !KNOWN_COLUMNS.has(column));
  if (columns.length === 0 || unknown.length > 0) {
    return `unknown column(s) ${unknown.join(', ') || '(none given)'}`;
  }
  return { columns, end: newline + 1 };
}

/** The segment files in `dir`, oldest first (none when it does not exist). */
async function listSegments(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith(SEGMENT_SUFFIX)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
