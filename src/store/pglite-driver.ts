/**
 * The store's SQL over PGlite: the store process's (a {@link PgliteWorker}, or one closed when
 * idle), or a PGlite in this thread (the template made at build time, tests).
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { HeldLock } from './lock.js';
import type { PgliteHandle } from './pglite-idle.js';
import { IdlePglite } from './pglite-idle.js';
import { PGLITE_COPY_SOURCE, PgliteWorker } from './pglite-worker.js';
import type { Sql, SqlDriver } from './sql.js';
import { copyStatement } from './sql.js';

function sqlOf(db: PGlite | Transaction): Sql {
  return {
    async query<R>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await db.query<R>(text, [...params]);
      return result.rows;
    },
    async exec(text: string): Promise<void> {
      await db.exec(text);
    },
    async copyFrom(table: string, columns: readonly string[], data: string): Promise<void> {
      // PGlite reads COPY's input from the blob given with the statement.
      await db.query(copyStatement(table, columns, PGLITE_COPY_SOURCE), [], {
        blob: new Blob([data]),
      });
    },
  };
}

/** PGlite in this thread, as a {@link PgliteHandle}. */
function inThisThread(db: PGlite): PgliteHandle {
  return {
    sql: sqlOf(db),
    // PGlite runs one transaction at a time; concurrent calls queue behind each other.
    transaction: (fn) => db.transaction((tx) => fn(sqlOf(tx))),
    close: () => db.close(),
  };
}

/**
 * The driver over an open PGlite: the store's own in its process or worker thread, or one in
 * this thread (the template's migrations at build time, tests running them directly).
 */
export function pgliteDriver(
  db: PGlite | PgliteWorker | IdlePglite,
  location: string,
  lock: Pick<HeldLock, 'release'>,
): SqlDriver {
  const handle: PgliteHandle =
    db instanceof PgliteWorker || db instanceof IdlePglite ? db : inThisThread(db);
  return {
    kind: 'pglite',
    location,
    read: (fn) => fn(handle.sql),
    transaction: (fn) => handle.transaction(fn),
    async close() {
      try {
        await handle.close();
      } finally {
        lock.release();
      }
    },
  };
}
