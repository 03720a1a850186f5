/**
 * A store still opening, usable at once: every call waits for the open to finish and then
 * runs on the opened store. The gateway starts its servers while the store opens (PGlite
 * compiling its WebAssembly, or creating its database on the first run, PostgreSQL
 * connecting and migrating) instead of after it; what needs the store (pins, toolsets, the
 * audit log) waits for it, and nothing else does.
 */
import type { Store } from './interface.js';
import type { StartReads } from './snapshot.js';
import type { StoreKind, StoreListener } from './types.js';

/** The asynchronous methods of {@link Store}, all forwarded alike. */
type Forwarded = Exclude<
  {
    [K in keyof Store]-?: Store[K] extends (...args: never[]) => Promise<unknown> ? K : never;
  }[keyof Store],
  'withOAuthLock'
>;

/** Options of {@link DeferredStore}. */
export interface DeferredStoreOptions {
  /**
   * The reads a start needs, answered from a snapshot while the store opens and kept for the
   * next one; when the store is open, the snapshot's answers are checked, and listeners get
   * a `resync` if one was wrong.
   */
  readonly startReads?: StartReads;
  /** Told when a snapshot's answer was not the store's. */
  readonly onWarning?: (message: string) => void;
  /**
   * When to check the snapshot's answers against the opened store: `confirm` is called when
   * it is time (the gateway passes a function that waits until it is quiet, since the check
   * starts the embedded database's process). Default: as soon as the store is open.
   */
  readonly confirmWhen?: (confirm: () => void) => void;
}

/**
 * A {@link Store} over one being opened. `kind` and `location` are known before the open
 * ends (the location is the opened store's once it is there). A failed open fails every
 * call with the open's own error; `close` then has nothing to close.
 *
 * Given a function rather than a promise, the store opens lazily: on {@link open}, or with
 * the first call that needs it.
 */
export class DeferredStore implements Store {
  readonly kind: StoreKind;
  /** Resolves with the opened store; rejects with the reason it could not be opened. */
  readonly opened: Promise<Store>;
  #store: Store | undefined;
  #location: string;
  /** Starts a lazy open; undefined once started (or for an open given as a promise). */
  #begin: (() => void) | undefined;
  /** Settles a lazy open never begun, at close. */
  #abandon: (() => void) | undefined;
  readonly #reads: StartReads | undefined;
  /** Each `watch` made, with the opened store's unsubscribe once there is one. */
  #watches = new Set<{ readonly listener: StoreListener; unsubscribe: () => void }>();
  #closed = false;

