import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdlePglite } from '../../src/store/pglite-idle.js';
import { PgliteWorker } from '../../src/store/pglite-worker.js';
import { preparedDataDir } from './helpers/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
});
