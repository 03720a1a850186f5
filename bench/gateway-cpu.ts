/**
 * CPU per tools/call of each process on the call's path, for the HTTP and the stdio front, a
 * 2025 client (session) and a 2026 client (stateless): the gateway, its children (the echo
 * fixture server, the embedded store's process) and, as the baseline, the echo server called
 * directly (over HTTP) or through the byte relay and the JSON relay, which parses every
 * message (over stdio). CPU time is read from the kernel's per-thread run-time counters
 * (`/proc/<pid>/task/<tid>/schedstat`), so a loaded machine stretches it far less than it
 * stretches latency: this is the measure to compare builds with on a shared machine.
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/gateway-cpu.js
 *
 * `COMPARE_CLI=/other/checkout/dist/cli/main.js` (several: separated by commas) adds that
 * build's gateway, labelled by its checkout's directory. `FRONT=http` or `FRONT=stdio` runs one
 * front only; `CALLS` sequential calls per round (default 3000), `ROUNDS` rounds (default 3),
 * medians over rounds.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  CLI,
  LOOSE,
  ROOT,
  callEcho,
  fixed,
  fixture,
  machine,
  median,
  requireBuild,
  startServer,
  writeConfig,
  compareClis,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const CALLS = Number(process.env['CALLS'] ?? 3000);
const WARMUP = 500;
const COMPARE_CLIS = compareClis();
const FRONTS = (process.env['FRONT'] ?? 'http,stdio').split(',');

/**
 * Nanoseconds of CPU a process has used: its main thread, and its other threads (V8's
 * compiler and collector helpers, libuv's pool, worker threads) together; threads that ended
 * are not counted.
 */
function cpuNs(pid: number): { main: number; others: number } | undefined {
  let main = 0;
  let others = 0;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    // The process has ended (the embedded store's ends when idle).
    return undefined;
  }
  for (const tid of tids) {
    try {
      const used = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      if (tid === String(pid)) main += used;
      else others += used;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { main, others };
}

/** A process and its descendants, each with a short name. */
function tree(pid: number): { pid: number; name: string }[] {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  // The store process runs `node [options] -e <source>`, with no script file.
  const script =
    argv.find((arg) => /\.(m?js)$/.test(arg)) ??
    (argv.includes('-e') ? 'node -e' : (argv[0] ?? '?'));
  const name = script.split('/').slice(-2).join('/');
  const children: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text !== '') children.push(...text.split(' ').map(Number));
    } catch {
      // The thread ended.
    }
  }
  return [{ pid, name }, ...children.flatMap(tree)];
}

interface Target {
  readonly label: string;
  readonly tool: string;
  readonly client: Client;
  readonly pid: number;
  /** µs per call, per process name, one entry per round. */
  readonly rounds: Map<string, number>[];
}

async function openHttp(label: string, auto: boolean, args: string[], tool: string) {
  const { child, url } = await startServer(args);
  const client = new Client(
    { name: 'bench', version: '1' },
    auto ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.request({ method: 'tools/list', params: {} }, LOOSE);
  return { label, tool, client, pid: child.pid ?? -1, rounds: [] } satisfies Target;
}

async function openStdio(label: string, auto: boolean, args: string[], tool: string) {
  const client = new Client(
    { name: 'bench', version: '1' },
    auto ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    stderr: 'ignore',
  });
  await client.connect(transport);
  await client.request({ method: 'tools/list', params: {} }, LOOSE);
  return { label, tool, client, pid: transport.pid ?? -1, rounds: [] } satisfies Target;
}

async function measure(target: Target): Promise<void> {
  for (let index = 0; index < WARMUP; index++) await callEcho(target.client, target.tool);
  const processes = tree(target.pid);
  const before = processes.map(({ pid }) => cpuNs(pid));
  for (let index = 0; index < CALLS; index++) await callEcho(target.client, target.tool);
  const round = new Map<string, number>();
  processes.forEach(({ pid, name }, at) => {
    const after = cpuNs(pid);
    // A process that ended meanwhile is left out: what it used is not known.
    if (after === undefined) return;
    const { main, others } = before[at] ?? { main: 0, others: 0 };
    round.set(name, (round.get(name) ?? 0) + (after.main - main) / 1000 / CALLS);
    round.set(`${name}+`, (round.get(`${name}+`) ?? 0) + (after.others - others) / 1000 / CALLS);
  });
  target.rounds.push(round);
}

function report(title: string, targets: Target[]): void {
  console.log(`\n${title}: CPU µs per call, medians over rounds`);
  for (const target of targets) {
    const names = [...new Set(target.rounds.flatMap((round) => [...round.keys()]))];
    const cells = names.map(
      (name) => `${name} ${fixed(median(target.rounds.map((round) => round.get(name) ?? 0)))}`,
    );
    const total = median(
      target.rounds.map((round) => [...round.values()].reduce((a, b) => a + b, 0)),
    );
    console.log(
      `${target.label.padEnd(22)} total ${fixed(total).padStart(5)}   ${cells.join('   ')}`,
    );
  }
}

async function run(front: 'http' | 'stdio', era: 'legacy' | 'modern'): Promise<void> {
  const auto = era === 'modern';
  const config = (): string =>
    writeConfig({
      // The default era (auto): the gateway speaks 2026 to the server whatever its client speaks.
      echo: { command: process.execPath, args: [fixture('echo')] },
    });
  const gateways: [string, string][] = [
    ['gateway', CLI],
    ...COMPARE_CLIS.map(({ label, cli }): [string, string] => [label, cli]),
  ];
  const targets: Target[] = [];
  if (front === 'http') {
    targets.push(await openHttp('direct HTTP', auto, [fixture('echo'), '--http', '0'], 'echo'));
    for (const [label, cli] of gateways)
      targets.push(
        await openHttp(
          label,
          auto,
          [cli, 'serve', '--config', config(), '--http', '127.0.0.1:0', '--no-auth'],
          'echo_echo',
        ),
      );
  } else {
    // The relay that copies bytes, and the one that parses every message both ways and
    // writes it again (see gateway-stdio.ts).
    for (const [label, relay] of [
      ['byte relay', 'relay.mjs'],
      ['JSON relay', 'json-relay.mjs'],
    ] as const)
      targets.push(
        await openStdio(label, auto, [join(ROOT, 'bench', relay), fixture('echo')], 'echo'),
      );
    for (const [label, cli] of gateways)
      targets.push(await openStdio(label, auto, [cli, 'serve', '--config', config()], 'echo_echo'));
  }
  for (let round = 0; round < ROUNDS; round++) for (const target of targets) await measure(target);
  report(`${front}, ${era === 'legacy' ? '2025-11-25 client' : '2026-07-28 client'}`, targets);
  for (const target of targets) await target.client.close();
}

process.removeAllListeners('warning');
requireBuild();
console.log(`${machine()}, ${ROUNDS} rounds x ${CALLS} sequential calls`);
for (const front of FRONTS) {
  if (front !== 'http' && front !== 'stdio') throw new Error(`FRONT: unknown front "${front}"`);
  await run(front, 'legacy');
  await run(front, 'modern');
}
process.exit(0);