  constructor(
    kind: StoreKind,
    location: string,
    opening: Promise<Store> | (() => Promise<Store>),
    options: DeferredStoreOptions = {},
  ) {
    this.kind = kind;
    this.#location = location;
    this.#reads = options.startReads;
    const begun =
      typeof opening === 'function'
        ? new Promise<Store>((resolve, reject) => {
            this.#begin = () => {
              this.#begin = undefined;
              opening().then(resolve, reject);
            };
            this.#abandon = () => {
              this.#begin = undefined;
              reject(new Error('the store was closed before it was opened'));
            };
          })
        : opening;
    this.opened = begun.then((store) => {
      this.#store = store;
      this.#location = store.location;
      // Listeners registered while opening are attached to the opened store.
      for (const watch of this.#watches) watch.unsubscribe = store.watch(watch.listener);
      const reads = this.#reads;
      if (reads !== undefined) {
        store.watch((event) => reads.heard(event));
        const confirm = (): void => {
          if (this.#closed) return;
          reads.confirmOn(store).then(
            (same) => {
              // Opened only to check the snapshot: its process is not kept for nothing (the
              // audit log's batches go to the journal, without it).
              if (same) return store.rest?.();
              options.onWarning?.(
                'the start snapshot differed from the store; everything is reread',
              );
              for (const watch of this.#watches) watch.listener({ kind: 'resync' });
            },
            (error: unknown) => {
              if (this.#closed) return;
              options.onWarning?.(
                `the start snapshot could not be checked against the store (${error instanceof Error ? error.message : String(error)}); its answers stand`,
              );
            },
          );
        };
        if (options.confirmWhen === undefined) confirm();
        else options.confirmWhen(confirm);
      }
      return store;
    });
    // The failure is reported by each call that waits, and by whoever awaits `opened`.
    this.opened.catch(() => undefined);
  }

  /** Starts a lazy open now; nothing if the open has begun. */
  open(): void {
    this.#begin?.();
  }

  /** Whether the open has begun (a lazy one: once asked for). */
  get begun(): boolean {
    return this.#begin === undefined;
  }

  get location(): string {
    return this.#location;
  }

  /** Whether the opened store's database has run (none opened yet: false). */
  databaseUsed(): boolean {
    const store = this.#store;
    return store === undefined ? false : (store.databaseUsed?.() ?? true);
  }

  /** The opened store, once it is (undefined while opening or after a failed open). */
  get current(): Store | undefined {
    return this.#store;
  }

  async #call<K extends Forwarded>(name: K, args: Parameters<Store[K]>): Promise<unknown> {
    const key = this.#reads?.keyOf(name, args);
    if (key !== undefined && this.#store === undefined) {
      const early = this.#reads?.early(key);
      if (early !== undefined) return early.value;
    }
    this.#begin?.();
    const store = this.#store ?? (await this.opened);
    const value = await (store[name] as (...a: Parameters<Store[K]>) => Promise<unknown>)(...args);
    if (key !== undefined) this.#reads?.answered(key, value);
    return value;
  }

  listToolsets: Store['listToolsets'] = (...a) => this.#forward('listToolsets', a);
  getToolset: Store['getToolset'] = (...a) => this.#forward('getToolset', a);
  createToolset: Store['createToolset'] = (...a) => this.#forward('createToolset', a);
  updateToolset: Store['updateToolset'] = (...a) => this.#forward('updateToolset', a);
  addMembers: Store['addMembers'] = (...a) => this.#forward('addMembers', a);
  removeMembers: Store['removeMembers'] = (...a) => this.#forward('removeMembers', a);
  setToolsetRules: Store['setToolsetRules'] = (...a) => this.#forward('setToolsetRules', a);
  deleteToolset: Store['deleteToolset'] = (...a) => this.#forward('deleteToolset', a);
  addNotes: Store['addNotes'] = (...a) => this.#forward('addNotes', a);
  editNote: Store['editNote'] = (...a) => this.#forward('editNote', a);
  removeNote: Store['removeNote'] = (...a) => this.#forward('removeNote', a);
  listNotes: Store['listNotes'] = (...a) => this.#forward('listNotes', a);
  setOverride: Store['setOverride'] = (...a) => this.#forward('setOverride', a);
  unsetOverride: Store['unsetOverride'] = (...a) => this.#forward('unsetOverride', a);
  listOverrides: Store['listOverrides'] = (...a) => this.#forward('listOverrides', a);
  getGlobalOverrides: Store['getGlobalOverrides'] = (...a) =>
    this.#forward('getGlobalOverrides', a);
  exportToolset: Store['exportToolset'] = (...a) => this.#forward('exportToolset', a);
  importToolset: Store['importToolset'] = (...a) => this.#forward('importToolset', a);
  getDefaultToolset: Store['getDefaultToolset'] = (...a) => this.#forward('getDefaultToolset', a);
  setDefaultToolset: Store['setDefaultToolset'] = (...a) => this.#forward('setDefaultToolset', a);
  createApproval: Store['createApproval'] = (...a) => this.#forward('createApproval', a);
  getApproval: Store['getApproval'] = (...a) => this.#forward('getApproval', a);
  listApprovals: Store['listApprovals'] = (...a) => this.#forward('listApprovals', a);
  decideApproval: Store['decideApproval'] = (...a) => this.#forward('decideApproval', a);
  expireApprovals: Store['expireApprovals'] = (...a) => this.#forward('expireApprovals', a);
  claimNonce: Store['claimNonce'] = (...a) => this.#forward('claimNonce', a);
  listPins: Store['listPins'] = (...a) => this.#forward('listPins', a);
  savePins: Store['savePins'] = (...a) => this.#forward('savePins', a);
  decidePins: Store['decidePins'] = (...a) => this.#forward('decidePins', a);
  getOAuthCredential: Store['getOAuthCredential'] = (...a) =>
    this.#forward('getOAuthCredential', a);
  listOAuthCredentials: Store['listOAuthCredentials'] = (...a) =>
    this.#forward('listOAuthCredentials', a);
  saveOAuthCredential: Store['saveOAuthCredential'] = (...a) =>
    this.#forward('saveOAuthCredential', a);
  deleteOAuthCredentials: Store['deleteOAuthCredentials'] = (...a) =>
    this.#forward('deleteOAuthCredentials', a);
  acquireOAuthLock: Store['acquireOAuthLock'] = (...a) => this.#forward('acquireOAuthLock', a);
  releaseOAuthLock: Store['releaseOAuthLock'] = (...a) => this.#forward('releaseOAuthLock', a);
  async withOAuthLock<T>(server: string, principal: string, fn: () => Promise<T>): Promise<T> {
    this.#begin?.();
    const store = this.#store ?? (await this.opened);
    return store.withOAuthLock(server, principal, fn);
  }
  appendAudit: Store['appendAudit'] = (...a) => this.#forward('appendAudit', a);
  queryAudit: Store['queryAudit'] = (...a) => this.#forward('queryAudit', a);
  setAdminEndpoint: Store['setAdminEndpoint'] = (...a) => this.#forward('setAdminEndpoint', a);

  /** Each call is a watch of its own (the same listener twice: two), ended by what it returns. */
  watch(listener: StoreListener): () => void {
    const store = this.#store;
    const watch = {
      listener,
      unsubscribe: store === undefined ? () => undefined : store.watch(listener),
    };
    this.#watches.add(watch);
    return () => {
      if (!this.#watches.delete(watch)) return;
      watch.unsubscribe();
    };
  }

  /** Closes the opened store; waits for an open under way first (a failed one: nothing to do). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A lazy open never begun has nothing to close; whoever waits for it is told it ended.
    if (this.#begin !== undefined) {
      this.#abandon?.();
      return;
    }
    const store = await this.opened.catch(() => undefined);
    await store?.close();
  }

  #forward<K extends Forwarded>(name: K, args: Parameters<Store[K]>): ReturnType<Store[K]> {
    return this.#call(name, args) as ReturnType<Store[K]>;
  }
}
