/**
 * Memory of the gateway and its embedded store's process, with the default config (embedded
 * store, audit on) in front of the fixture echo server:
 *
 * - first run: from spawning `hintgate serve --http` on an empty data directory until it
 *   listens and has answered a tools/list, and 2 s more: start time (to that answer), and
 *   the peaks of the gateway, of its store process (which creates the database: from the
 *   template `npm run build` makes, or by initdb without one) and of their sum;
 * - under load: the same data directory opened again, 32 HTTP clients (half 2025-11-25 with
 *   sessions, half 2026-07-28 stateless) calling a tool concurrently until `CALLS` calls are
 *   done: resident memory when idle, the peaks of each process and of their sum, and calls/s.
 *
 * Both processes are sampled every 100 ms (/proc/<pid>/status: VmRSS for the sum, VmHWM for
 * each process's own peak, so a peak between samples is not missed).
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/gateway-http-memory.js
 *
 * Goal: at most 300 MiB for the gateway and its store process together, on the first run and
 * under load. After the load, until the embedded store has copied the calls' audit journal
 * into its database (its process runs again then), the sum is sampled too: "copy sum".
 *
 * `COMPARE_CLI=/other/checkout/dist/cli/main.js` (several: separated by commas) adds that
 * build's gateway to every round, labelled by its checkout's directory, so settings are
 * compared in one run rather than across noisy runs.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  CLI,
  LOOSE,
  callEcho,
  fixed,
  fixture,
  machine,
  median,
  requireBuild,
  startServer,
  writeConfig,
  compareClis,
  dataDirOf,
  settleStore,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const CALLS = Number(process.env['CALLS'] ?? 20_000);
const CLIENTS = 32;
const SAMPLE_MS = 100;
/** How long an idle gateway is left before its resident memory counts as idle. */
const SETTLE_MS = 2_000;
/** `GATEWAY_FLAGS="--trace-gc …"`: node options for every gateway under test (not its store process). */
const GATEWAY_FLAGS = (process.env['GATEWAY_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
const COMPARE_CLIS = compareClis();

/** VmRSS and VmHWM of one process in MiB (both 0 once it is gone). */
function memory(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** The gateway's children running `node -e` (its store process; a first run may have two in turn). */
function storeProcesses(gateway: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${gateway}/task/${gateway}/children`, 'utf8')
      .split(' ')
      .filter((text) => text.trim() !== '')
      .map(Number);
  } catch {
    return [];
  }
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('-e');
    } catch {
      return false;
    }
  });
}

/** Peaks seen by a {@link Sampler} (MiB). */
interface Peaks {
  readonly gateway: number;
  readonly store: number;
  readonly sum: number;
  /** The gateway's and the store's resident memory in the sample of the sum's peak. */
  readonly atSum: { readonly gateway: number; readonly store: number };
}

/** Samples a gateway and its store process every {@link SAMPLE_MS} until stopped. */
class Sampler {
  #gateway = 0;
  #sum = 0;
  #atSum = { gateway: 0, store: 0 };
  readonly #stores = new Map<number, number>();
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.sample();
    this.#timer = setInterval(() => this.sample(), SAMPLE_MS);
  }

  /** Takes one sample now. */
  sample(): { gateway: number; store: number } {
    const gateway = memory(this.pid);
    this.#gateway = Math.max(this.#gateway, gateway.hwm);
    let store = 0;
    for (const pid of storeProcesses(this.pid)) {
      const { rss, hwm } = memory(pid);
      store += rss;
      this.#stores.set(pid, Math.max(this.#stores.get(pid) ?? 0, hwm));
    }
    if (gateway.rss + store > this.#sum) {
      this.#sum = gateway.rss + store;
      this.#atSum = { gateway: gateway.rss, store };
    }
    return { gateway: gateway.rss, store };
  }

  /** Stops sampling, with the peaks seen (the store's: its largest process's). */
  stop(): Peaks {
    this.sample();
    clearInterval(this.#timer);
    return {
      gateway: this.#gateway,
      store: Math.max(0, ...this.#stores.values()),
      sum: this.#sum,
      atSum: this.#atSum,
    };
  }
}

/** Figures of one setup over the rounds. */
interface Setup {
  readonly label: string;
  readonly cli: string;
  readonly firstStartMs: number[];
  readonly first: Peaks[];
  readonly idleGateway: number[];
  readonly idleStore: number[];
  readonly load: Peaks[];
  /** After the load, until the audit journal has been copied into the database. */
  readonly copy: Peaks[];
  readonly rate: number[];
}

function serveArgs(cli: string, config: string): string[] {
  return [...GATEWAY_FLAGS, cli, 'serve', '--config', config, '--http', '127.0.0.1:0', '--no-auth'];
}

async function connect(url: string, modern: boolean): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '1' },
    modern ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.request({ method: 'tools/list', params: {} }, LOOSE);
  return client;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const spawned = new Set<ChildProcess>();
// A run that fails midway must not leave its gateways behind.
process.on('exit', () => {
  for (const child of spawned) child.kill('SIGTERM');
});

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 32 clients calling concurrently on a gateway over an existing data directory. */
async function underLoad(setup: Setup, config: string): Promise<void> {
  const { child, url } = await startServer(serveArgs(setup.cli, config));
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, (_, index) => connect(url, index % 2 === 1)),
  );
  await delay(SETTLE_MS);
  const pid = child.pid ?? 0;
  const sampler = new Sampler(pid);
  const idle = sampler.sample();
  setup.idleGateway.push(idle.gateway);
  setup.idleStore.push(idle.store);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next++ < CALLS) await callEcho(client, 'echo_echo');
    }),
  );
  setup.rate.push(CALLS / ((performance.now() - started) / 1000));
  // The audit log's last batches are written after the calls have answered.
  await delay(SETTLE_MS);
  setup.load.push(sampler.stop());
  // The embedded store copies the calls' audit journal into its database once the gateway
  // has been quiet for a while: its process runs then, beside a gateway not yet shrunk.
  const copying = new Sampler(pid);
  await settleStore(pid, dataDirOf(config));
  setup.copy.push(copying.stop());
  await Promise.all(clients.map((client) => client.close()));
  await stop(child);
}

/**
 * A first run on an empty data directory: start time and peaks, sampled from the gateway's
 * spawn (the store is created before it listens); returns the config for the load.
 */
async function firstRun(setup: Setup): Promise<string> {
  const config = writeConfig({
    echo: { command: process.execPath, args: [fixture('echo')], era: 'auto' },
  });
  const started = performance.now();
  const child = spawn(process.execPath, serveArgs(setup.cli, config), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  spawned.add(child);
  const sampler = new Sampler(child.pid ?? 0);
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const found = /listening on (http:\/\/\S+)/.exec(text);
      if (found?.[1] !== undefined) resolve(found[1]);
    });
    child.once('exit', () => reject(new Error(`gateway exited: ${text}`)));
  });
  const client = await connect(url, false);
  setup.firstStartMs.push(performance.now() - started);
  await client.close();
  await delay(SETTLE_MS);
  setup.first.push(sampler.stop());
  await stop(child);
  return config;
}

function row(label: string, values: readonly string[]): string {
  return `${label.padEnd(22)} ${values.map((value) => value.padStart(10)).join(' ')}`;
}

requireBuild();
// The SDK's HTTP client adds a listener per request to a shared signal in 2026 mode and warns
// about it at 32 in flight; the warning is noise here.
process.removeAllListeners('warning');
console.log(
  `gateway + store process memory: ${machine()}, ${ROUNDS} rounds; load: ${CLIENTS} HTTP clients (half sessions, half stateless), ${CALLS} calls; medians over rounds (MiB)`,
);
const setups: Setup[] = [{ label: 'gateway', cli: CLI }, ...COMPARE_CLIS].map((base) => ({
  ...base,
  firstStartMs: [],
  first: [],
  idleGateway: [],
  idleStore: [],
  load: [],
  copy: [],
  rate: [],
}));
for (let round = 0; round < ROUNDS; round++) {
  for (const setup of setups) {
    const config = await firstRun(setup);
    await underLoad(setup, config);
  }
}
const peak = (list: readonly Peaks[], key: 'gateway' | 'store' | 'sum') =>
  fixed(median(list.map((p) => p[key])));
const part = (list: readonly Peaks[], key: 'gateway' | 'store') =>
  fixed(median(list.map((p) => p.atSum[key])));
console.log('\nfirst run (empty data directory)');
console.log(row('setup', ['start ms', 'gateway', 'store', 'sum']));
for (const setup of setups) {
  console.log(
    row(setup.label, [
      fixed(median(setup.firstStartMs)),
      peak(setup.first, 'gateway'),
      peak(setup.first, 'store'),
      peak(setup.first, 'sum'),
    ]),
  );
}
console.log(`\nunder load (${CLIENTS} clients)`);
console.log(
  row('setup', [
    'idle gw',
    'idle store',
    'peak gw',
    'peak store',
    'peak sum',
    'calls/s',
    'copy sum',
    '(gw',
    'store)',
  ]),
);
for (const setup of setups) {
  console.log(
    row(setup.label, [
      fixed(median(setup.idleGateway)),
      fixed(median(setup.idleStore)),
      peak(setup.load, 'gateway'),
      peak(setup.load, 'store'),
      peak(setup.load, 'sum'),
      fixed(median(setup.rate)),
      // Gateway and store while the journal is copied after the load (resident, not peaks
      // since start: the gateway's own peak is the load's).
      peak(setup.copy, 'sum'),
      part(setup.copy, 'gateway'),
      part(setup.copy, 'store'),
    ]),
  );
}
if (process.env['VERBOSE'] === '1') {
  for (const setup of setups) {
    console.log(setup.label, 'sum peaks', setup.load.map((p) => fixed(p.sum)).join(' '));
    const copies = setup.copy.map(
      (p) => `${fixed(p.sum)} (${fixed(p.atSum.gateway)} + ${fixed(p.atSum.store)})`,
    );
    console.log(setup.label, 'copy sums', copies.join(', '));
  }
}
