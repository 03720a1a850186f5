/**
 * The embedded database, running only while it is used: opened on the first statement,
 * closed (its process ended, every byte it held returned) once nothing has used it for a
 * while, and opened again by the next statement. A gateway reads the store at start (pins,
 * toolsets) and writes it in bursts (audit batches, decisions); between them, an idle
 * PGlite would hold about 130 MiB for nothing. The data directory's lock is held all along:
 * closing the database is not giving it up.
 */
import type { PgliteWorker } from './pglite-worker.js';
import type { Sql } from './sql.js';

/** How long the database stays open with nothing to do, by default. */
export const PGLITE_IDLE_CLOSE_MS = 30_000;

/**
 * How long closing waits for statements and transactions in progress to end: closing under
 * them would roll them back. Beyond it (a statement that never ends) the database is closed.
 */
export const PGLITE_CLOSE_WAIT_MS = 10_000;

/** What the store's driver uses of a database. */
export type PgliteHandle = Pick<PgliteWorker, 'sql' | 'transaction' | 'close'>;

/**
 * A {@link PgliteHandle} over databases opened by `open` when needed and closed after
 * `idleMs` without a statement or transaction in progress. `first` is an already open one
 * (the open that ran the migrations).
 */
export class IdlePglite implements PgliteHandle {
  #db: Promise<PgliteWorker> | undefined;
  #closing: Promise<void> = Promise.resolve();
  #active = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Told when the last statement in progress has ended. */
  #inactive: (() => void)[] = [];
  #everOpened = false;

  constructor(
    private readonly open: () => Promise<PgliteWorker>,
    private readonly idleMs: number,
    first?: PgliteWorker,
    private readonly onWarning: (message: string) => void = () => {},
  ) {
    if (first !== undefined) {
      this.#everOpened = true;
      this.#db = Promise.resolve(first);
      this.#idle();
    }
  }

  /** Whether a database is open (or opening) now. */
  get isOpen(): boolean {
    return this.#db !== undefined;
  }

  /** Whether a database has been opened (or begun opening) by this handle at all. */
  get everOpened(): boolean {
    return this.#everOpened;
  }

  readonly sql: Sql = {
    query: <R>(text: string, params?: readonly unknown[]) =>
      this.#use((db) => db.sql.query<R>(text, params)),
    exec: (text: string) => this.#use((db) => db.sql.exec(text)),
    copyFrom: (table: string, columns: readonly string[], data: string) =>
      this.#use((db) => db.sql.copyFrom(table, columns, data)),
  };

  transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.#use((db) => db.transaction(fn));
  }

  /**
   * Closes the database for good: statements and transactions already in progress end first
   * (within {@link PGLITE_CLOSE_WAIT_MS}), later ones fail.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#whenInactive(PGLITE_CLOSE_WAIT_MS);
    const db = this.#db;
    this.#db = undefined;
    await this.#closing;
    if (db !== undefined) await (await db.catch(() => undefined))?.close();
  }

  async #use<T>(run: (db: PgliteWorker) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('pglite is closed');
    this.#active++;
    clearTimeout(this.#timer);
    try {
      const held = this.#current();
      let db = await held;
      if (db.gone !== undefined) {
        // Its process died (killed, out of memory): ended for good and replaced.
        if (this.#db === held) {
          this.onWarning(`reopening the embedded store: ${db.gone.message}`);
          this.#db = undefined;
          const dead = db;
          this.#closing = this.#closeQuietly(this.#closing.then(() => dead.close()));
        }
        db = await this.#current();
      }
      return await run(db);
    } finally {
      this.#active--;
      if (this.#active === 0) for (const tell of this.#inactive.splice(0)) tell();
      this.#idle();
    }
  }

  /** Resolves once no statement is in progress, or after `timeoutMs`. */
  #whenInactive(timeoutMs: number): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#inactive.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The open database, opening one when there is none. */
  #current(): Promise<PgliteWorker> {
    if (this.#db === undefined) {
      this.#everOpened = true;
      // Reopened after the previous close has let go of the files.
      const opening = this.#closing.then(() => this.open());
      this.#db = opening;
      // A failed open is not kept: the next statement tries again.
      opening.catch(() => {
        if (this.#db === opening) this.#db = undefined;
      });
    }
    return this.#db;
  }

  /** `closing`, with a failure reported rather than kept (which would fail every reopen). */
  #closeQuietly(closing: Promise<void>): Promise<void> {
    return closing.catch((error: unknown) => {
      this.onWarning(
        `closing the embedded store failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  /**
   * Closes the database now if nothing is using it (the next statement opens it again): after
   * the first run, whose database creation left the process several times its usual size.
   */
  suspend(): void {
    if (this.#active > 0 || this.#db === undefined) return;
    clearTimeout(this.#timer);
    const db = this.#db;
    this.#db = undefined;
    this.#closing = this.#closeQuietly(
      db.then(
        (open) => open.close(),
        () => undefined,
      ),
    );
  }

  #idle(): void {
    if (this.#active > 0 || this.#closed || !Number.isFinite(this.idleMs)) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.suspend(), this.idleMs);
    // An idle database keeps no process alive.
    this.#timer.unref();
  }
}
