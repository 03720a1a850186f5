import { LRUCache } from 'lru-cache';
import { rememberJson } from '../core/util/json-text.js';
import type { CallToolResult } from './pipeline/context.js';

/** Bounds of a {@link ResultCache}. */
export interface ResultCacheOptions {
  readonly maxEntries: number;
  /** Bytes of results as JSON (counted in UTF-16 code units, about bytes for ASCII). */
  readonly maxBytes: number;
  /** A larger result is not kept. */
  readonly maxEntryBytes: number;
}

/** What the cache has done so far, for `/api/stats`. */
export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly stores: number;
  /** Writes that invalidated a server's entries. */
  readonly invalidations: number;
  readonly entries: number;
  readonly bytes: number;
}

/** Results whose JSON is at least this long keep it for the answer (see `rememberJson`). */
const REMEMBERED_JSON_BYTES = 1024;

interface Cached {
  /** The result as JSON: a hit gets its own copy, so nothing cached can be changed. */
  readonly json: string;
  readonly server: string;
  /** The server's generation when the call started; a later write makes it stale. */
  readonly generation: number;
  /** When it was kept (epoch ms), for the age a hit reports. */
  readonly storedAt: number;
}

/** A cached result, a fresh copy, and when it was kept. */
export interface CacheHit {
  readonly result: CallToolResult;
  readonly storedAt: number;
}

/**
 * Tool results kept for reuse, bounded in entries and in bytes (least recently used go
 * first), each with its own time to live. Results are kept as JSON text and every hit is
 * parsed into a fresh object, so a cached result can never be changed by whoever uses it.
 *
 * Invalidation is per server and O(1): each server has a generation, bumped by every call
 * that may change it; an entry stored under an older generation is stale and never served
 * (it is dropped when found). A read that started before a write and finished after it is
 * stored under its start's generation, so it is stale too.
 */
export class ResultCache {
  private readonly lru: LRUCache<string, Cached>;
  private readonly generations = new Map<string, number>();
  private readonly activities = new Map<string, number>();
  private counts = { hits: 0, misses: 0, stores: 0, invalidations: 0 };

  constructor(options: ResultCacheOptions) {
    this.lru = new LRUCache<string, Cached>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      maxEntrySize: options.maxEntryBytes,
      sizeCalculation: (value, key) => value.json.length + key.length,
    });
  }

  /** A fresh copy of the cached result for `key` and when it was kept, or undefined (a miss). */
  get(key: string): CacheHit | undefined {
    const cached = this.lru.get(key);
    if (cached !== undefined && cached.generation === this.generation(cached.server)) {
      this.counts.hits += 1;
      return { result: JSON.parse(cached.json) as CallToolResult, storedAt: cached.storedAt };
    }
    if (cached !== undefined) this.lru.delete(key);
    this.counts.misses += 1;
    return undefined;
  }

  /**
   * Keeps `result` for `ttlMs`, unless `server` was written to since `generation` (read
   * with {@link generation} when the call started) or the result is too large.
   */
  set(
    key: string,
    server: string,
    generation: number,
    result: CallToolResult,
    ttlMs: number,
  ): void {
    if (generation !== this.generation(server)) return;
    const json = JSON.stringify(result);
    // The answer to the client is this same text: a large result is serialized once (for a
    // small one, remembering costs more than serializing again).
    if (json.length >= REMEMBERED_JSON_BYTES) rememberJson(result, json);
    if (json.length + key.length > this.lru.maxEntrySize) return;
    this.lru.set(key, { json, server, generation, storedAt: Date.now() }, { ttl: ttlMs });
    this.counts.stores += 1;
  }

  /** The server's current generation. */
  generation(server: string): number {
    return this.generations.get(server) ?? 0;
  }

  /**
   * How many messages `server` has sent to clients so far (requests, progress, log
   * messages): a call during which it changed is not kept, its result went with them.
   */
  activity(server: string): number {
    return this.activities.get(server) ?? 0;
  }

  /** Counts a message `server` sent to a client. */
  noteActivity(server: string): void {
    this.activities.set(server, this.activity(server) + 1);
  }

  /** Makes every entry of `server` stale (a call that may have changed it). */
  invalidate(server: string): void {
    this.generations.set(server, this.generation(server) + 1);
    this.counts.invalidations += 1;
  }

  stats(): CacheStats {
    return { ...this.counts, entries: this.lru.size, bytes: this.lru.calculatedSize };
  }
}
