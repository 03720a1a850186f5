import { setFlagsFromString } from 'node:v8';

/**
 * How much bytecode a function runs before V8 considers optimizing it (its interrupt budget):
 * 4,096 bytes instead of Node 20's 67,584. A gateway's call path is a few dozen small functions
 * run on every call; with Node's budget they, and the stream functions of Node they call, run
 * unoptimized for the first few thousand calls after a start, where most of the latency a
 * gateway adds was (`docs/architecture.md` has the figures). 1,024 was no better.
 */
export const INTERRUPT_BUDGET = 4096;

/** `--interrupt-budget` (V8 takes `_` for `-` in flag names), with or without a value. */
const BUDGET_FLAG = /^--interrupt[-_]budget(=|$)/;

/**
 * Sets {@link INTERRUPT_BUDGET} for this process, unless Node was started with a budget of its
 * own; true when it did. To be called before the bundle is compiled: V8 refuses a code cache
 * made under other flags, and one set later would make every start's cache the next start's
 * refusal.
 */
export function tierUpSooner(execArgv: readonly string[]): boolean {
  if (execArgv.some((arg) => BUDGET_FLAG.test(arg))) return false;
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  return true;
}
