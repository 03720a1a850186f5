import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { IdlePglite } from '../../src/store/pglite-idle.js';
import { PgliteWorker } from '../../src/store/pglite-worker.js';
import { preparedDataDir } from './helpers/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The id of the store process of `db` (never 0, which would signal this process's group). */
function processOf(db: PgliteWorker | undefined): number {
  const pid = db?.pid;
  if (pid === undefined || pid <= 0) throw new Error('the store has no process of its own');
  return pid;
}

/** A store kept open a minute when idle, with every process it opened and every warning. */
function watchedStore(dir: string): {
  db: IdlePglite;
  workers: PgliteWorker[];
  warnings: string[];
} {
  const workers: PgliteWorker[] = [];
  const warnings: string[] = [];
  const db = new IdlePglite(
    async () => {
      const worker = await PgliteWorker.open(dir);
      workers.push(worker);
      return worker;
    },
    60_000,
    undefined,
    (message) => warnings.push(message),
  );
  return { db, workers, warnings };
}

describe('IdlePglite', () => {
  it('closes the database when idle and reopens it for the next statement, data intact', async () => {
    const dir = join(await preparedDataDir(), 'store');
    let opens = 0;
    const open = () => {
      opens++;
      return PgliteWorker.open(dir);
    };
    const db = new IdlePglite(open, 300);
    try {
      await db.sql.exec('CREATE TABLE kept (n int)');
      await db.transaction(async (sql) => {
        await sql.query('INSERT INTO kept VALUES ($1)', [1]);
        // Busy past the idle time: a transaction in progress is never closed under.
        await sleep(600);
        await sql.query('INSERT INTO kept VALUES ($1)', [2]);
      });
      expect(db.isOpen).toBe(true);
      await sleep(900);
      expect(db.isOpen).toBe(false);
      expect(await db.sql.query<{ n: number }>('SELECT n FROM kept ORDER BY n')).toEqual([
        { n: 1 },
        { n: 2 },
      ]);
      expect(opens).toBe(2);
    } finally {
      await db.close();
    }
    await expect(db.sql.query('SELECT 1')).rejects.toThrow(/closed/);
  }, 60_000);

  it('keeps the database open while statements keep coming', async () => {
    const dir = join(await preparedDataDir(), 'store');
    let opens = 0;
    const db = new IdlePglite(() => {
      opens++;
      return PgliteWorker.open(dir);
    }, 400);
    try {
      for (let index = 0; index < 8; index++) {
        await db.sql.query('SELECT 1');
        await sleep(100);
      }
      expect(opens).toBe(1);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('replaces a store process that died with a new one for the next statement', async () => {
    const dir = join(await preparedDataDir(), 'store');
    const { db, workers, warnings } = watchedStore(dir);
    try {
      await db.sql.exec('CREATE TABLE survived (n int); INSERT INTO survived VALUES (1)');
      const first = workers[0];
      process.kill(processOf(first), 'SIGKILL');
      await vi.waitFor(() => expect(first?.gone).toBeDefined(), { timeout: 10_000 });
      expect(await db.sql.query('SELECT n FROM survived')).toEqual([{ n: 1 }]);
      expect(workers).toHaveLength(2);
      expect(warnings.join('\n')).toContain('was killed by SIGKILL');
    } finally {
      await db.close();
    }
  }, 60_000);

  it('lets a transaction in progress commit before closing, and refuses later statements', async () => {
    const dir = join(await preparedDataDir(), 'store');
    const { db } = watchedStore(dir);
    let closed = false;
    try {
      await db.sql.exec('CREATE TABLE finished (n int)');
      let started: () => void = () => undefined;
      const inside = new Promise<void>((resolve) => (started = resolve));
      const written = db.transaction(async (sql) => {
        await sql.query('INSERT INTO finished VALUES ($1)', [1]);
        started();
        await sleep(500);
        // Closing was asked meanwhile, and has not closed under this transaction.
        expect(closed).toBe(false);
        await sql.query('INSERT INTO finished VALUES ($1)', [2]);
      });
      await inside;
      const closing = db.close().then(() => (closed = true));
      await expect(db.sql.query('SELECT 1')).rejects.toThrow(/closed/);
      await expect(written).resolves.toBeUndefined();
      await closing;
    } finally {
      await db.close();
    }
    const again = await PgliteWorker.open(dir);
    try {
      expect(await again.sql.query('SELECT n FROM finished ORDER BY n')).toEqual([
        { n: 1 },
        { n: 2 },
      ]);
    } finally {
      await again.close();
    }
  }, 60_000);

  it('reopens after an idle close that failed, reporting the failure', async () => {
    const dir = join(await preparedDataDir(), 'store');
    const { db, workers, warnings } = watchedStore(dir);
    try {
      await db.sql.exec('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
      // Closed while its process is killed: the close fails.
      db.suspend();
      process.kill(processOf(workers[0]), 'SIGKILL');
      expect(await db.sql.query('SELECT n FROM kept')).toEqual([{ n: 7 }]);
      expect(await db.sql.query('SELECT n FROM kept')).toEqual([{ n: 7 }]);
      expect(warnings.join('\n')).toContain('closing the embedded store failed');
    } finally {
      await db.close();
    }
  }, 60_000);
});
