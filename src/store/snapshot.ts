/**
 * What a gateway reads from the embedded store before it can serve its first listing (the
 * pins, the default toolset and its toolset, the global overrides), kept beside the
 * database when the gateway closes. The next gateway on the same data directory answers those
 * reads from it while PGlite is still opening, which takes 0.3-0.5 s beside a dozen
 * starting servers, so its first listing waits for the servers only.
 *
 * The snapshot holds only while the database is exactly as the gateway that took it left it.
 * It names the bytes of PostgreSQL's control file (`global/pg_control`) after that gateway
 * closed the store: PostgreSQL rewrites the file each time it opens the database (its state
 * becomes "in production") and each time it closes it (a new checkpoint). Anything that has
 * opened the database since (the CLI with no gateway running, another gateway, a gateway
 * killed before it could save) leaves another file, and the snapshot is not used. A snapshot
 * is taken only after a clean close (the control file says "shut down").
 *
 * It is a cache, never the record: once the store is open, each answer given from the
 * snapshot is read again, and a difference is announced as a `resync` (everything reread).
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import type { Store } from './interface.js';
import type { HeldLock } from './lock.js';
import { acquireLock } from './lock.js';
import { PGLITE_DATABASE_DIR } from './pglite.js';
import type { StoreEvent } from './types.js';

/** The snapshot's file in the data directory. */
export const SNAPSHOT_FILE = 'start-snapshot.bin';

/** PostgreSQL's control file, inside the data directory. */
const CONTROL_FILE = join(PGLITE_DATABASE_DIR, 'global', 'pg_control');
/** Where the control file keeps the cluster's state (after the system id and two versions). */
const STATE_OFFSET = 16;
/** The state of a cluster shut down cleanly (`DB_SHUTDOWNED`). */
const SHUT_DOWN = 1;
/** This file's layout; a snapshot of another layout is not read. */
const FORMAT = 1;

/** The store reads whose answers a snapshot keeps. */
const KEPT: ReadonlySet<string> = new Set<keyof Store>([
  'listPins',
  'getGlobalOverrides',
  'getDefaultToolset',
  'getToolset',
  'listToolsets',
]);

/**
 * Calls that change no kept answer: other reads, and writes of other things. Every other
 * call (one added to the store later included) is taken to change them, so that a snapshot
 * is read afresh rather than kept wrong.
 */
const UNRELATED: ReadonlySet<string> = new Set<keyof Store>([
  'listNotes',
  'listOverrides',
  'exportToolset',
  'createApproval',
  'getApproval',
  'listApprovals',
  'decideApproval',
  'expireApprovals',
  'claimNonce',
  'appendAudit',
  'queryAudit',
  'getOAuthCredential',
  'listOAuthCredentials',
  'saveOAuthCredential',
  'deleteOAuthCredentials',
  'acquireOAuthLock',
  'releaseOAuthLock',
  'withOAuthLock',
  'setAdminEndpoint',
]);

/** Answers of kept reads, by {@link readKey}. */
export type SnapshotReads = ReadonlyMap<string, unknown>;

/** The key of one read: its method and arguments. */
function readKey(method: string, args: readonly unknown[]): string {
  // `listPins()` and `listPins(undefined)` are one read.
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  return `${method}${JSON.stringify(args.slice(0, end))}`;
}

/** The control file's digest, if the database was shut down cleanly; else undefined. */
function cleanStamp(dataDir: string): string | undefined {
  let control: Buffer;
  try {
    control = readFileSync(join(dataDir, CONTROL_FILE));
  } catch {
    return undefined;
  }
  if (control.length < STATE_OFFSET + 4 || control.readUInt32LE(STATE_OFFSET) !== SHUT_DOWN) {
    return undefined;
  }
  return createHash('sha256').update(control).digest('hex');
}

interface SnapshotFile {
  readonly format: number;
  /** The hintgate version that took it: another one may read other shapes. */
  readonly version: string;
  readonly stamp: string;
  readonly reads: Map<string, unknown>;
}

/**
 * The snapshot in the data directory `dataDir`, if its database is still as it was when this
 * `version` of hintgate took it; undefined otherwise (none, another version's, unreadable, or
 * the database opened since).
 */
export function loadSnapshot(dataDir: string, version: string): SnapshotReads | undefined {
  let file: Partial<SnapshotFile>;
  try {
    file = deserialize(readFileSync(join(dataDir, SNAPSHOT_FILE))) as Partial<SnapshotFile>;
  } catch {
    return undefined;
  }
  if (file.format !== FORMAT || file.version !== version || !(file.reads instanceof Map)) {
    return undefined;
  }
  const stamp = cleanStamp(dataDir);
  return stamp !== undefined && stamp === file.stamp ? file.reads : undefined;
}

