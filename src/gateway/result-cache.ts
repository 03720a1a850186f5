import { crc32 } from 'node:zlib';
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
  /**
   * Results not kept because their tool's calls rarely repeat and this call had not been
   * seen before (see {@link ResultCache}).
   */
  readonly unadmitted: number;
  readonly entries: number;
  readonly bytes: number;
}

/** Results whose JSON is at least this long keep it for the answer (see `rememberJson`). */
const REMEMBERED_JSON_BYTES = 1024;

/** A tool's lookups counted before its hits are weighed (see {@link ResultCache}). */
export const ADMISSION_WINDOW = 1_024;
/** A tool with fewer hits than this share of its lookups over a window is sparse. */
const SPARSE_HIT_SHARE = 0.01;
/** Calls the doorkeeper remembers (as 32-bit fingerprints) before it starts over. */
const DOORKEEPER_SIZE = 16_384;

/** How often a tool's calls are found in the cache, over its current window. */
interface Traffic {
  lookups: number;
  hits: number;
  /** Its last full window had almost no hits: results are kept on a second sighting only. */
  sparse: boolean;
}

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
 * Admission: a tool whose calls almost never repeat (fewer than 1% hits over its last
 * {@link ADMISSION_WINDOW} lookups) is sparse, and a result of it is kept only when the same
 * call was seen before (a doorkeeper of fingerprints of the calls not kept, as TinyLFU's). A
 * result that is never asked for again costs the gateway its serialization, and its keeping
 * in memory, which under load was most of what the young-generation collector copied: with
 * a stream of unique calls the gateway spent 92-115 µs of CPU a call keeping 1,000 entries,
 * 80-92 keeping one (`docs/architecture.md`, "What a call keeps alive"). A sparse tool's
 * repeated call is kept at its second sighting and served from its third; once its window
 * has 1% hits again, it is kept at the first.
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
  private counts = { hits: 0, misses: 0, stores: 0, invalidations: 0, unadmitted: 0 };
  private readonly traffic = new Map<string, Traffic>();
  private readonly doorkeeper = new Set<number>();

  constructor(options: ResultCacheOptions) {
    this.lru = new LRUCache<string, Cached>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      maxEntrySize: options.maxEntryBytes,
      sizeCalculation: (value, key) => value.json.length + key.length,
    });
  }

  /**
   * A fresh copy of the cached result for `key`, a call of `tool`, and when it was kept, or
   * undefined (a miss).
   */
  get(key: string, tool: string): CacheHit | undefined {
    const cached = this.lru.get(key);
    const hit = cached !== undefined && cached.generation === this.generation(cached.server);
    this.count(tool, hit);
    if (hit) {
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
    tool: string,
    server: string,
    generation: number,
    result: CallToolResult,
    ttlMs: number,
  ): void {
    if (generation !== this.generation(server)) return;
    if (this.traffic.get(tool)?.sparse === true && !this.seenBefore(key)) {
      this.counts.unadmitted += 1;
      return;
    }
    const json = JSON.stringify(result);
    // The answer to the client is this same text: a large result is serialized once (for a
    // small one, remembering costs more than serializing again).
    if (json.length >= REMEMBERED_JSON_BYTES) rememberJson(result, json);
    if (json.length + key.length > this.lru.maxEntrySize) return;
    this.lru.set(key, { json, server, generation, storedAt: Date.now() }, { ttl: ttlMs });
    this.counts.stores += 1;
  }

  /** Counts a lookup of `tool`; at the end of its window, weighs its hits. */
  private count(tool: string, hit: boolean): void {
    let traffic = this.traffic.get(tool);
    if (traffic === undefined) {
      traffic = { lookups: 0, hits: 0, sparse: false };
      this.traffic.set(tool, traffic);
    }
    traffic.lookups += 1;
    if (hit) traffic.hits += 1;
    if (traffic.lookups < ADMISSION_WINDOW) return;
    traffic.sparse = traffic.hits < traffic.lookups * SPARSE_HIT_SHARE;
    traffic.lookups = 0;
    traffic.hits = 0;
  }

  /**
   * True when the call keyed `key` was offered before and not kept; else it is remembered
   * (as a fingerprint: another call taken for it is kept, which is harmless).
   */
  private seenBefore(key: string): boolean {
    const print = fingerprint(key);
    if (this.doorkeeper.has(print)) {
      this.doorkeeper.delete(print);
      return true;
    }
    if (this.doorkeeper.size >= DOORKEEPER_SIZE) this.doorkeeper.clear();
    this.doorkeeper.add(print);
    return false;
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

/**
 * The key's CRC-32 (zlib's, native: a hash written in JavaScript took 4-5 µs for a key with
 * 1 KiB of arguments, zlib's 0.7), as an int32, which V8 keeps unboxed.
 */
function fingerprint(key: string): number {
  return crc32(key) | 0;
}
