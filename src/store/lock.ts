import { randomBytes } from 'node:crypto';
import {
  closeSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { HintgateError, errorMessage } from '../core/errors.js';
import { errorCode } from './sql.js';
import type { AdminEndpoint } from './types.js';

/** The lock file's name inside the data directory. */
export const LOCK_FILE = 'hintgate.lock';

/** What a lock file says about the process holding the data directory. */
export interface LockInfo {
  readonly pid: number;
  /** When the holder took the lock (ISO 8601). */
  readonly startedAt: string;
  readonly hostname: string;
  /** The holder's start time in clock ticks since boot (Linux), to tell a reused pid. */
  readonly procStart?: string;
  /**
   * The embedded store's own process while one runs (it writes the data directory too, and
   * outlives its gateway for a moment when that is killed), with its start time.
   */
  readonly storePid?: number;
  readonly storeProcStart?: string;
  /** Where the CLI can reach the gateway holding the directory instead of opening it. */
  readonly adminUrl?: string;
  readonly adminToken?: string;
}

/** A lock this process holds. */
export interface HeldLock {
  readonly path: string;
  /** Records (or clears) the admin endpoint in the lock file (nothing once released). */
  setAdmin(endpoint: AdminEndpoint | undefined): void;
  /** Records (or clears) the store process writing the data directory (nothing once released). */
  setStoreProcess(pid: number | undefined): void;
  /** Deletes the lock file if it is still ours; safe to call twice. */
  release(): void;
}

/** Options for {@link acquireLock}. */
export interface AcquireLockOptions {
  /** Told when a stale lock (its process gone) is taken over. */
  readonly onWarning?: (message: string) => void;
  /**
   * How long to wait for the store process of a holder that has ended (it exits by itself
   * once its gateway's channel closes) before giving up with STORE_LOCKED; default 5 s.
   */
  readonly storeExitWaitMs?: number;
}

const PARTIAL_LOCK_GRACE_MS = 2_000;

/** The fields of /proc/<pid>/stat after the command name (Linux), from the state on. */
function statOf(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** When a process started, in clock ticks since boot (the 22nd field of its stat). */
function procStartOf(pid: number): string | undefined {
  return statOf(pid)?.[19];
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockInfo> | null;
    if (typeof value?.pid !== 'number' || typeof value.startedAt !== 'string') return undefined;
    return { hostname: '', ...value } as LockInfo;
  } catch {
    return undefined;
  }
}

/**
 * True while the process named by a lock, or its store process, is running. A lock from
 * another host cannot be checked and counts as alive; a pid now used by a process started
 * later counts as dead.
 */
export function isLockAlive(info: LockInfo): boolean {
  if (info.hostname !== hostname()) return true;
  return isRunning(info.pid, info.procStart) || isStoreRunning(info);
}

/** True while the lock's store process runs (on this host). */
function isStoreRunning(info: LockInfo): boolean {
  return info.storePid !== undefined && isRunning(info.storePid, info.storeProcStart);
}

/** True while `pid` runs, and is the process that started at `procStart` when it is given. */
function isRunning(pid: number, procStart: string | undefined): boolean {
  // 0 and negative pids name process groups, not a process.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (errorCode(error) === 'ESRCH') return false;
  }
  const stat = statOf(pid);
  // A zombie has exited; only its parent's wait (which may never come) removes it.
  if (stat?.[0] === 'Z' || stat?.[0] === 'X') return false;
  if (procStart === undefined) return true;
  const now = stat?.[19];
  return now === undefined || now === procStart;
}

/**
 * The lock of a data directory with whether its holder is alive, or undefined when the
 * directory is not locked. The CLI reads it to reach a running gateway's admin endpoint.
 */
export function readLock(dataDir: string): (LockInfo & { readonly alive: boolean }) | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, LOCK_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const info = parseLock(text);
  return info === undefined ? undefined : { ...info, alive: isLockAlive(info) };
}

/** True when a lock's gateway (on this host) has ended and its store process still runs. */
function isOrphanedStore(info: LockInfo): boolean {
  return (
    info.hostname === hostname() && !isRunning(info.pid, info.procStart) && isStoreRunning(info)
  );
}

function lockedError(dataDir: string, path: string, info: LockInfo): HintgateError {
  if (isOrphanedStore(info)) {
    // The gateway is gone; its store process ends by itself once it has let go of the files.
    return new HintgateError(
      'STORE_LOCKED',
      `data directory ${dataDir} is still in use by the store process (pid ${info.storePid}) of hintgate pid ${info.pid}, which has ended; it did not exit within the wait: end it, or try again once it has exited.`,
      { dataDir, pid: info.pid, storePid: info.storePid, startedAt: info.startedAt },
    );
  }
  const reach =
    info.adminUrl === undefined
      ? 'stop it first'
      : `stop it first, or reach it through its admin endpoint ${info.adminUrl}`;
  return new HintgateError(
    'STORE_LOCKED',
    `data directory ${dataDir} is in use by hintgate (pid ${info.pid}, started ${info.startedAt}${info.hostname === hostname() ? '' : ` on ${info.hostname}`}); ${reach}. If no hintgate is running there, delete ${path}.`,
    {
      dataDir,
      pid: info.pid,
      startedAt: info.startedAt,
      ...(info.adminUrl === undefined ? {} : { adminUrl: info.adminUrl }),
    },
  );
}

