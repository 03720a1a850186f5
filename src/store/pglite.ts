import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type * as PGliteModule from '@electric-sql/pglite';
import { HintgateError, errorMessage } from '../core/errors.js';
import { acquireLock } from './lock.js';
import { AUDIT_JOURNAL_DIR, AuditJournal } from './audit-journal.js';
import { migrate } from './migrate.js';
import { pgliteDriver } from './pglite-driver.js';
import { bundledTemplate, unpackTemplate } from './pglite-template.js';
import { IdlePglite, PGLITE_IDLE_CLOSE_MS } from './pglite-idle.js';
import type { PgliteProcessHooks } from './pglite-worker.js';
import { PgliteWorker } from './pglite-worker.js';
import { StoreRunner } from './runner.js';
import { SqlStore } from './sql-store.js';
import type { PgliteStoreOptions, Store } from './interface.js';

// Named by a variable: import-x/no-cycle follows a literal specifier and overflows its parser
// on PGlite's generated bundle. Loaded on first open only, like the WebAssembly it brings.
const PGLITE_MODULE = '@electric-sql/pglite';

/** The folder inside the data directory holding the embedded database. */
export const PGLITE_DATABASE_DIR = 'store';

/** The embedded PostgreSQL's shared buffers (its own default is 128 MB). */
export const PGLITE_SHARED_BUFFERS = '16MB';

/** PGlite's class, loaded on first use (tests use it to reach a data directory directly). */
export async function loadPGlite(): Promise<typeof PGliteModule.PGlite> {
  return ((await import(PGLITE_MODULE)) as typeof PGliteModule).PGlite;
}

/**
 * Opens the embedded store in `<dataDir>/store`, holding `<dataDir>/hintgate.lock` while
 * open: a second opener (another process, or this one) gets STORE_LOCKED instead of a
 * corrupted database.
 */
