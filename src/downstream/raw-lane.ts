import { sharedObjectJson } from '../core/util/json-text.js';
import { DownstreamError } from '../mcp/rpc-errors.js';
import type { JsonObject, RpcMessage } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/** Where raw requests are written: one serialized message per call. */
export interface RawSink {
  sendRaw(line: string): void;
}

/** Options of one raw request. */
export interface RawRequestOptions {
  /** Fail with DOWNSTREAM_TIMEOUT after this long without an answer. */
  readonly timeoutMs: number;
  /** Aborting sends `notifications/cancelled` downstream and rejects with the abort reason. */
  readonly signal?: AbortSignal | undefined;
  /** Progress notifications for this request (the params, without the token). */
  readonly onProgress?: ((progress: JsonObject) => void) | undefined;
  /** A progress notification restarts the timeout. */
  readonly resetTimeoutOnProgress?: boolean | undefined;
  /** `_meta` keys every request carries (the 2026-07-28 per-request envelope). */
  readonly envelope?: JsonObject | undefined;
  /**
   * The request's whole `_meta` already serialized (what {@link requestMeta} makes of the
   * params' own and `envelope`): used as it is when the params carry no `_meta` and no
   * progress is wanted, so that a session's calls do not serialize the same envelope each.
   */
  readonly metaJson?: string | undefined;
}

interface Pending {
  readonly method: string;
  readonly resolve: (result: JsonObject) => void;
  readonly reject: (error: Error) => void;
  readonly options: RawRequestOptions;
  /** When it times out (`performance.now()` ms). */
  deadline: number;
  readonly onAbort: (() => void) | undefined;
}

/**
 * A timer may fire this much before its time by the clock (Node starts it from the loop's
 * cached time): a request this close to its deadline when the sweep runs has timed out.
 */
const TIMER_SLACK_MS = 2;

/** Prefix of the ids (and progress tokens) the lane uses; the SDK's own ids are numbers. */
const ID_PREFIX = 'hg';

/**
 * The fast lane to a downstream server: requests written as raw JSON-RPC on the same
 * connection the SDK client uses, with ids and progress tokens of its own (strings, so
 * they never collide with the SDK's numeric ids), answers matched back without the SDK's
 * request machinery. Used for tools/call, the hot path.
 */
