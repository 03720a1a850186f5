/**
 * Shared pieces of the gateway benchmarks: finding the repository, writing configs, timing
 * calls over SDK clients, and robust summaries. Every benchmark interleaves its setups round
 * by round and reports medians over rounds, so that the drift of a shared machine hits the
 * baseline and the gateway alike.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import * as z from 'zod';

/** The repository root (the benchmarks run from bench/dist/bench). */
export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');
export const LOOSE = z.looseObject({});

function findRoot(from: string): string {
  let dir = from;
  while (
    !existsSync(join(dir, 'package.json')) ||
    !readFileSync(join(dir, 'package.json'), 'utf8').includes('"name": "hintgate"')
  ) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the hintgate repository');
    dir = up;
  }
  return dir;
}

/** Fails clearly when the CLI has not been built. */
export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
}

/** A fixture server script. */
export function fixture(name: string): string {
  return join(ROOT, 'test', 'fixtures', 'servers', `${name}.mjs`);
}

/** Writes a gateway config with these servers into a fresh directory. */
export function writeConfig(
  servers: Record<string, unknown>,
  rest: Record<string, unknown> = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'hintgate-bench-'));
  const path = join(dir, 'hintgate.config.json');
  writeFileSync(path, JSON.stringify({ mcpServers: servers, dataDir: join(dir, 'data'), ...rest }));
  return path;
}

/** Milliseconds of `values` at quantile `q` (0..1). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

/** The median of a list. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Calls made by this process so far. */
let sent = 0;

/**
 * `PAYLOAD=1024` pads every call's text to that many characters, as the shared harness
 * (`../shared/bench`) does: what arguments and results of that size cost the gateway (the
 * cache's key and kept result, the audit record, the pipes). Unset, a call's text is a few
 * characters.
 */
const PAYLOAD = Number(process.env['PAYLOAD'] ?? 0);
const FILLER = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** What pads a call's text, made once rather than by every call of the client. */
const FILL = FILLER.repeat(Math.ceil(PAYLOAD / FILLER.length));

/** The text of the `index`th call: unique, `PAYLOAD` characters long when that is set. */
export function echoText(index: number): string {
  const head = `x${index}`;
  if (PAYLOAD <= head.length) return head;
  return `${head}:${FILL}`.slice(0, PAYLOAD);
}

/**
 * One tools/call through `client`, with nothing stripped from the result. Every call of the
 * run has arguments of its own: the echo tool is read-only, and a repeated call would be
 * answered from the gateway's result cache without reaching the server (a direct server or
 * a relay has no such cache), which made the gateway look faster than it is.
 */
export function callEcho(client: Client, tool: string): Promise<unknown> {
  sent += 1;
  return client.request(
    { method: 'tools/call', params: { name: tool, arguments: { text: echoText(sent) } } },
    LOOSE,
  );
}

/** Latencies (ms) of `count` sequential calls after `warmup` unmeasured ones. */
export async function sequential(
  call: (index: number) => Promise<unknown>,
  count: number,
  warmup: number,
): Promise<number[]> {
  for (let index = 0; index < warmup; index++) await call(index);
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await call(index);
    times.push(performance.now() - started);
  }
  return times;
}

/** Calls per second with `inFlight` calls kept in flight until `total` are done. */
export async function throughput(
  call: (index: number) => Promise<unknown>,
  total: number,
  inFlight: number,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await call(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/** Clock ticks per second, for /proc/<pid>/stat. */
let ticks: number | undefined;

/** User and system CPU time of one process so far, in µs (Linux; 0 once it is gone). */
export function cpuMicros(pid: number): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticks) * 1e6;
  } catch {
    return 0;
  }
}

/** The children of a process (Linux). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter((text) => text.trim() !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** The embedded store's process among a gateway's children (`node -e …`), if one runs. */
export function storeProcessOf(gateway: number): number | undefined {
  return childrenOf(gateway).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('-e');
    } catch {
      return false;
    }
  });
}

/**
 * CPU (µs) of a process's children that have ended and been waited for (Linux: its `cutime`
 * and `cstime`): the embedded store's earlier processes, once closed when idle.
 */
export function endedChildrenCpuMicros(pid: number): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) / ticks) * 1e6;
  } catch {
    return 0;
  }
}

/**
 * CPU (µs) a gateway's embedded store has used so far: its process running now and those
 * that ended (the store closes its process when idle and opens another when used).
 */
export function storeCpuMicros(gateway: number): number {
  const store = storeProcessOf(gateway);
  return (store === undefined ? 0 : cpuMicros(store)) + endedChildrenCpuMicros(gateway);
}

/**
 * Waits until a gateway's store has done the work its calls left: the embedded store copies
 * its audit journal (`<dataDir>/audit-journal/`) into the database once the gateway has been
 * quiet for 10 s. Returns once no segment is left and the store's CPU has not grown for
 * `stableMs`, so that work is neither missed nor done during the next setup's measurement.
 */
export async function settleStore(
  gateway: number,
  dataDir: string,
  stableMs = 600,
  timeoutMs = 60_000,
): Promise<void> {
  const journal = join(dataDir, 'audit-journal');
  const waiting = (): boolean => {
    try {
      return readdirSync(journal).some((name) => name.endsWith('.copy'));
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + timeoutMs;
  while (waiting() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let last = storeCpuMicros(gateway);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, stableMs));
    const now = storeCpuMicros(gateway);
    if (now === last) return;
    last = now;
  }
}

/** The data directory of a config {@link writeConfig} wrote. */
export function dataDirOf(config: string): string {
  return join(dirname(config), 'data');
}

/** Resident memory of one process, in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

/** A short description of the machine, printed with the figures. */
export function machine(): string {
  const cpus = execFileSync('nproc', { encoding: 'utf8' }).trim();
  return `node ${process.version}, ${cpus} CPU(s)`;
}

/** A number for a table. */
export function fixed(value: number, digits = 0): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

const running = new Set<ChildProcess>();
// A benchmark that fails midway must not leave its HTTP servers behind (they outlive a closed
// stdin): every process started here is killed when this one exits.
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** Starts a process and resolves with the URL it reports (stdout JSON or the gateway's stderr line). */
export function startServer(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let text = '';
    const seen = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const gateway = /listening on (http:\/\/\S+)/.exec(text);
      if (gateway?.[1] !== undefined) resolve({ child, url: gateway[1] });
      const direct = /\{"port":(\d+)\}/.exec(text);
      if (direct?.[1] !== undefined) resolve({ child, url: `http://127.0.0.1:${direct[1]}/mcp` });
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('exit', () => {
      running.delete(child);
      reject(new Error(`server exited: ${text}`));
    });
  });
}

/**
 * Other builds' gateways to measure beside this one, from `COMPARE_CLI` (paths to their
 * `dist/cli/main.js`, separated by commas), each with a short label: its checkout's directory.
 */
export function compareClis(): { readonly label: string; readonly cli: string }[] {
  return (process.env['COMPARE_CLI'] ?? '')
    .split(',')
    .filter((path) => path !== '')
    .map((cli) => ({ label: `gw ${cli.split('/').slice(-4, -3).join('')}`.slice(0, 22), cli }));
}
