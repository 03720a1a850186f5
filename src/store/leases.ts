import { randomBytes } from 'node:crypto';

/** How long a lease is held at most when its holder never releases it (a process gone). */
export const DEFAULT_LEASE_MS = 60_000;

interface Lease {
  readonly key: string;
  readonly timer: NodeJS.Timeout;
}

/**
 * Named locks held by lease, for the one process holding an embedded store: its own callers
 * and the CLI's, which reach it through the admin endpoint (`acquireOAuthLock`,
 * `releaseOAuthLock`). One holder per name at a time, the others waiting in order; a lease
 * not released within its time is dropped, so a holder that died cannot block the rest.
 */
export class LeaseLocks {
  readonly #held = new Map<string, string>();
  readonly #leases = new Map<string, Lease>();
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(private readonly leaseMs = DEFAULT_LEASE_MS) {}

  /** Waits until `key` is free, then holds it; resolves with the lease to release. */
  async acquire(key: string): Promise<string> {
    while (this.#held.has(key)) {
      await new Promise<void>((resolve) => {
        const queue = this.#waiting.get(key) ?? [];
        queue.push(resolve);
        this.#waiting.set(key, queue);
      });
    }
    const lease = randomBytes(12).toString('base64url');
    const timer = setTimeout(() => this.release(lease), this.leaseMs);
    timer.unref();
    this.#held.set(key, lease);
    this.#leases.set(lease, { key, timer });
    return lease;
  }

  /** Releases a lease (an unknown or expired one: nothing happens); the next waiter goes on. */
  release(lease: string): void {
    const held = this.#leases.get(lease);
    if (held === undefined) return;
    clearTimeout(held.timer);
    this.#leases.delete(lease);
    if (this.#held.get(held.key) === lease) this.#held.delete(held.key);
    const queue = this.#waiting.get(held.key);
    const next = queue?.shift();
    if (queue?.length === 0) this.#waiting.delete(held.key);
    next?.();
  }

  /** Runs `fn` while holding `key`. */
  async with<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const lease = await this.acquire(key);
    try {
      return await fn();
    } finally {
      this.release(lease);
    }
  }
}