/**
 * Writes the snapshot of `reads` into the data directory `dataDir`, its store just closed.
 * Nothing is written, and an earlier snapshot is removed, without `reads` (they could not be
 * taken, or changed after) or unless the database was shut down cleanly and nothing else
 * holds the directory; returns whether it was written.
 */
export function saveSnapshot(
  dataDir: string,
  version: string,
  reads: SnapshotReads | undefined,
): boolean {
  const path = join(dataDir, SNAPSHOT_FILE);
  // Under the data directory's lock, so that nothing opens the database between reading its
  // control file and naming it (a process that holds the lock now: no snapshot).
  let lock: HeldLock;
  try {
    lock = acquireLock(dataDir);
  } catch {
    rmSync(path, { force: true });
    return false;
  }
  try {
    const stamp = cleanStamp(dataDir);
    if (stamp === undefined || reads === undefined) {
      rmSync(path, { force: true });
      return false;
    }
    const file: SnapshotFile = { format: FORMAT, version, stamp, reads: new Map(reads) };
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, serialize(file), { mode: 0o600 });
    renameSync(partial, path);
    return true;
  } finally {
    lock.release();
  }
}

/**
 * The kept reads of one run of a store: answered from a snapshot while the store opens,
 * remembered as the store answers them, and read afresh at the end if anything may have
 * changed them, for the next snapshot.
 */
export class StartReads {
  /** The latest answer of each kept read made. */
  readonly #answers = new Map<string, unknown>();
  /** Reads answered from the snapshot, to check once the store is open. */
  readonly #early = new Set<string>();
  /** Whether a call or an event may have changed an answer since it was read. */
  #stale = false;
  /** Counts the calls and events that may have changed an answer. */
  #changes = 0;
  /** The check of the snapshot's answers against the open store, once begun. */
  #confirming: Promise<boolean> | undefined;

  constructor(private readonly saved: SnapshotReads | undefined) {}

  /** Whether there is a snapshot to answer from. */
  get hasSnapshot(): boolean {
    return this.saved !== undefined;
  }

  /** The key of a call if the snapshot keeps its answer; notes a call that may change them. */
  keyOf(method: string, args: readonly unknown[]): string | undefined {
    if (KEPT.has(method)) return readKey(method, args);
    if (!UNRELATED.has(method)) this.#changed();
    return undefined;
  }

  /** How many calls and events so far may have changed an answer. */
  get changes(): number {
    return this.#changes;
  }

  #changed(): void {
    this.#stale = true;
    this.#changes++;
  }

  /** The snapshot's answer to a read, for a store not open yet. */
  early(key: string): { readonly value: unknown } | undefined {
    if (this.saved === undefined || !this.saved.has(key)) return undefined;
    const value = this.saved.get(key);
    this.#early.add(key);
    this.#answers.set(key, value);
    return { value };
  }

  /** The store's answer to a kept read. */
  answered(key: string, value: unknown): void {
    this.#answers.set(key, value);
  }

  /** A store event: any but a decided approval or a login may change an answer. */
  heard(event: StoreEvent): void {
    if (event.kind !== 'approval' && event.kind !== 'oauth') this.#changed();
  }

  /**
   * Reads again from the open store what the snapshot answered; resolves with whether every
   * answer was the same (when not, the answers are marked stale). Once per run.
   */
  confirmOn(store: Store): Promise<boolean> {
    this.#confirming ??= (async () => {
      let same = true;
      for (const key of this.#early) {
        const fresh = await readAgain(store, key);
        if (!isDeepStrictEqual(fresh, this.saved?.get(key))) {
          same = false;
          this.#changed();
        }
      }
      return same;
    })();
    return this.#confirming;
  }

  /**
   * The answers to keep for the next start: read again from `store` if any may be stale, or
   * if the snapshot's answers have not been checked (to the end) against it.
   */
  async snapshot(store: Store): Promise<SnapshotReads> {
    const confirmed = await (this.#confirming ?? Promise.resolve(this.#early.size === 0)).catch(
      () => false,
    );
    if (!confirmed || this.#stale) return this.#readAll(store);
    return new Map(this.#answers);
  }

  async #readAll(store: Store): Promise<SnapshotReads> {
    const fresh = new Map<string, unknown>();
    for (const key of this.#answers.keys()) fresh.set(key, await readAgain(store, key));
    return fresh;
  }
}

/** Runs the read a key names on `store`. */
function readAgain(store: Store, key: string): Promise<unknown> {
  const open = key.indexOf('[');
  const method = key.slice(0, open);
  const args = JSON.parse(key.slice(open)) as unknown[];
  const reads = store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  return reads[method]?.(...args) ?? Promise.reject(new Error(`no store read ${method}`));
}
