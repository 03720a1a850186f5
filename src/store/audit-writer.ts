import { HintgateError, isHintgateError } from '../core/errors.js';
import type { Store } from './interface.js';
import type { AuditRecordInput } from './types.js';

/** Options of {@link createAuditWriter}. */
export interface AuditWriterOptions {
  /** Flush when this many records wait (default 200). */
  readonly maxBatch?: number;
  /** Flush at least this often while records wait, in ms (default 250). */
  readonly flushIntervalMs?: number;
  /** Drop new records beyond this many waiting, counting them (default 10,000). */
  readonly maxQueue?: number;
  /** Told when a batch could not be written (it is dropped) or records were dropped. */
  readonly onError?: (error: unknown, lost: number) => void;
  /**
   * Told when the store cannot be reached: the records are kept (up to `maxQueue`) and
   * written again after `retryInMs` (doubling from `retryMinMs` up to `retryMaxMs`).
   */
  readonly onUnavailable?: (error: unknown, waiting: number, retryInMs: number) => void;
  /** The first wait after the store was found unreachable (default 250 ms). */
  readonly retryMinMs?: number;
  /** The longest wait between attempts to reach it (default 30 s). */
  readonly retryMaxMs?: number;
}

/** Takes audit records without waiting and writes them to the store in batches. */
export interface AuditWriter {
  /** Queues a record; returns at once, never throws, never waits for the store. */
  write(record: AuditRecordInput): void;
  /** Writes everything queued so far. */
  flush(): Promise<void>;
  /** Flushes and stops the timer; later writes are dropped. */
  close(): Promise<void>;
  /** Records dropped so far (queue full, closed, or a failed batch). */
  readonly dropped: number;
}

/**
 * An audit writer for the call path: `write` only queues, so a call never waits for the
 * store; a timer (or a full batch) appends what is queued in one `appendAudit`. A store that
 * cannot be reached (`STORE_UNAVAILABLE`: a lost connection, a failover) keeps the records
 * in memory and is tried again with exponential backoff until it answers. Bounded: beyond
 * `maxQueue` waiting records new ones are dropped and counted rather than held without limit.
 */
export function createAuditWriter(
  store: Pick<Store, 'appendAudit'>,
  {
    maxBatch = 200,
    flushIntervalMs = 250,
    maxQueue = 10_000,
    onError,
    onUnavailable,
    retryMinMs = 250,
    retryMaxMs = 30_000,
  }: AuditWriterOptions = {},
): AuditWriter {
  let queue: AuditRecordInput[] = [];
  let dropped = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  /** The wait before the next attempt while the store is unreachable; 0 while it answers. */
  let backoffMs = 0;

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        await store.appendAudit(batch);
        backoffMs = 0;
      } catch (error) {
        // What the store dealt with before it failed (see `appendAudit`) is not tried again:
        // written, or lost and counted here.
        const { written, lost, refusal } = progressOf(error, batch.length);
        if (lost > 0) {
          dropped += lost;
          onError?.(refusal ?? error, lost);
        }
        const rest = batch.slice(written);
        if (rest.length === 0) {
          backoffMs = 0;
          continue;
        }
        if (!closed && isHintgateError(error, 'STORE_UNAVAILABLE')) {
          // Kept, oldest first, and tried again later.
          queue = rest.concat(queue);
          backoffMs = backoffMs === 0 ? retryMinMs : Math.min(retryMaxMs, backoffMs * 2);
          onUnavailable?.(error, queue.length, backoffMs);
          retryLater(backoffMs);
          return;
        }
        dropped += rest.length;
        onError?.(error, rest.length);
      }
    }
  };
  const retryLater = (ms: number): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => void flush(), ms);
    timer.unref();
  };
  const flush = (): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    // Batches are written one after another, never two at once.
    writing = writing.then(drain);
    return writing;
  };
  const schedule = (): void => {
    // While the store is unreachable, the retry timer writes everything in one go.
    if (backoffMs > 0) return;
    if (queue.length >= maxBatch) {
      void flush();
    } else if (timer === undefined) {
      timer = setTimeout(() => void flush(), flushIntervalMs);
      timer.unref();
    }
  };

  return {
    write(record) {
      if (closed || queue.length >= maxQueue) {
        dropped += 1;
        onError?.(new Error(closed ? 'audit writer is closed' : 'audit queue is full'), 1);
        return;
      }
      queue.push(record);
      schedule();
    },
    flush,
    async close() {
      closed = true;
      await flush();
      if (timer !== undefined) clearTimeout(timer);
    },
    get dropped() {
      return dropped;
    },
  };
}

/** How far a failed `appendAudit` got through its batch of `size` records. */
interface Progress {
  /** The batch's first records the store dealt with: written, or lost. */
  readonly written: number;
  /** How many of those were lost (refused by the database even in a degraded form). */
  readonly lost: number;
  /** Why they were. */
  readonly refusal: Error | undefined;
}

/** What a failed `appendAudit` says of its progress in its error's details; none by default. */
function progressOf(error: unknown, size: number): Progress {
  const details = error instanceof HintgateError ? error.details : undefined;
  const count = (value: unknown, most: number): number =>
    typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, most) : 0;
  const written = count(details?.['written'], size);
  const reason = details?.['refusal'];
  return {
    written,
    lost: count(details?.['lost'], written),
    refusal: typeof reason === 'string' ? new Error(reason) : undefined,
  };
}
