import { setFlagsFromString } from 'node:v8';

/**
 * How much bytecode a function runs before V8 considers optimizing it (its interrupt budget)
 * while the gateway serves calls: 4,096 bytes instead of Node 20's 67,584. A gateway's call
 * path is a few dozen small functions run on every call; with Node's budget they, and the
 * stream functions of Node they call, ran unoptimized for the first few thousand calls after
 * a start, where most of the latency a gateway adds was (`docs/architecture.md` has the
 * figures). 1,024 was no better.
 */
export const CALL_BUDGET = 4096;

/**
 * The budget while a gateway starts: Node 20's own. The start runs much code a few times
 * (config, schemas, every tool's inference and listing); with {@link CALL_BUDGET} V8 spent
 * that time optimizing it, and the first listing came 70 ms later.
 */
export const START_BUDGET = 67_584;

/**
 * The V8 these budgets were measured on (Node 20's, 11.3). Another has its own default (132
 * KiB where it has Maglev) and tiers, which {@link START_BUDGET} would not give back: there the
 * budget is left to Node.
 */
const MEASURED_V8 = /^11\./;

/** `--interrupt-budget` (V8 takes `_` for `-` in flag names), with or without a value. */
const BUDGET_FLAG = /^--interrupt[-_]budget(=|$)/;

/**
 * Set on `globalThis` by {@link tierUpSooner}: the launcher and the bundle each hold their own
 * copy of this module, and the bundle's `serve` changes the budget only when the launcher set
 * it.
 */
const MANAGED = Symbol.for('hintgate.interruptBudget');

function setBudget(bytes: number): void {
  setFlagsFromString(`--interrupt-budget=${bytes}`);
}

/** Whether the launcher set the budget ({@link tierUpSooner}). */
function managed(): boolean {
  return (globalThis as Record<symbol, unknown>)[MANAGED] === true;
}

/**
 * Sets {@link CALL_BUDGET} for this process, unless Node was started with a budget of its own
 * or runs another V8 than the one measured (`v8Version`); true when it did. Called by the
 * launcher before the bundle is compiled: V8 refuses a code cache made under other flags, so
 * the bundle is compiled with its cache under this budget, and the cache made under it too,
 * at `serve`'s checkpoint (after {@link budgetForCalls}) or at exit (this sets it back first:
 * its exit listener comes before the cache's).
 */
export function tierUpSooner(
  execArgv: readonly string[],
  v8Version: string = process.versions.v8,
): boolean {
  if (!MEASURED_V8.test(v8Version)) return false;
  if (execArgv.some((arg) => BUDGET_FLAG.test(arg))) return false;
  setBudget(CALL_BUDGET);
  (globalThis as Record<symbol, unknown>)[MANAGED] = true;
  process.on('exit', () => setBudget(CALL_BUDGET));
  return true;
}

/**
 * {@link START_BUDGET}, if the launcher manages the budget: every command runs under it, and
 * `serve` until its start has settled ({@link budgetForCalls}).
 */
export function budgetForStart(): void {
  if (managed()) setBudget(START_BUDGET);
}

/**
 * `serve` has started: {@link CALL_BUDGET} again, if the launcher manages the budget; before
 * the code cache's checkpoint, which makes the cache under it.
 */
export function budgetForCalls(): void {
  if (managed()) setBudget(CALL_BUDGET);
}
