/** The outcome of asking for a turn. */
export type Turn =
  | {
      readonly ok: true;
      /** How long to wait before calling (0: at once). */ readonly waitMs: number;
    }
  | { readonly ok: false; /** When a turn would come, from now. */ readonly retryAfterMs: number };

interface Bucket {
  readonly perMinute: number;
  /** May go below zero: calls waiting for a turn have reserved theirs. */
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets, one per tool: `perMinute` calls a minute, refilled continuously, holding at
 * most a minute's worth (so a quiet tool may take a burst of `perMinute` calls at once). A
 * call that finds the bucket empty reserves the next token and waits for it when that comes
 * within `maxWaitMs`; otherwise it is refused with the time until a turn would come.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Asks for a turn for `tool` at `perMinute` calls a minute. */
  take(tool: string, perMinute: number, maxWaitMs: number): Turn {
    const now = this.now();
    let bucket = this.buckets.get(tool);
    if (bucket?.perMinute !== perMinute) {
      bucket = { perMinute, tokens: Math.max(1, perMinute), updatedAt: now };
      this.buckets.set(tool, bucket);
    }
    const capacity = Math.max(1, perMinute);
    const perMs = perMinute / 60_000;
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true, waitMs: 0 };
    }
    const waitMs = Math.ceil((1 - bucket.tokens) / perMs);
    if (waitMs > maxWaitMs) return { ok: false, retryAfterMs: waitMs };
    bucket.tokens -= 1;
    return { ok: true, waitMs };
  }

  /** Returns a reserved turn that was not used (the waiting call was cancelled). */
  giveBack(tool: string): void {
    const bucket = this.buckets.get(tool);
    if (bucket !== undefined) bucket.tokens += 1;
  }
}
