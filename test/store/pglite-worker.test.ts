import { mkdtempSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  PgliteWorker,
  STORE_NICENESS,
  storeProfilingFlags,
} from '../../src/store/pglite-worker.js';
import { isConnectionError, toStoreError } from '../../src/store/sql.js';

/** The id of the store process of `db` (never 0, which would signal this process's group). */
function processOf(db: PgliteWorker | undefined): number {
  const pid = db?.pid;
  if (pid === undefined || pid <= 0) throw new Error('the store has no process of its own');
  return pid;
}

describe('PGlite on its own thread', () => {
  const dirs: string[] = [];
  const open = async (): Promise<PgliteWorker> => {
    const dir = mkdtempSync(join(tmpdir(), 'hintgate-pglite-worker-'));
    dirs.push(dir);
    return PgliteWorker.open(dir);
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('returns rows with dates, numbers and parsed JSON intact', async () => {
    const db = await open();
    const [row] = await db.sql.query<{ at: Date; n: number; doc: unknown }>(
      `SELECT '2026-01-02T03:04:05Z'::timestamptz AS at, 42 AS n, $1::jsonb AS doc`,
      [JSON.stringify({ a: [1, 'two'] })],
    );
    expect(row?.at).toBeInstanceOf(Date);
    expect(row?.at.toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(row?.n).toBe(42);
    expect(row?.doc).toEqual({ a: [1, 'two'] });
    await db.close();
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    const db = await open();
    await db.sql.exec('CREATE TABLE t (v int)');
    await db.transaction(async (sql) => {
      await sql.query('INSERT INTO t VALUES (1)');
    });
    await expect(
      db.transaction(async (sql) => {
        await sql.query('INSERT INTO t VALUES (2)');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await db.sql.query('SELECT v FROM t ORDER BY v')).toEqual([{ v: 1 }]);
    await db.close();
  });

  it('runs concurrent transactions one at a time, losing no write', async () => {
    const db = await open();
    await db.sql.exec('CREATE TABLE c (n int); INSERT INTO c VALUES (0)');
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async (sql) => {
          const [row] = await sql.query<{ n: number }>('SELECT n FROM c');
          await sql.query('UPDATE c SET n = $1', [(row?.n ?? 0) + 1]);
        }),
      ),
    );
    expect(await db.sql.query('SELECT n FROM c')).toEqual([{ n: 20 }]);
    await db.close();
  });

  it('closes while a transaction is left open, rolling it back', async () => {
    const db = await open();
    const dir = dirs.at(-1) ?? '';
    await db.sql.exec('CREATE TABLE l (v int)');
    let entered: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (entered = resolve));
    void db.transaction(async (sql) => {
      await sql.query('INSERT INTO l VALUES (1)');
      entered();
      // Never settles: the caller forgot its transaction.
      await new Promise(() => undefined);
    });
    await started;
    await db.close();
    const again = await PgliteWorker.open(dir);
    expect(await again.sql.query('SELECT v FROM l')).toEqual([]);
    await again.close();
  });

  it("keeps an error's message and SQLSTATE code", async () => {
    const db = await open();
    const error: unknown = await db.sql
      .query('SELECT * FROM missing_table')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: '42P01',
      message: expect.stringContaining('missing_table'),
    });
    await db.close();
  });

  it('fails every call after it closed as a connection error', async () => {
    const db = await open();
    await db.close();
    const error: unknown = await db.sql.query('SELECT 1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isConnectionError(error)).toBe(true);
  });
});

describe('PGlite in a child process that dies', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const newDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'hintgate-pglite-process-'));
    dirs.push(dir);
    return dir;
  };

  it('says it was killed, by which signal, and fails as a lost connection', async () => {
    const db = await PgliteWorker.open(newDir());
    const pid = db.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(processOf(db), 'SIGKILL');
    await vi.waitFor(() => expect(db.gone).toBeDefined(), { timeout: 10_000 });
    const error: unknown = await db.sql.query('SELECT 1').catch((e: unknown) => e);
    expect(String(error)).toContain(
      `pglite is closed: the store process (pid ${pid}) was killed by SIGKILL`,
    );
    expect(toStoreError(error, 'here').code).toBe('STORE_UNAVAILABLE');
    await db.close();
  });

  it('runs its process at a lower priority than this one (background work)', async () => {
    const db = await PgliteWorker.open(newDir());
    expect(getPriority(processOf(db))).toBe(Math.min(19, getPriority() + STORE_NICENESS));
    expect(await db.sql.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await db.close();
  });

  it('outlives SIGINT, SIGTERM and SIGHUP sent to it (its process group is signalled)', async () => {
    const db = await PgliteWorker.open(newDir());
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.kill(processOf(db), signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await db.sql.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await db.close();
  });

  it('fails at once, naming the cause, when its process cannot start', async () => {
    const missing = join(newDir(), 'no-such-node');
    const error: unknown = await PgliteWorker.open(newDir(), [], 'process', missing).catch(
      (e: unknown) => e,
    );
    expect(String(error)).toMatch(/cannot start the store process: .*ENOENT/);
    expect(isConnectionError(error)).toBe(true);
  });
});

describe('the store process of a gateway run with --cpu-prof', () => {
  it('gets its profiling options, a value given apart kept with its option', () => {
    expect(
      storeProfilingFlags([
        '--cpu-prof',
        '--cpu-prof-dir',
        '/tmp/profiles',
        '--max-old-space-size=200',
        '--cpu-prof-interval=500',
      ]),
    ).toEqual(['--cpu-prof', '--cpu-prof-dir', '/tmp/profiles', '--cpu-prof-interval=500']);
  });

  it("does not get the gateway's profile name, which would overwrite the gateway's profile", () => {
    expect(
      storeProfilingFlags(['--cpu-prof', '--cpu-prof-name', 'gw.cpuprofile', '--cpu-prof-dir=/p']),
    ).toEqual(['--cpu-prof', '--cpu-prof-dir=/p']);
    expect(storeProfilingFlags(['--cpu-prof-name=gw.cpuprofile', '--inspect'])).toEqual([]);
  });
});
