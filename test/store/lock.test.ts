import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LOCK_FILE, acquireLock, readLock } from '../../src/store/lock.js';
import { openStore } from '../../src/store/store.js';
import { spawnStoreChild } from './helpers/child.js';
import { preparedDataDir, removeTempDirs, tempDir } from './helpers/harness.js';

const children: { kill: (signal: NodeJS.Signals) => boolean }[] = [];

/** Fields of /proc/<pid>/stat after the command name (Linux). */
function statOf(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function parentOf(pid: number): number {
  return Number(statOf(pid)[1]);
}

function procStart(pid: number): string | undefined {
  return statOf(pid)[19];
}

/** True while `pid` is a process that has not exited (a zombie has). */
function isRunning(pid: number): boolean {
  try {
    return statOf(pid)[0] !== 'Z';
  } catch {
    return false;
  }
}
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  removeTempDirs();
});

describe('pglite data directory lock', () => {
  it('refuses a second process with STORE_LOCKED naming the pid, then takes over once it is killed', async () => {
    const dataDir = await preparedDataDir();
    const holder = spawnStoreChild('hold', { kind: 'pglite', dataDir });
    children.push(holder.process);
    await holder.waitFor(/^ready$/);
    const pid = holder.process.pid!;
    expect(readLock(dataDir)).toMatchObject({ pid, alive: true, hostname: hostname() });

    const refused = await openStore({ kind: 'pglite', dataDir }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'STORE_LOCKED', details: { pid, dataDir } });
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^data directory ${dataDir} is in use by hintgate \\(pid ${pid}, started .+\\); stop it first`,
      ),
    );

    const storePid = readLock(dataDir)?.storePid;
    expect(storePid).toEqual(expect.any(Number));
    holder.process.kill('SIGKILL');
    await holder.exited;
    // Its store process ends by itself once the channel to its gateway has closed; the next
    // opener waits for that rather than opening the database under it.
    await vi.waitFor(() => expect(isRunning(storePid!)).toBe(false), { timeout: 10_000 });
    expect(readLock(dataDir)).toMatchObject({ pid, storePid, alive: false });
    const warnings: string[] = [];
    const store = await openStore({
      kind: 'pglite',
      dataDir,
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`took over data directory .+ from hintgate pid ${pid} .+no longer running`),
      ),
    ]);
    expect(readLock(dataDir)).toMatchObject({ pid: process.pid, alive: true });
    await store.createToolset({ name: 'after-takeover' });
    await store.close();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('refuses a second open in the same process, and records the admin endpoint for the CLI', async () => {
    const dataDir = await preparedDataDir();
    const store = await openStore({ kind: 'pglite', dataDir });
    await store.setAdminEndpoint({ url: 'http://127.0.0.1:8787/admin', token: 'secret-token' });
    expect(readLock(dataDir)).toMatchObject({
      pid: process.pid,
      adminUrl: 'http://127.0.0.1:8787/admin',
      adminToken: 'secret-token',
    });
    expect(statSync(join(dataDir, LOCK_FILE)).mode & 0o777).toBe(0o600);
    const refused = await openStore({ kind: 'pglite', dataDir }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'STORE_LOCKED', details: { pid: process.pid } });
    expect((refused as Error).message).toContain(
      'or reach it through its admin endpoint http://127.0.0.1:8787/admin',
    );
    expect((refused as Error).message).not.toContain('secret-token');
    await store.setAdminEndpoint(undefined);
    expect(readLock(dataDir)?.adminUrl).toBeUndefined();
    await store.close();
    await expect(store.setAdminEndpoint(undefined)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });

  it('names the store process while it runs, and not once it has been closed when idle', async () => {
    const dataDir = await preparedDataDir();
    const store = await openStore({ kind: 'pglite', dataDir, idleCloseMs: 200 });
    try {
      await store.listToolsets();
      const first = readLock(dataDir)?.storePid;
      expect(first).toEqual(expect.any(Number));
      expect(parentOf(first!)).toBe(process.pid);
      await vi.waitFor(() => expect(readLock(dataDir)?.storePid).toBeUndefined(), {
        timeout: 10_000,
      });
      expect(isRunning(first!)).toBe(false);
      await store.listToolsets();
      const second = readLock(dataDir)?.storePid;
      expect(second).toEqual(expect.any(Number));
      expect(second).not.toBe(first);
      expect(parentOf(second!)).toBe(process.pid);
    } finally {
      await store.close();
    }
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('is released when the holding process exits without closing the store', async () => {
    const dataDir = await preparedDataDir();
    const child = spawnStoreChild('exit', { kind: 'pglite', dataDir });
    children.push(child.process);
    await child.waitFor(/^ready$/);
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(readLock(dataDir)).toBeUndefined();
  });
});

describe('acquireLock', () => {
  function writeLock(dir: string, content: unknown): void {
    writeFileSync(
      join(dir, LOCK_FILE),
      typeof content === 'string' ? content : JSON.stringify(content),
    );
  }

  it('takes over a lock whose pid now belongs to a process started later', () => {
    const dir = tempDir();
    writeLock(dir, {
      pid: process.pid,
      startedAt: '2020-01-01T00:00:00Z',
      hostname: hostname(),
      procStart: '1',
    });
    const warnings: string[] = [];
    const lock = acquireLock(dir, { onWarning: (message) => warnings.push(message) });
    expect(warnings).toHaveLength(1);
    lock.release();
    lock.release();
    expect(readLock(dir)).toBeUndefined();
  });

  /**
   * Writes the lock of a gateway that has ended while its store process (`sleep` for
   * `seconds`) still runs, as a gateway killed with SIGKILL leaves it.
   */
  async function endedGatewayLock(dir: string, seconds: number) {
    const gone = spawn('true');
    await new Promise((resolve) => gone.once('exit', resolve));
    const store = spawn('sleep', [String(seconds)]);
    children.push(store);
    writeLock(dir, {
      pid: gone.pid,
      startedAt: '2020-01-01T00:00:00Z',
      hostname: hostname(),
      // A start no process has: the ended gateway's pid, if a busy machine has given it to a
      // new process already, is still counted as gone (as a real lock's own start tells).
      procStart: '1',
      storePid: store.pid,
      storeProcStart: procStart(store.pid!),
    });
    return { gone, store };
  }

  it('is held while its store process runs, though its gateway has exited, for as long as it waits', async () => {
    const dir = tempDir();
    const { gone, store } = await endedGatewayLock(dir, 60);
    expect(readLock(dir)).toMatchObject({ alive: true });
    const asked = Date.now();
    expect(() => acquireLock(dir, { storeExitWaitMs: 300 })).toThrow(
      new RegExp(
        `is still in use by the store process \\(pid ${store.pid}\\) of hintgate pid ${gone.pid}, which has ended`,
      ),
    );
    // It waited for the store process to exit before giving up.
    expect(Date.now() - asked).toBeGreaterThanOrEqual(300);
    store.kill('SIGKILL');
    await new Promise((resolve) => store.once('exit', resolve));
    const warnings: string[] = [];
    acquireLock(dir, { onWarning: (message) => warnings.push(message) }).release();
    expect(warnings).toEqual([expect.stringContaining(`from hintgate pid ${gone.pid}`)]);
  });

  it('waits for the store process of an ended gateway to exit, then takes over', async () => {
    const dir = tempDir();
    // The store process lives well within the opener's wait (5 s by default).
    const { gone, store } = await endedGatewayLock(dir, 2);
    expect(isRunning(store.pid!)).toBe(true);
    const warnings: string[] = [];
    const lock = acquireLock(dir, { onWarning: (message) => warnings.push(message) });
    // Taken only once the store process had exited (it is a zombie now: this process has
    // not waited for it yet), not under it.
    expect(isRunning(store.pid!)).toBe(false);
    expect(readLock(dir)).toMatchObject({ pid: process.pid });
    expect(warnings).toEqual([expect.stringContaining(`from hintgate pid ${gone.pid}`)]);
    lock.release();
  });

  it('counts a store process whose pid now belongs to a process started later as gone', () => {
    const dir = tempDir();
    writeLock(dir, {
      pid: 999_999_999,
      startedAt: '2020-01-01T00:00:00Z',
      hostname: hostname(),
      storePid: process.pid,
      storeProcStart: '1',
    });
    expect(readLock(dir)).toMatchObject({ alive: false });
  });

  it('counts a lock from another host as held', () => {
    const dir = tempDir();
    writeLock(dir, { pid: 1, startedAt: '2020-01-01T00:00:00Z', hostname: 'elsewhere' });
    expect(() => acquireLock(dir)).toThrow(/in use by hintgate \(pid 1, started .+ on elsewhere\)/);
  });

  it('removes an unreadable lock file left long ago', () => {
    const dir = tempDir();
    writeLock(dir, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, LOCK_FILE), old, old);
    const warnings: string[] = [];
    acquireLock(dir, { onWarning: (message) => warnings.push(message) }).release();
    expect(warnings).toEqual([expect.stringContaining('removed an unreadable lock file')]);
  });

  it('says once that the lock file cannot be updated when its directory is removed, and goes on', () => {
    const dir = tempDir();
    const warnings: string[] = [];
    const lock = acquireLock(dir, { onWarning: (message) => warnings.push(message) });
    rmSync(dir, { recursive: true });
    // The embedded store's process starting and ending, under a gateway whose directory went.
    expect(() => lock.setStoreProcess(process.pid)).not.toThrow();
    expect(() => lock.setStoreProcess(undefined)).not.toThrow();
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^cannot update the lock file ${join(dir, LOCK_FILE)}: ENOENT`),
      ),
    ]);
    // Once it can be written again, it is, and a later failure is said again.
    mkdirSync(dir);
    lock.setAdmin({ url: 'http://127.0.0.1:1', token: 't' });
    expect(readLock(dir)).toMatchObject({ pid: process.pid, adminUrl: 'http://127.0.0.1:1' });
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    rmSync(dir, { recursive: true });
    lock.setAdmin(undefined);
    expect(warnings).toHaveLength(2);
    expect(() => lock.release()).not.toThrow();
  });

  it('fails with STORE_UNAVAILABLE when the directory cannot hold a lock', () => {
    const dir = join(tempDir(), 'missing');
    expect(() => acquireLock(dir)).toThrow(/cannot lock data directory/);
    mkdirSync(dir);
    acquireLock(dir).release();
  });
});