export async function openPgliteStore(options: PgliteStoreOptions): Promise<Store> {
  const dataDir = resolve(options.dataDir);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // The store, the lock and the server logs are its owner's alone.
    chmodSync(dataDir, 0o700);
  } catch (error) {
    throw new HintgateError(
      'STORE_UNAVAILABLE',
      `cannot use data directory ${dataDir}: ${errorMessage(error)}`,
      { location: dataDir },
      { cause: error },
    );
  }
  const lock =
    options.lock ?? acquireLock(dataDir, options.onWarning ? { onWarning: options.onWarning } : {});
  const databaseDir = join(dataDir, PGLITE_DATABASE_DIR);
  let db: PgliteWorker | undefined;
  try {
    // PostgreSQL's default 128 MB of shared buffers would live in the store's memory;
    // hintgate's tables are small, and 16 MB takes about 85 MiB off its resident set.
    // The lock names the store's process too while it runs: a gateway killed outright leaves
    // it writing for a moment, and the directory is not free until it has exited.
    let storePid: number | undefined;
    const hooks: PgliteProcessHooks = {
      onSpawn: (pid) => {
        storePid = pid;
        lock.setStoreProcess(pid);
      },
      onExit: (pid) => {
        if (storePid !== pid) return;
        storePid = undefined;
        lock.setStoreProcess(undefined);
      },
    };
    const open = () =>
      PgliteWorker.open(
        databaseDir,
        [`shared_buffers=${PGLITE_SHARED_BUFFERS}`],
        'process',
        process.execPath,
        hooks,
      );
    // The first database opened runs the migrations (and makes PGlite's files its owner's)
    // before anything else uses it: at the open, or with the first statement when deferred.
    let migrated = false;
    const openMigrated = async (): Promise<PgliteWorker> => {
      const worker = await open();
      if (migrated) return worker;
      try {
        await migrate(pgliteDriver(worker, dataDir, { release: () => undefined }));
        // PGlite creates its files 0666 and directories 0777 whatever the umask (and a
        // worker thread cannot set one): made the owner's alone once it has written them.
        // Files it creates later are unreachable to others through the 0700 directories.
        restrictTree(databaseDir);
      } catch (error) {
        await worker.close().catch(() => undefined);
        throw error;
      }
      migrated = true;
      return worker;
    };
    const deferred = options.deferDatabase === true && hasDatabase(databaseDir);
    // A deferred database that cannot be started fails the statements that need it, as a
    // store that is gone (the gateway serves on; its audit records wait in the journal), and
    // is said once, not at every statement that tries again.
    let failing = false;
    const openDeferred = async (): Promise<PgliteWorker> => {
      try {
        const worker = await openMigrated();
        failing = false;
        return worker;
      } catch (error) {
        const failure =
          error instanceof HintgateError
            ? error
            : new HintgateError(
                'STORE_UNAVAILABLE',
                `cannot start the store's database in ${dataDir}: ${errorMessage(error)}`,
                { location: dataDir },
                { cause: error },
              );
        if (!failing) options.onWarning?.(failure.message);
        failing = true;
        throw failure;
      }
    };
    const created = deferred
      ? 'existing'
      : await createDatabase(databaseDir, options.template ?? bundledTemplate(), options.onWarning);
    db = deferred ? undefined : await openMigrated();
    // Closed when idle, reopened by the next statement (the lock stays held meanwhile).
    const idle = new IdlePglite(
      deferred ? openDeferred : openMigrated,
      options.idleCloseMs ?? PGLITE_IDLE_CLOSE_MS,
      db,
      options.onWarning,
    );
    const driver = pgliteDriver(idle, dataDir, lock);
    // Creating the database ran a second PostgreSQL beside it (about 700 MiB in all): start
    // afresh, at the usual size, with the next statement.
    if (created === 'initdb') idle.suspend();
    const runner = new StoreRunner(driver, options.onWarning);
    const journal = options.auditJournal;
    return new SqlStore(runner, {
      setAdminEndpoint: (endpoint) => lock.setAdmin(endpoint),
      rest: () => idle.suspend(),
      databaseUsed: () => idle.everOpened,
      ...(journal === false
        ? {}
        : {
            auditJournal: (journalRunner) =>
              new AuditJournal(join(dataDir, AUDIT_JOURNAL_DIR), journalRunner, {
                ...journal,
                ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
              }),
          }),
    });
  } catch (error) {
    await db?.close().catch(() => undefined);
    lock.release();
    if (error instanceof HintgateError) throw error;
    throw new HintgateError(
      'STORE_UNAVAILABLE',
      `cannot open the store in ${dataDir}: ${errorMessage(error)}`,
      { location: dataDir },
      { cause: error },
    );
  }
}

/**
 * How the database in `databaseDir` came to be: already there, unpacked from `template`, or
 * to be created by PGlite's `initdb` when it opens (no template, or one that could not be
 * unpacked: said through `onWarning`, since the first run then takes seconds and 700 MiB).
 */
async function createDatabase(
  databaseDir: string,
  template: string,
  onWarning?: (message: string) => void,
): Promise<'existing' | 'template' | 'initdb'> {
  if (hasDatabase(databaseDir)) return 'existing';
  if (!existsSync(template)) return 'initdb';
  try {
    await unpackTemplate(template, databaseDir);
    return 'template';
  } catch (error) {
    onWarning?.(`cannot use the store template ${template}: ${errorMessage(error)}`);
    return 'initdb';
  }
}

/** Whether `databaseDir` holds a database (PostgreSQL's version file is there). */
function hasDatabase(databaseDir: string): boolean {
  return existsSync(join(databaseDir, 'PG_VERSION'));
}

/** Directories 0700 and files 0600 under `root` (walked without recursion; links left alone). */
export function restrictTree(root: string): void {
  const stack = [root];
  for (let path = stack.pop(); path !== undefined; path = stack.pop()) {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
      for (const name of readdirSync(path)) stack.push(join(path, name));
    } else if ((stat.mode & 0o777) !== 0o600) chmodSync(path, 0o600);
  }
}
