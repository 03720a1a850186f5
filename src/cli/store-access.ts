import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { HintgateError, isHintgateError } from '../core/errors.js';
import type { AuditJournalOptions } from '../store/audit-journal.js';
import type { LockInfo } from '../store/lock.js';
import { RemoteStore } from '../store/remote.js';
import type { Store } from '../store/store.js';
import { openStore, readLock, storeOptionsFrom } from '../store/store.js';
import { loadCliConfig } from './config-file.js';

/** Options of {@link openStoreForCli}. */
export interface CliStoreOptions {
  /** `--store` or the config's `store`: a postgres:// URL; absent for the embedded store. */
  readonly store?: string | undefined;
  /** The data directory (absolute) holding the embedded store. */
  readonly dataDir: string;
  /** Told about things worth a line on stderr. */
  readonly onWarning?: (message: string) => void;
  /**
   * How long to wait for a gateway that holds the data directory but has not recorded its
   * admin endpoint yet (it is starting). Default 10 s.
   */
  readonly waitMs?: number;
  /** The embedded store's audit journal options, when it is opened here. */
  readonly auditJournal?: AuditJournalOptions;
}

const POLL_MS = 50;

function remoteFor(lock: LockInfo, dataDir: string, options: CliStoreOptions): Store {
  return new RemoteStore({
    endpoint: {
      url: lock.adminUrl as string,
      ...(lock.adminToken === undefined ? {} : { token: lock.adminToken }),
    },
    location: `${dataDir} (through the gateway, pid ${lock.pid})`,
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
  });
}

function lockedWithoutEndpoint(dataDir: string, lock: LockInfo): HintgateError {
  return new HintgateError(
    'STORE_LOCKED',
    `data directory ${dataDir} is in use by hintgate pid ${lock.pid} (started ${lock.startedAt}), which offers no admin endpoint to reach the store through (an older hintgate, or another command still running); stop it, or wait for it to finish, and try again`,
    { dataDir, pid: lock.pid },
  );
}

/**
 * Opens the store a CLI command works on, the same one a running gateway uses:
 *
 * - PostgreSQL (`store` is a postgres:// URL): opened directly; running gateways hear of
 *   the changes through LISTEN/NOTIFY.
 * - The embedded store, while a gateway holds the data directory: a {@link RemoteStore}
 *   through that gateway's loopback admin endpoint (found in the lock file), so the
 *   gateway applies the change and tells its clients.
 * - The embedded store, with nothing running: opened directly (and held until `close`).
 *
 * Either way the result is a {@link Store}; close it when done. A directory held by a
 * process without an admin endpoint gives STORE_LOCKED saying so.
 */
export async function openStoreForCli(options: CliStoreOptions): Promise<Store> {
  const target = storeOptionsFrom(options.store, options.dataDir);
  const onWarning = options.onWarning;
  const withWarning = onWarning === undefined ? {} : { onWarning };
  if (target.kind === 'postgres') return openStore({ ...target, ...withWarning });
  const { dataDir } = target;
  const { auditJournal } = options;
  const embedded = {
    ...target,
    ...withWarning,
    ...(auditJournal === undefined ? {} : { auditJournal }),
  };
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (;;) {
    const lock = readLock(dataDir);
    if (lock?.alive === true && lock.adminUrl !== undefined) {
      return remoteFor(lock, dataDir, options);
    }
    if (lock?.alive !== true) {
      try {
        return await openStore(embedded);
      } catch (error) {
        // A gateway took the directory between the check and the open: go through it.
        if (!isHintgateError(error, 'STORE_LOCKED')) throw error;
      }
    }
    if (Date.now() >= deadline) {
      const holder = readLock(dataDir);
      if (holder?.alive === true && holder.adminUrl !== undefined) {
        return remoteFor(holder, dataDir, options);
      }
      if (holder?.alive === true) throw lockedWithoutEndpoint(dataDir, holder);
      return openStore(embedded);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The store options the CLI's store commands take. */
export interface StoreCommandOptions {
  readonly config?: string;
  /** `--store <url>`. */
  readonly store?: string;
  /** `--data-dir <dir>`: the embedded store's directory, instead of the config's. */
  readonly dataDir?: string;
}

/**
 * Opens the store for a command from its options: `--store` or `--data-dir` when given
 * (no config file needed), else the config file's `store` and `dataDir`.
 */
export async function openStoreFromOptions(
  options: StoreCommandOptions,
  onWarning?: (message: string) => void,
): Promise<Store> {
  const warn = onWarning === undefined ? {} : { onWarning };
  if (options.store !== undefined && options.store !== 'pglite') {
    return openStoreForCli({ store: options.store, dataDir: resolve('.hintgate'), ...warn });
  }
  if (options.dataDir !== undefined) {
    // Named by hand, so a typo would create a new, empty store and show nothing: refuse.
    const dataDir = resolve(options.dataDir);
    if (!existsSync(dataDir)) {
      throw new HintgateError(
        'INPUT_INVALID',
        `--data-dir ${dataDir}: no such directory (a gateway creates its data directory when it first starts; check the path, or pass --config)`,
      );
    }
    return openStoreForCli({ dataDir, ...warn });
  }
  const loaded = await loadCliConfig(options.config);
  return openStoreForCli({
    store: options.store ?? loaded.config.store,
    dataDir: loaded.dataDir,
    ...warn,
  });
}

/** Runs `fn` with the command's store and closes it afterwards. */
export async function withStore<T>(
  options: StoreCommandOptions,
  fn: (store: Store) => Promise<T>,
  onWarning?: (message: string) => void,
): Promise<T> {
  const store = await openStoreFromOptions(options, onWarning);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
