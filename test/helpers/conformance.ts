import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fixture } from './paths.js';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance), installed by
 * `scripts/ensure-conformance.sh` (which `scripts/test.sh` sources): the paths of the stable
 * release's and the newest alpha's CLI entry files.
 */
export type SuiteRelease = 'stable' | 'alpha';

const VARIABLES: Readonly<Record<SuiteRelease, string>> = {
  stable: 'HINTGATE_CONFORMANCE',
  alpha: 'HINTGATE_CONFORMANCE_ALPHA',
};

/** The suite's CLI entry file of `release`, or a clear failure saying how to install it. */
export function suiteCli(release: SuiteRelease): string {
  const name = VARIABLES[release];
  const path = process.env[name];
  if (path === undefined || path === '')
    throw new Error(
      `${name} is not set: the conformance tests need the MCP conformance suite; run \`source scripts/ensure-conformance.sh\` first (scripts/test.sh does)`,
    );
  if (!existsSync(path))
    throw new Error(
      `${name} names ${path}, which does not exist: run scripts/ensure-conformance.sh`,
    );
  return path;
}

/** One check as the suite recorded it. */
export interface SuiteCheck {
  readonly id: string;
  /** SUCCESS, FAILURE, WARNING, INFO or SKIPPED. */
  readonly status: string;
  readonly description?: string;
  readonly errorMessage?: string;
}

/** Every check of a run, by scenario. */
export type SuiteResults = ReadonlyMap<string, readonly SuiteCheck[]>;

/** What one run of the suite's CLI printed, and the checks it saved. */
export interface SuiteRun {
  readonly code: number | null;
  readonly output: string;
  readonly results: SuiteResults;
}

/**
 * Runs the suite's CLI with `args` and `-o outDir`, and reads back every scenario's
 * `checks.json` (the CLI's exit code says only whether something failed).
 */
export function runSuite(
  cli: string,
  args: readonly string[],
  outDir: string,
  env: Record<string, string> = {},
): Promise<SuiteRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args, '-o', outDir], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output, results: readResults(outDir) }));
  });
}

/** The checks saved under `outDir`: one `<kind>-<scenario>-<time>/checks.json` per scenario. */
export function readResults(outDir: string): SuiteResults {
  const results = new Map<string, SuiteCheck[]>();
  if (!existsSync(outDir)) return results;
  for (const entry of readdirSync(outDir)) {
    const file = join(outDir, entry, 'checks.json');
    if (!existsSync(file)) continue;
    const scenario = entry.replace(/^(server|client)-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    results.set(scenario, JSON.parse(readFileSync(file, 'utf8')) as SuiteCheck[]);
  }
  return results;
}

/**
 * The checks that passed in `baseline` and not in `run`, each once per time it passed
 * (a scenario may pass one check id several times): `scenario/id: status (error)`.
 */
export function lostChecks(baseline: SuiteResults, run: SuiteResults): string[] {
  const lost: string[] = [];
  for (const [scenario, checks] of baseline) {
    const passed = countPassed(checks);
    const other = run.get(scenario) ?? [];
    const passedThere = countPassed(other);
    for (const [id, count] of passed) {
      const there = passedThere.get(id) ?? 0;
      if (there >= count) continue;
      const failing = other.find((check) => check.id === id && check.status !== 'SUCCESS');
      const why =
        failing === undefined
          ? `missing (${other.length === 0 ? 'scenario not run' : `${there} of ${count} passed`})`
          : `${failing.status}${failing.errorMessage === undefined ? '' : `: ${failing.errorMessage}`}`;
      lost.push(`${scenario}/${id}: ${why}`);
    }
  }
  return lost;
}

function countPassed(checks: readonly SuiteCheck[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const check of checks)
    if (check.status === 'SUCCESS') counts.set(check.id, (counts.get(check.id) ?? 0) + 1);
  return counts;
}

/** The checks of `results` with a given status, as `scenario/id: error`. */
export function checksWith(results: SuiteResults, status: string): string[] {
  const found: string[] = [];
  for (const [scenario, checks] of results)
    for (const check of checks)
      if (check.status === status)
        found.push(`${scenario}/${check.id}: ${check.errorMessage ?? check.description ?? ''}`);
  return found;
}

/** How many checks passed in all. */
export function passedCount(results: SuiteResults): number {
  let count = 0;
  for (const checks of results.values())
    for (const check of checks) if (check.status === 'SUCCESS') count++;
  return count;
}

/** The conformance fixture serving streamable HTTP; resolves with its URL and a stop. */
export async function startConformanceFixture(): Promise<{
  url: string;
  stop: () => Promise<void>;
}> {
  const child = spawn(process.execPath, [fixture('conformance'), '--http', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const line = text.split('\n')[0];
      if (text.includes('\n') && line !== undefined)
        resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) =>
      reject(new Error(`the conformance fixture exited (${code}) before listening: ${errors}`)),
    );
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
