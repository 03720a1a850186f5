/**
 * The store reached through a running gateway. PGlite is one process's: while a gateway
 * holds the data directory, the CLI talks to that gateway's loopback admin endpoint instead
 * of opening the directory a second time. {@link RemoteStore} is the same {@link Store}
 * interface over that endpoint, so CLI code does not care which one it has.
 *
 * The wire: `POST <url>/store` with `{ "method": "<name>", "args": [...] }` (the name from
 * {@link REMOTE_STORE_METHODS}, nothing else), answered `{ "result": ... }` or `{ "error":
 * { code, message, details } }`; `GET <url>/events` streams store events (server-sent
 * events, one JSON {@link StoreEvent} per `data:` line). Both need `Authorization: Bearer
 * <token>`, the token the gateway wrote into the lock file.
 */
import type { HintgateErrorCode } from '../core/errors.js';
import { isHintgateErrorCode } from '../core/errors.js';
import { HintgateError, errorMessage } from '../core/errors.js';
import type { Store } from './interface.js';
import type { AdminEndpoint, StoreEvent, StoreListener } from './types.js';

/** The store methods the admin endpoint serves: data only (not watch, close, setAdminEndpoint). */
export const REMOTE_STORE_METHODS = [
  'listToolsets',
  'getToolset',
  'createToolset',
  'updateToolset',
  'addMembers',
  'removeMembers',
  'setToolsetRules',
  'deleteToolset',
  'addNotes',
  'editNote',
  'removeNote',
  'listNotes',
  'setOverride',
  'unsetOverride',
  'listOverrides',
  'getGlobalOverrides',
  'exportToolset',
  'importToolset',
  'getDefaultToolset',
  'setDefaultToolset',
  'createApproval',
  'getApproval',
  'listApprovals',
  'decideApproval',
  'expireApprovals',
  'claimNonce',
  'listPins',
  'savePins',
  'decidePins',
  'appendAudit',
  'queryAudit',
  'getOAuthCredential',
  'listOAuthCredentials',
  'saveOAuthCredential',
  'deleteOAuthCredentials',
  'acquireOAuthLock',
  'releaseOAuthLock',
] as const satisfies readonly (keyof Store)[];

/** One of {@link REMOTE_STORE_METHODS}. */
export type RemoteStoreMethod = (typeof REMOTE_STORE_METHODS)[number];

const METHOD_SET: ReadonlySet<string> = new Set(REMOTE_STORE_METHODS);

/** True when `name` is a method the admin endpoint serves. */
export function isRemoteStoreMethod(name: unknown): name is RemoteStoreMethod {
  return typeof name === 'string' && METHOD_SET.has(name);
}

/** The longest argument list of any served method. */
export const REMOTE_MAX_ARGS = 4;

/** An error as it travels back from the admin endpoint. */
export interface RemoteError {
  readonly code: HintgateErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What the admin endpoint sends for a thrown error (a non-hintgate one is not leaked). */
export function toRemoteError(error: unknown): RemoteError {
  if (error instanceof HintgateError) {
    return error.details === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, details: error.details };
  }
  return { code: 'INTERNAL', message: `the gateway failed: ${errorMessage(error)}` };
}

/** The {@link HintgateError} for an error the admin endpoint sent. */
export function fromRemoteError(value: unknown): HintgateError {
  const error = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const code = isHintgateErrorCode(error['code']);
  const details = error['details'];
  return new HintgateError(
    code ? (error['code'] as HintgateErrorCode) : 'INTERNAL',
    typeof error['message'] === 'string'
      ? error['message']
      : 'the gateway sent an unreadable error',
    typeof details === 'object' && details !== null && !Array.isArray(details)
      ? (details as Record<string, unknown>)
      : undefined,
  );
}

/** Options of {@link RemoteStore}. */
export interface RemoteStoreOptions {
  /** The admin endpoint (from the lock file). */
  readonly endpoint: AdminEndpoint;
  /** Said in messages: where the store is, and through whom. */
  readonly location: string;
  /** How long one call may take (default 60 s). */
  readonly timeoutMs?: number;
  /** Told when the event stream breaks and is reopened. */
  readonly onWarning?: (message: string) => void;
}

type Call<M extends RemoteStoreMethod> = Store[M];

const RECONNECT_MS = 500;

/**
 * The {@link Store} interface over a gateway's admin endpoint. Errors come back as the
 * `HintgateError` the gateway's store threw (same code, message and details); an endpoint
 * that cannot be reached is `STORE_UNAVAILABLE`, naming it. `watch` opens the event stream
 * on the first listener; when it breaks it is reopened and listeners get a `resync`.
 */