export class RawLane {
  private next = 0;
  private readonly pending = new Map<string, Pending>();
  /**
   * One timer for every request's timeout, set for the earliest deadline when it was set:
   * a request costs no timer of its own to start and stop, and the sweep it wakes sets the
   * next (see {@link sweep}).
   */
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly server: string,
    private readonly sink: RawSink,
  ) {}

  /** Requests in flight. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Sends `method` with `params` and resolves with the result object, or rejects with a
   * {@link DownstreamError} (the server's own error kept in `rpc`).
   */
  request(method: string, params: JsonObject, options: RawRequestOptions): Promise<JsonObject> {
    const id = `${ID_PREFIX}${++this.next}`;
    const signal = options.signal;
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    const pending = this.pend(id, method, options);
    // Written after the promise is made, from this frame: a variable the executor's closures
    // could see would live in their context, kept alive with the entry until the answer, and
    // a request's text kept that long was the largest part of what every young-generation
    // collection copied (see `docs/architecture.md`, "What a call keeps alive").
    try {
      this.sink.sendRaw(
        `{"jsonrpc":"2.0","id":"${id}","method":${JSON.stringify(method)},"params":${paramsText(params, options, id)}}`,
      );
    } catch (error) {
      this.settle(id)?.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return pending;
  }

  /** Registers request `id` (its timeout, its abort listener) and returns its answer. */
  private pend(id: string, method: string, options: RawRequestOptions): Promise<JsonObject> {
    const signal = options.signal;
    return new Promise<JsonObject>((resolve, reject) => {
      const onAbort =
        signal === undefined
          ? undefined
          : () => {
              this.cancel(id, 'cancelled by the client', options);
              reject(abortReason(signal));
            };
      const deadline = performance.now() + options.timeoutMs;
      const entry: Pending = { method, resolve, reject, options, deadline, onAbort };
      this.pending.set(id, entry);
      if (deadline < this.timerAt) this.armTimer(deadline);
      // Without `once`: `settle` removes it either way, and options cost each call a check.
      if (onAbort !== undefined) signal?.addEventListener('abort', onAbort);
    });
  }

  /** Claims responses and progress notifications that belong to the lane. */
  readonly accept = (message: RpcMessage): boolean => {
    if ('method' in message) {
      if (message.method !== 'notifications/progress') return false;
      const params = message.params;
      const token = params?.['progressToken'];
      if (typeof token !== 'string' || !token.startsWith(ID_PREFIX)) return false;
      const entry = this.pending.get(token);
      if (entry === undefined) return false;
      // A later deadline needs no timer: the sweep that finds it early sets the next one.
      if (entry.options.resetTimeoutOnProgress === true)
        entry.deadline = performance.now() + entry.options.timeoutMs;
      if (entry.options.onProgress !== undefined && params !== undefined) {
        const { progressToken: _token, ...progress } = params;
        entry.options.onProgress(progress);
      }
      return true;
    }
    const id = message.id;
    if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return false;
    const entry = this.settle(id);
    if (entry === undefined) return true; // late answer to a cancelled or timed-out request
    if (message.error !== undefined) {
      entry.reject(
        new DownstreamError(
          'DOWNSTREAM_PROTOCOL',
          this.server,
          `${this.server}: ${message.error.message}`,
          message.error,
        ),
      );
    } else if (isJsonObject(message.result)) {
      entry.resolve(message.result);
    } else {
      entry.reject(
        new DownstreamError(
          'DOWNSTREAM_PROTOCOL',
          this.server,
          `server "${this.server}" answered ${entry.method} with a result that is not an object`,
        ),
      );
    }
    return true;
  };

  /** Rejects every request in flight (the connection is gone). */
  failAll(error: DownstreamError): void {
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private armTimer(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.sweep, Math.max(1, Math.ceil(at - performance.now())));
    // The connection's pipes keep the process alive while a request waits, not this timer.
    this.timer.unref();
  }

  /** Times out every request whose deadline has come, and sets the timer for the next one. */
  private readonly sweep = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let earliest = Infinity;
    for (const [id, entry] of this.pending) {
      if (entry.deadline - now > TIMER_SLACK_MS) {
        earliest = Math.min(earliest, entry.deadline);
        continue;
      }
      const { options } = entry;
      this.cancel(id, `timed out after ${options.timeoutMs} ms`, options);
      entry.reject(
        new DownstreamError(
          'DOWNSTREAM_TIMEOUT',
          this.server,
          `server "${this.server}" did not answer ${entry.method} within ${options.timeoutMs} ms`,
        ),
      );
    }
    if (earliest !== Infinity) this.armTimer(earliest);
  };

  private cancel(id: string, reason: string, options: RawRequestOptions): void {
    if (this.settle(id) === undefined) return;
    const params: JsonObject = { requestId: id, reason };
    if (options.envelope !== undefined) params['_meta'] = options.envelope;
    try {
      this.sink.sendRaw(
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params }),
      );
    } catch {
      // The connection is gone; nothing to cancel.
    }
  }

  private settle(id: string): Pending | undefined {
    const entry = this.pending.get(id);
    if (entry === undefined) return undefined;
    this.pending.delete(id);
    if (entry.onAbort !== undefined)
      entry.options.signal?.removeEventListener('abort', entry.onAbort);
    return entry;
  }
}

/**
 * The params as JSON, serialized at once: as they are unless `_meta` changes, and with
 * `metaJson` spliced in as their `_meta` when it applies. The arguments' text is shared
 * (`sharedObjectJson`): the one made for the cache's key, when the call just had one made.
 */
function paramsText(params: JsonObject, options: RawRequestOptions, id: string): string {
  const { metaJson } = options;
  if (metaJson !== undefined && options.onProgress === undefined && !('_meta' in params)) {
    const json = sharedObjectJson(params);
    return json === '{}' ? `{"_meta":${metaJson}}` : `${json.slice(0, -1)},"_meta":${metaJson}}`;
  }
  const meta = requestMeta(
    params['_meta'],
    options.envelope,
    options.onProgress === undefined ? undefined : id,
  );
  if (meta !== undefined) return sharedObjectJson({ ...params, _meta: meta });
  if (!('_meta' in params)) return sharedObjectJson(params);
  const body = { ...params };
  delete body['_meta'];
  return sharedObjectJson(body);
}

/**
 * The request's `_meta` as the server gets it: the caller's members without its progress
 * token, the envelope's over them, and `progressToken` (the lane's own) when progress is
 * wanted; undefined when that leaves nothing (the common call: nothing allocated).
 */
export function requestMeta(
  meta: unknown,
  envelope: JsonObject | undefined,
  progressToken?: string,
): JsonObject | undefined {
  const own = isJsonObject(meta) ? meta : undefined;
  if (own === undefined && envelope === undefined && progressToken === undefined) return undefined;
  const base: JsonObject = {};
  let members = 0;
  if (own !== undefined) {
    for (const key in own) {
      if (key === 'progressToken') continue;
      base[key] = own[key];
      members += 1;
    }
  }
  if (envelope !== undefined) {
    for (const key in envelope) {
      base[key] = envelope[key];
      members += 1;
    }
  }
  if (progressToken !== undefined) {
    base['progressToken'] = progressToken;
    members += 1;
  }
  return members === 0 ? undefined : base;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new Error(typeof reason === 'string' ? reason : 'cancelled');
}
