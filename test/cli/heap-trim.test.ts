import { execFile, execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  SPARE_OLD_BYTES,
  TRIM_ABOVE_BYTES,
  TRIM_MAX_MISSES,
  trimHeapWhenIdle,
} from '../../src/cli/heap-trim.js';
import { scratchDir } from '../helpers/config.js';
import { busyFor, sleep } from '../helpers/event-loop.js';
import { waitFor } from '../helpers/processes.js';
import { requireBuiltCli } from '../helpers/paths.js';

describe('trimHeapWhenIdle', () => {
  it('gives an idle process its young generation back, which V8 alone keeps', async () => {
    const module = pathToFileURL(join(dirname(requireBuiltCli()), 'heap-trim.js')).href;
    // A process that allocates a burst (growing its young generation), then sits idle, with
    // and without the trimming (a collection every 3 s: the first two close spans that hold
    // the burst), and says how big its young generation ended: without, after 10.5 s; with,
    // once it is given back or after 30 s (on a busy machine timers slip past the third).
    const idleAfterBurst = (trim: boolean) =>
      new Promise<{ before: number; after: number; trims: number }>((resolve, reject) => {
        const script = `import { trimHeapWhenIdle, youngGenerationBytes } from ${JSON.stringify(module)};
          let sink;
          for (let i = 0; i < 400 && youngGenerationBytes() <= 16 * 1024 * 1024; i++)
            sink = Array.from({ length: 50000 }, (_, n) => ({ n, text: 'item ' + n }));
          sink = undefined;
          const before = youngGenerationBytes();
          let trims = 0;
          if (${trim}) trimHeapWhenIdle({ everyMs: 3000, onTrim: () => trims++ });
          const report = () => process.stdout.write(JSON.stringify({ before, after: youngGenerationBytes(), trims }));
          const started = Date.now();
          const check = () => {
            const done = ${trim} ? youngGenerationBytes() <= ${TRIM_ABOVE_BYTES} || Date.now() - started > 30000 : true;
            if (done) report();
            else setTimeout(check, 500);
          };
          setTimeout(check, 10500);`;
        execFile(
          process.execPath,
          ['--input-type=module', '-e', script],
          { encoding: 'utf8' },
          (error, stdout) =>
            error === null ? resolve(JSON.parse(stdout)) : reject(new Error(error.message)),
        );
      });
    const [kept, trimmed] = await Promise.all([idleAfterBurst(false), idleAfterBurst(true)]);
    expect(kept.before).toBeGreaterThan(TRIM_ABOVE_BYTES);
    expect(kept.after).toBe(kept.before);
    expect(trimmed.before).toBeGreaterThan(TRIM_ABOVE_BYTES);
    expect(trimmed.trims).toBeGreaterThan(0);
    expect(trimmed.after).toBeLessThanOrEqual(TRIM_ABOVE_BYTES);
  }, 60_000);

  it('does not collect while the loop is busy, and does once it is idle', async () => {
    const trims: number[] = [];
    const stop = trimHeapWhenIdle({
      everyMs: 100,
      aboveBytes: 0,
      onTrim: (b) => trims.push(b),
    });
    try {
      await busyFor(600);
      expect(trims).toEqual([]);
      await sleep(400);
      expect(trims.length).toBeGreaterThan(0);
    } finally {
      stop();
    }
  });

  it('stops after collections that shrink nothing, until the loop has been busy again', async () => {
    const trims: number[] = [];
    // The loop's busy share is scripted: on a loaded machine a timer's late turn reads as
    // the loop being busy, which would let the trimming start again at any time.
    const readings: number[] = [];
    let busyNext = false;
    const meter = () => () => {
      const share = busyNext ? 1 : 0;
      busyNext = false;
      readings.push(share);
      return share;
    };
    // Never small enough: every collection is a miss.
    const stop = trimHeapWhenIdle({
      everyMs: 50,
      aboveBytes: 0,
      meter,
      onTrim: (b) => trims.push(b),
    });
    // Idle readings past the last trim (the loop is read only between collections).
    const idleReadings = async (n: number) => {
      const from = readings.length;
      await waitFor(
        () => readings.length,
        (count) => count >= from + n,
        10_000,
        20,
      );
    };
    try {
      // However long it stays idle: TRIM_MAX_MISSES collections, then none.
      await waitFor(
        () => trims.length,
        (n) => n >= TRIM_MAX_MISSES,
        10_000,
        20,
      );
      await idleReadings(10);
      expect(trims).toHaveLength(TRIM_MAX_MISSES);
      // A busy period, then idle again: as many again, then none.
      busyNext = true;
      await waitFor(
        () => trims.length,
        (n) => n >= 2 * TRIM_MAX_MISSES,
        10_000,
        20,
      );
      await idleReadings(10);
      expect(readings.filter((share) => share === 1)).toHaveLength(1);
      expect(trims).toHaveLength(2 * TRIM_MAX_MISSES);
    } finally {
      stop();
    }
  }, 30_000);

  it('leaves the V8 flags as they were: a code cache written after it is accepted by the next process', () => {
    const dir = scratchDir();
    const cache = join(dir, 'cache.bin');
    const source = 'function twice(x) { return 2 * x; } twice(21);';
    const module = join(dirname(requireBuiltCli()), 'heap-trim.js');
    // The writer sets the trimming up before it compiles anything, as a gateway that trims
    // before its code cache is written at exit; a fresh process then reads that cache.
    const write = `import { trimHeapWhenIdle } from ${JSON.stringify(pathToFileURL(module).href)};
      import { Script } from 'node:vm'; import { writeFileSync } from 'node:fs';
      trimHeapWhenIdle({ everyMs: 60000 })();
      const script = new Script(${JSON.stringify(source)}, { filename: 'twice.js' });
      script.runInThisContext();
      writeFileSync(${JSON.stringify(cache)}, script.createCachedData());`;
    execFileSync(process.execPath, ['--input-type=module', '-e', write]);
    const read = `const { Script } = require('node:vm');
      const script = new Script(${JSON.stringify(source)}, { filename: 'twice.js', cachedData: require('node:fs').readFileSync(${JSON.stringify(cache)}) });
      process.stdout.write(String(script.cachedDataRejected));`;
    expect(execFileSync(process.execPath, ['-e', read], { encoding: 'utf8' })).toBe('false');
  });
});