export class RemoteStore implements Store {
  readonly kind = 'pglite' as const;
  readonly location: string;
  readonly #endpoint: AdminEndpoint;
  readonly #timeoutMs: number;
  readonly #onWarning: (message: string) => void;
  readonly #listeners = new Set<{ readonly listener: StoreListener }>();
  #events: AbortController | undefined;
  #closed = false;

  constructor(options: RemoteStoreOptions) {
    this.#endpoint = { ...options.endpoint, url: options.endpoint.url.replace(/\/+$/, '') };
    this.location = options.location;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#onWarning = options.onWarning ?? (() => undefined);
  }

  /** The admin endpoint this store goes through (it serves more than the store). */
  get endpoint(): AdminEndpoint {
    return this.#endpoint;
  }

  readonly listToolsets: Call<'listToolsets'> = (...args) => this.#call('listToolsets', args);
  readonly getToolset: Call<'getToolset'> = (...args) => this.#call('getToolset', args);
  readonly createToolset: Call<'createToolset'> = (...args) => this.#call('createToolset', args);
  readonly updateToolset: Call<'updateToolset'> = (...args) => this.#call('updateToolset', args);
  readonly addMembers: Call<'addMembers'> = (...args) => this.#call('addMembers', args);
  readonly removeMembers: Call<'removeMembers'> = (...args) => this.#call('removeMembers', args);
  readonly setToolsetRules: Call<'setToolsetRules'> = (...args) =>
    this.#call('setToolsetRules', args);
  readonly deleteToolset: Call<'deleteToolset'> = (...args) => this.#call('deleteToolset', args);
  readonly addNotes: Call<'addNotes'> = (...args) => this.#call('addNotes', args);
  readonly editNote: Call<'editNote'> = (...args) => this.#call('editNote', args);
  readonly removeNote: Call<'removeNote'> = (...args) => this.#call('removeNote', args);
  readonly listNotes: Call<'listNotes'> = (...args) => this.#call('listNotes', args);
  readonly setOverride: Call<'setOverride'> = (...args) => this.#call('setOverride', args);
  readonly unsetOverride: Call<'unsetOverride'> = (...args) => this.#call('unsetOverride', args);
  readonly listOverrides: Call<'listOverrides'> = (...args) => this.#call('listOverrides', args);
  readonly getGlobalOverrides: Call<'getGlobalOverrides'> = (...args) =>
    this.#call('getGlobalOverrides', args);
  readonly exportToolset: Call<'exportToolset'> = (...args) => this.#call('exportToolset', args);
  readonly importToolset: Call<'importToolset'> = (...args) => this.#call('importToolset', args);
  readonly getDefaultToolset: Call<'getDefaultToolset'> = (...args) =>
    this.#call('getDefaultToolset', args);
  readonly setDefaultToolset: Call<'setDefaultToolset'> = (...args) =>
    this.#call('setDefaultToolset', args);
  readonly createApproval: Call<'createApproval'> = (...args) => this.#call('createApproval', args);
  readonly getApproval: Call<'getApproval'> = (...args) => this.#call('getApproval', args);
  readonly listApprovals: Call<'listApprovals'> = (...args) => this.#call('listApprovals', args);
  readonly decideApproval: Call<'decideApproval'> = (...args) => this.#call('decideApproval', args);
  readonly expireApprovals: Call<'expireApprovals'> = (...args) =>
    this.#call('expireApprovals', args);
  readonly listPins: Call<'listPins'> = (...args) => this.#call('listPins', args);
  readonly savePins: Call<'savePins'> = (...args) => this.#call('savePins', args);
  readonly decidePins: Call<'decidePins'> = (...args) => this.#call('decidePins', args);
  readonly claimNonce: Call<'claimNonce'> = (...args) => this.#call('claimNonce', args);
  readonly appendAudit: Call<'appendAudit'> = (...args) => this.#call('appendAudit', args);
  readonly queryAudit: Call<'queryAudit'> = (...args) => this.#call('queryAudit', args);
  readonly acquireOAuthLock: Call<'acquireOAuthLock'> = (...args) =>
    this.#call('acquireOAuthLock', args);
  readonly releaseOAuthLock: Call<'releaseOAuthLock'> = (...args) =>
    this.#call('releaseOAuthLock', args);

  /** Holds the login's lease in the gateway holding the store while `fn` runs. */
  async withOAuthLock<T>(server: string, principal: string, fn: () => Promise<T>): Promise<T> {
    const lease = await this.acquireOAuthLock(server, principal);
    try {
      return await fn();
    } finally {
      await this.releaseOAuthLock(lease).catch(() => undefined);
    }
  }

