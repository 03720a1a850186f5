import { randomBytes } from 'node:crypto';
import { HintgateError, errorMessage } from '../core/errors.js';
import { decodeChange, encodeChange } from './changes.js';
import type { Sql, SqlDriver } from './sql.js';
import { errorCode, toStoreError } from './sql.js';
import type { StoreEvent, StoreListener } from './types.js';

// Deadlock detected, serialization failure: the transaction was rolled back and may simply
// be run again (two replicas expiring the same approvals at once, say).
const TRANSIENT = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

async function retryTransient<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= ATTEMPTS || !TRANSIENT.has(errorCode(error) ?? '')) throw error;
    }
  }
}

/** Records a change made in the current transaction, delivered once it commits. */
export type Emit = (event: StoreEvent) => void;

/**
 * Runs reads and transactions on a driver with one error policy (every failure a
 * `HintgateError`, naming where the store is), and owns the change feed: events emitted in
 * a transaction are published with it (PostgreSQL NOTIFY is transactional) and delivered
 * to local listeners after it commits; a rolled-back transaction delivers nothing.
 */
export class StoreRunner {
  /** Tells this store's own notifications apart from other processes'. */
  readonly origin = randomBytes(8).toString('hex');
  readonly #listeners = new Set<{ readonly listener: StoreListener }>();
  #closed = false;

  constructor(
    readonly driver: SqlDriver,
    private readonly onWarning: (message: string) => void = () => {},
  ) {}

  /** True once {@link StoreRunner.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs a read (outside any transaction). */
  async read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    try {
      this.assertOpen();
      return await this.driver.read(fn);
    } catch (error) {
      throw toStoreError(error, this.driver.location);
    }
  }

  /** Runs `fn` in one transaction; its events are published with it and delivered after. */
  async write<T>(fn: (sql: Sql, emit: Emit) => Promise<T>): Promise<T> {
    const events: StoreEvent[] = [];
    let result: T;
    const attempt = (): Promise<T> =>
      this.driver.transaction(async (sql) => {
        events.length = 0;
        const value = await fn(sql, (event) => events.push(event));
        if (events.length > 0 && this.driver.publish !== undefined) {
          const payloads = events.map((event) => encodeChange(this.origin, event));
          await this.driver.publish(sql, payloads);
        }
        return value;
      });
    try {
      this.assertOpen();
      result = await retryTransient(attempt);
    } catch (error) {
      throw toStoreError(error, this.driver.location);
    }
    this.deliver(events);
    return result;
  }

  /** Adds a listener; returns the function removing it. */
  watch(listener: StoreListener): () => void {
    // One entry per watch: the same listener watched twice is two watches, each ended alone.
    const watch = { listener };
    this.#listeners.add(watch);
    return () => {
      this.#listeners.delete(watch);
    };
  }

  /** Delivers a notification from another process (its own are ignored). */
  receive(payload: string): void {
    const change = decodeChange(payload);
    if (change !== undefined && change.origin !== this.origin) this.deliver([change.event]);
  }

  /** Calls every listener with each event; a throwing listener is reported, not fatal. */
  deliver(events: readonly StoreEvent[]): void {
    for (const event of events) {
      for (const { listener } of [...this.#listeners]) {
        try {
          listener(event);
        } catch (error) {
          this.onWarning(`a store change listener failed: ${errorMessage(error)}`);
        }
      }
    }
  }

  /** Throws STORE_UNAVAILABLE once closed. */
  assertOpen(): void {
    if (this.#closed) {
      throw new HintgateError('STORE_UNAVAILABLE', `store at ${this.driver.location} is closed`, {
        location: this.driver.location,
      });
    }
  }

  /** Drops the listeners and closes the driver; safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    await this.driver.close();
  }
}