describe('collectGarbageNow', () => {
  /**
   * Runs `body` (module code with `collectGarbageNow`, `oldSpace()` (bytes held by the old
   * generation) and `majors()` (major collections so far) in scope) in a fresh process and
   * returns what it printed, parsed.
   */
  const inProcess = <T>(body: string): Promise<T> => {
    const module = pathToFileURL(join(dirname(requireBuiltCli()), 'heap-trim.js')).href;
    const script = `import { collectGarbageNow } from ${JSON.stringify(module)};
      import { getHeapSpaceStatistics } from 'node:v8';
      import { PerformanceObserver, constants } from 'node:perf_hooks';
      const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').physical_space_size;
      let majorCount = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries())
          if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorCount++;
      }).observe({ entryTypes: ['gc'] });
      // Entries are delivered on a later turn of the loop.
      const majors = () => new Promise((resolve) => setTimeout(() => resolve(majorCount), 50));
      ${body}`;
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { encoding: 'utf8' },
        (error, stdout) =>
          error === null ? resolve(JSON.parse(stdout) as T) : reject(new Error(error.message)),
      );
    });
  };

  it('gives back the old generation a burst left full of garbage', async () => {
    // Objects kept across several scavenges are promoted to the old generation; once they
    // are dropped, the pages they filled stay held until a major collection.
    const result = await inProcess<{ before: number; after: number }>(`
      let kept = [];
      for (let round = 0; round < 60; round++) {
        kept.push(Array.from({ length: 20000 }, (_, n) => ({ n, text: 'kept ' + n + ' ' + round })));
        await new Promise((resolve) => setImmediate(resolve));
      }
      kept = undefined;
      const before = oldSpace();
      await collectGarbageNow();
      process.stdout.write(JSON.stringify({ before, after: oldSpace() }));`);
    expect(result.before).toBeGreaterThan(4 * SPARE_OLD_BYTES);
    expect(result.after).toBeLessThan(result.before / 2);
  }, 30_000);

  it('collects nothing when the heap holds little to give back', async () => {
    const result = await inProcess<{ before: number; during: number }>(`
      const before = await majors();
      await collectGarbageNow();
      process.stdout.write(JSON.stringify({ before, during: (await majors()) - before }));`);
    expect(result.during).toBe(0);
  });
});