  readonly getOAuthCredential: Call<'getOAuthCredential'> = (...args) =>
    this.#call('getOAuthCredential', args);
  readonly listOAuthCredentials: Call<'listOAuthCredentials'> = (...args) =>
    this.#call('listOAuthCredentials', args);
  readonly saveOAuthCredential: Call<'saveOAuthCredential'> = (...args) =>
    this.#call('saveOAuthCredential', args);
  readonly deleteOAuthCredentials: Call<'deleteOAuthCredentials'> = (...args) =>
    this.#call('deleteOAuthCredentials', args);

  watch(listener: StoreListener): () => void {
    // One entry per watch: the same listener watched twice is two watches, each ended alone.
    const watch = { listener };
    this.#listeners.add(watch);
    if (this.#events === undefined && !this.#closed) this.#openEvents();
    return () => {
      if (!this.#listeners.delete(watch)) return;
      if (this.#listeners.size === 0) {
        this.#events?.abort();
        this.#events = undefined;
      }
    };
  }

  setAdminEndpoint(): Promise<void> {
    return Promise.reject(
      new HintgateError(
        'FORBIDDEN',
        `the store at ${this.location} is held by a running gateway; only that gateway records its admin endpoint`,
      ),
    );
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    this.#events?.abort();
    this.#events = undefined;
    return Promise.resolve();
  }

  #headers(): Record<string, string> {
    return this.#endpoint.token === undefined
      ? {}
      : { authorization: `Bearer ${this.#endpoint.token}` };
  }

  #unreachable(error: unknown): HintgateError {
    return new HintgateError(
      'STORE_UNAVAILABLE',
      `cannot reach the store at ${this.location} through the gateway's admin endpoint ${this.#endpoint.url}: ${errorMessage(error)}`,
      { location: this.location, adminUrl: this.#endpoint.url },
      { cause: error },
    );
  }

  async #call<T>(method: RemoteStoreMethod, args: readonly unknown[]): Promise<T> {
    if (this.#closed) {
      throw new HintgateError('STORE_UNAVAILABLE', `store at ${this.location} is closed`, {
        location: this.location,
      });
    }
    // Trailing undefined arguments are dropped; JSON would turn them into null.
    let count = args.length;
    while (count > 0 && args[count - 1] === undefined) count--;
    let response: Response;
    try {
      response = await fetch(`${this.#endpoint.url}/store`, {
        method: 'POST',
        headers: { ...this.#headers(), 'content-type': 'application/json' },
        body: JSON.stringify({ method, args: args.slice(0, count) }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw this.#unreachable(error);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw this.#unreachable(
        new Error(`HTTP ${response.status}, unreadable body`, { cause: error }),
      );
    }
    const answer = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    if ('error' in answer) throw fromRemoteError(answer['error']);
    if (!response.ok) throw this.#unreachable(new Error(`HTTP ${response.status}`));
    return answer['result'] as T;
  }

  #openEvents(): void {
    const controller = new AbortController();
    this.#events = controller;
    const run = async (): Promise<void> => {
      let first = true;
      while (!controller.signal.aborted) {
        try {
          const response = await fetch(`${this.#endpoint.url}/events`, {
            headers: { ...this.#headers(), accept: 'text/event-stream' },
            signal: controller.signal,
          });
          if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
          // Events may have been missed while the stream was down.
          if (!first) this.#deliver({ kind: 'resync' });
          first = false;
          await this.#read(response.body, controller.signal);
        } catch (error) {
          if (controller.signal.aborted) return;
          this.#onWarning(`admin event stream: ${errorMessage(error)}; reopening`);
        }
        first = false;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS).unref());
      }
    };
    void run();
  }

  async #read(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      if (signal.aborted) return;
      buffered += decoder.decode(chunk, { stream: true });
      let end = buffered.indexOf('\n');
      while (end >= 0) {
        const line = buffered.slice(0, end).replace(/\r$/, '');
        buffered = buffered.slice(end + 1);
        if (line.startsWith('data:')) {
          const event = parseEvent(line.slice(5).trim());
          if (event !== undefined) this.#deliver(event);
        }
        end = buffered.indexOf('\n');
      }
    }
  }

  #deliver(event: StoreEvent): void {
    for (const { listener } of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#onWarning(`a store change listener failed: ${errorMessage(error)}`);
      }
    }
  }
}

function parseEvent(text: string): StoreEvent | undefined {
  try {
    const value = JSON.parse(text) as { kind?: unknown } | null;
    if (typeof value?.kind !== 'string') return undefined;
    return value as StoreEvent;
  } catch {
    return undefined;
  }
}
