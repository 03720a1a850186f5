import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tierUpSooner } from '../../src/cli/jit.js';
import { requireBuiltCli } from '../helpers/paths.js';

/**
 * How many calls of a small function it takes V8 to optimize it, in a fresh Node (natives
 * syntax to read the state; recompilation on the main thread, so that the count is exact),
 * after `setup` ran with the built module's functions in scope.
 */
function callsToOptimize(setup: string): number {
  const jit = pathToFileURL(join(dirname(requireBuiltCli()), 'jit.js')).href;
  const script = `
    import { budgetForCalls, budgetForStart, tierUpSooner } from ${JSON.stringify(jit)};
    ${setup}
    function add(a, b) { return a + b; }
    // Called from a function never optimized, so that add is not inlined into the loop.
    function step(i) { return add(i, 1); }
    %NeverOptimizeFunction(step);
    let calls = 0;
    // Bit 4 of the status: optimized (by TurboFan, in the V8 the budgets are managed on).
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

describe('the interrupt budget', () => {
  // Managed on Node 20's V8 only (see jit.ts); this is the machine's Node.
  it.runIf(process.versions.v8.startsWith('11.'))(
    'has V8 optimize far sooner for calls, and as usual while a gateway starts',
    () => {
      const usual = callsToOptimize('');
      const calls = callsToOptimize('tierUpSooner([]);');
      const starting = callsToOptimize('tierUpSooner([]); budgetForStart();');
      const started = callsToOptimize('tierUpSooner([]); budgetForStart(); budgetForCalls();');
      expect(usual).toBeLessThan(1e7);
      expect(calls).toBeGreaterThan(0);
      expect(calls * 4).toBeLessThan(usual);
      expect(starting).toBe(usual);
      expect(started).toBe(calls);
    },
  );

  it.runIf(process.versions.v8.startsWith('11.'))(
    'is left alone when the launcher did not set it',
    () => {
      expect(callsToOptimize('budgetForCalls();')).toBe(callsToOptimize(''));
    },
  );

  it('is left alone when Node was started with one, whichever way it is written', () => {
    expect(tierUpSooner(['--interrupt-budget=100000'])).toBe(false);
    expect(tierUpSooner(['--interrupt_budget', '100000'])).toBe(false);
  });

  it('is left to Node on another V8 than the one it was measured on', () => {
    expect(tierUpSooner([], '12.4.254.21-node.33')).toBe(false);
  });
});
