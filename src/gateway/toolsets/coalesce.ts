/**
 * Runs one reload per key at a time: a request while one runs queues exactly one more
 * (which will see everything written before it started); further requests join that one.
 */
export class Coalescer {
  private readonly running = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Promise<void>>();

  /** Runs `fn` for `key` now, or once after the run in flight. */
  run(key: string, fn: () => Promise<void>): Promise<void> {
    const queued = this.queued.get(key);
    if (queued !== undefined) return queued;
    const current = this.running.get(key);
    if (current === undefined) return this.start(key, fn);
    const next = current
      .catch(() => undefined)
      .then(() => {
        this.queued.delete(key);
        return this.start(key, fn);
      });
    this.queued.set(key, next);
    return next;
  }

  /** The run in flight (or queued) for `key`, if any. */
  pending(key: string): Promise<void> | undefined {
    return this.queued.get(key) ?? this.running.get(key);
  }

  private start(key: string, fn: () => Promise<void>): Promise<void> {
    const promise = fn().finally(() => {
      if (this.running.get(key) === promise) this.running.delete(key);
    });
    this.running.set(key, promise);
    return promise;
  }
}