function writeNew(path: string, info: LockInfo): void {
  // O_EXCL: exactly one process creates the file; the others get EEXIST.
  const fd = openSync(path, 'wx', 0o600);
  try {
    // No fsync (here or in `rewrite`): the file speaks of live processes, which an OS crash
    // ends; a file it left empty or stale is taken over as unreadable or dead. The sync cost
    // the start 20-50 ms on the main thread.
    writeSync(fd, JSON.stringify(info));
  } finally {
    closeSync(fd);
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes the data directory's lock file, created atomically (O_EXCL) with this process's
 * pid and start time. A lock whose process is gone is taken over (with a warning); a live
 * one gives `STORE_LOCKED` naming its pid. The lock is released by {@link HeldLock.release}
 * and, failing that, when the process exits.
 */
export function acquireLock(dataDir: string, options: AcquireLockOptions = {}): HeldLock {
  const path = join(dataDir, LOCK_FILE);
  const storeDeadline = Date.now() + (options.storeExitWaitMs ?? 5_000);
  const procStart = procStartOf(process.pid);
  let info: LockInfo = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    hostname: hostname(),
    ...(procStart === undefined ? {} : { procStart }),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      writeNew(path, info);
      break;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST' || attempt >= 100) {
        throw new HintgateError(
          'STORE_UNAVAILABLE',
          `cannot lock data directory ${dataDir}: ${errorMessage(error)}`,
          { dataDir },
          { cause: error },
        );
      }
    }
    const holder = readLock(dataDir);
    if (holder === undefined) {
      // Being written by another process this instant, or left half-written by a crash.
      const age = ageOf(path);
      if (age !== undefined && age < PARTIAL_LOCK_GRACE_MS) {
        sleepSync(50);
        continue;
      }
    } else if (holder.alive) {
      // Only the store process of an ended gateway is left: it is on its way out.
      if (isOrphanedStore(holder) && Date.now() < storeDeadline) {
        sleepSync(50);
        continue;
      }
      throw lockedError(dataDir, path, holder);
    }
    if (takeOver(path, holder)) {
      options.onWarning?.(
        holder === undefined
          ? `removed an unreadable lock file ${path}`
          : `took over data directory ${dataDir} from hintgate pid ${holder.pid} (started ${holder.startedAt}), which is no longer running`,
      );
    }
  }
  const onExit = (): void => removeIfOurs(path, info);
  process.on('exit', onExit);
  let released = false;
  /**
   * Writes `info` to the lock file. The file only informs other processes (the CLI, a second
   * gateway): a directory removed or made read-only under a running gateway must not end it
   * (these writes come from a child process's exit, an admin endpoint's start), so a failure
   * is said, once until a write succeeds again, and the gateway goes on.
   */
  let failing = false;
  const update = (): void => {
    try {
      rewrite(path, info);
      failing = false;
    } catch (error) {
      if (!failing) {
        options.onWarning?.(`cannot update the lock file ${path}: ${errorMessage(error)}`);
      }
      failing = true;
    }
  };
  return {
    path,
    setAdmin(endpoint) {
      if (released) return;
      const { adminUrl: _url, adminToken: _token, ...rest } = info;
      info = {
        ...rest,
        ...(endpoint === undefined ? {} : { adminUrl: endpoint.url }),
        ...(endpoint?.token === undefined ? {} : { adminToken: endpoint.token }),
      };
      update();
    },
    setStoreProcess(pid) {
      // Once released, the file is no longer this process's to write.
      if (released) return;
      const { storePid: _pid, storeProcStart: _start, ...rest } = info;
      const storeProcStart = pid === undefined ? undefined : procStartOf(pid);
      info = {
        ...rest,
        ...(pid === undefined ? {} : { storePid: pid }),
        ...(storeProcStart === undefined ? {} : { storeProcStart }),
      };
      update();
    },
    release() {
      if (released) return;
      released = true;
      process.off('exit', onExit);
      removeIfOurs(path, info);
    },
  };
}

/** Replaces the lock file's content at once (a reader sees the old or the new, whole). */
function rewrite(path: string, info: LockInfo): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    try {
      writeSync(fd, JSON.stringify(info));
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function ageOf(path: string): number | undefined {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Moves a stale lock out of the way. The rename is atomic, and the moved file is checked to
 * be the stale one: if another process took the lock over in between, its lock is put back.
 */
function takeOver(path: string, stale: LockInfo | undefined): boolean {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return false;
  }
  const moved = parseLock(readFileSafe(aside));
  if (stale !== undefined && moved !== undefined && moved.pid !== stale.pid) {
    try {
      renameSync(aside, path);
    } catch {
      // Nothing better to do: the next attempt reads whatever lock is there now.
    }
    return false;
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
  return true;
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function removeIfOurs(path: string, info: LockInfo): void {
  const current = parseLock(readFileSafe(path));
  if (current?.pid !== info.pid || current.startedAt !== info.startedAt) return;
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
