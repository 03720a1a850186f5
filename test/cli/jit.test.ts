import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tierUpSooner } from '../../src/cli/jit.js';
import { requireBuiltCli } from '../helpers/paths.js';

/**
 * How many calls of a small function it takes V8 to optimize it, in a fresh Node (natives
 * syntax to read the state; recompilation on the main thread, so that the count is exact),
 * with the gateway's budget set first (by the built module) or not.
 */
function callsToOptimize(sooner: boolean): number {
  const jit = pathToFileURL(join(dirname(requireBuiltCli()), 'jit.js')).href;
  const script = `
    import { tierUpSooner } from ${JSON.stringify(jit)};
    if (${String(sooner)}) tierUpSooner([]);
    function add(a, b) { return a + b; }
    // Called from a function never optimized, so that add is not inlined into the loop.
    function step(i) { return add(i, 1); }
    %NeverOptimizeFunction(step);
    let calls = 0;
    // Bit 4 of the status: optimized by TurboFan.
    while ((%GetOptimizationStatus(add) & 16) === 0 && calls < 1e7) { step(calls); calls++; }
    process.stdout.write(String(calls));
  `;
  const run = spawnSync(
    process.execPath,
    [
      '--allow-natives-syntax',
      '--no-concurrent-recompilation',
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return Number(run.stdout);
}

describe('tierUpSooner', () => {
  it('makes V8 optimize a function after far fewer calls than by default', () => {
    const sooner = callsToOptimize(true);
    const usual = callsToOptimize(false);
    expect(sooner).toBeGreaterThan(0);
    expect(usual).toBeLessThan(1e7);
    expect(sooner * 4).toBeLessThan(usual);
  });

  it('leaves a budget Node was started with alone, whichever way it is written', () => {
    expect(tierUpSooner(['--interrupt-budget=100000'])).toBe(false);
    expect(tierUpSooner(['--interrupt_budget', '100000'])).toBe(false);
  });
});
