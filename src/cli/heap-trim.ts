import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loopBusyMeter } from './quiet.js';

/** How often the heap is looked at, in ms. */
export const TRIM_EVERY_MS = 10_000;

/** The young generation's size (both halves) above which an idle heap is worth a trim. */
export const TRIM_ABOVE_BYTES = 8 * 1024 * 1024;

/** The share of a period the event loop may have been busy and still count as idle. */
const IDLE_UTILIZATION = 0.02;

/**
 * Collections in a row that may leave the young generation as large (V8 found the allocation
 * rate not low enough) before trimming waits for the next busy period.
 */
export const TRIM_MAX_MISSES = 3;

/** V8's `gc()` with options, as `--expose-gc` defines it. */
type Collect = (options: { type: 'major'; execution: 'async' }) => Promise<void>;

/** Options of {@link trimHeapWhenIdle}. */
export interface HeapTrimOptions {
  readonly everyMs?: number;
  readonly aboveBytes?: number;
  /** Told once per trim, with the young generation's size before it (for tests and logs). */
  readonly onTrim?: (youngBytes: number) => void;
  /**
   * Makes the reader of the loop's busy share since its last reading (default
   * {@link loopBusyMeter}); a test gives its own, so that a loaded machine's late timers are
   * not read as calls.
   */
  readonly meter?: () => () => number;
}

/**
 * Gives back the young generation's memory while the process is idle. V8 grows it (up to
 * 2 x 16 MiB) under the allocations of a start or of a burst of calls, and keeps it at that
 * size while nothing allocates, since it only shrinks it at a collection that finds the
 * allocation rate low: a gateway idle after its start held 30 MiB more than it needed. So,
 * every `everyMs`, if the event loop was idle over the whole period and the young generation
 * is larger than `aboveBytes`, a major collection runs, which lets V8 shrink it once the
 * allocation rate it sees is low. V8 reads that rate over the spans between its last
 * collections back to 5 s: the first collection after a burst closes a span that holds the
 * burst and shrinks nothing; the next one, a period later, does (a gateway idle after its
 * start: at 20 s). It is a full collection (asked for asynchronously, V8 runs it as a task
 * of its own): a pause of the loop, of some tens of milliseconds on a gateway's heap, taken
 * only after a whole idle period. When
 * {@link TRIM_MAX_MISSES} collections in a row leave the young generation as large (a
 * steady trickle of allocations keeps the rate V8 sees up), trimming waits for the next busy
 * period rather than collect every period. Calls that come later grow it again as they
 * need.
 *
 * Collections are asked through the `gc` function `--expose-gc` defines, taken from a new
 * context with the flag set only for that moment: V8 hashes its flags into code caches, and
 * a flag left changed would make every code cache written later (`code-cache.ts`) one the
 * next start refuses. Returns a function that stops the trimming; the timer keeps no process
 * alive. Where the function cannot be had (a V8 that refuses flags at run time), nothing is
 * trimmed.
 */
export function trimHeapWhenIdle(options: HeapTrimOptions = {}): () => void {
  const collect = sharedCollector();
  if (collect === undefined) return () => undefined;
  const everyMs = options.everyMs ?? TRIM_EVERY_MS;
  const aboveBytes = options.aboveBytes ?? TRIM_ABOVE_BYTES;
  const meter = options.meter ?? loopBusyMeter;
  let busy = meter();
  let collecting = false;
  let misses = 0;
  const timer = setInterval(() => {
    // Not read during a collection: the reader is replaced once it ends.
    if (collecting) return;
    const share = busy();
    if (share >= IDLE_UTILIZATION) {
      misses = 0;
      return;
    }
    const young = youngGenerationBytes();
    if (young <= aboveBytes || misses >= TRIM_MAX_MISSES) return;
    collecting = true;
    options.onTrim?.(young);
    collect({ type: 'major', execution: 'async' })
      .catch(() => undefined)
      .finally(() => {
        collecting = false;
        misses = youngGenerationBytes() > aboveBytes ? misses + 1 : 0;
        // The collection's own work is not the calls' activity.
        busy = meter();
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Old-generation pages held beyond what its objects use, above which a collection is worth it. */
export const SPARE_OLD_BYTES = 16 * 1024 * 1024;

/**
 * Gives back now what the heap holds beyond its live objects, for a moment when memory is
 * about to matter more than a pause of the loop: the embedded database's process about to
 * copy a burst of calls' audit records beside a gateway whose heap grew under that burst.
 * Two major collections in a row: after 20,000 HTTP calls from 32 clients the old generation
 * held 124-140 MiB, about 28 MiB of it live; the first collection left 57-88 MiB, the second
 * 26-28. The young generation is given back only by a collection that finds little allocated
 * over the 5 s before it, so a second call some seconds later may give back more. Does
 * nothing when the heap holds little to give back (a young generation of at most
 * {@link TRIM_ABOVE_BYTES}, at most {@link SPARE_OLD_BYTES} of spare old-generation pages),
 * or where collections cannot be asked for; never rejects.
 */
export async function collectGarbageNow(): Promise<void> {
  const collect = sharedCollector();
  if (collect === undefined || !holdsSpare()) return;
  try {
    await collect({ type: 'major', execution: 'async' });
    await collect({ type: 'major', execution: 'async' });
  } catch {
    // A collection that could not run leaves the heap as it was: nothing to report.
  }
}

/** Whether the heap holds more than {@link collectGarbageNow} leaves alone. */
function holdsSpare(): boolean {
  let spare = false;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space') spare ||= space.physical_space_size > TRIM_ABOVE_BYTES;
    if (space.space_name === 'old_space') {
      spare ||= space.physical_space_size - space.space_used_size > SPARE_OLD_BYTES;
    }
  }
  return spare;
}

/** The memory the young generation (new space) holds now. */
export function youngGenerationBytes(): number {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return space?.physical_space_size ?? 0;
}

let shared: { readonly collect: Collect | undefined } | undefined;

/** {@link collector}, had once per process. */
function sharedCollector(): Collect | undefined {
  shared ??= { collect: collector() };
  return shared.collect;
}

/** V8's `gc`, with `--expose-gc` set back as it was once it is had; undefined if refused. */
function collector(): Collect | undefined {
  // Run with --expose-gc already: its function, and the flags left as they are.
  const exposed: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collect;
  try {
    setFlagsFromString('--expose-gc');
    try {
      const gc: unknown = runInNewContext('gc');
      return typeof gc === 'function' ? (gc as Collect) : undefined;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  } catch {
    return undefined;
  }
}
