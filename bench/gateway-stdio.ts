/**
 * tools/call through the gateway's stdio front against the same fixture echo server called
 * directly over stdio, in the same run: latency p50/p99 of sequential calls and throughput
 * with 32 calls in flight, for a 2025 client (legacy handshake) and a 2026 client
 * (negotiated), with the fast path and, for comparison, with every request through the SDK
 * (`--no-fast-path`). Latency is measured twice: with a loose `request()` (the leanest client
 * path, so the gateway's share is largest) and with the SDK's typed `callTool()`.
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/gateway-stdio.js
 *
 * With 32 in flight it also reports CPU time per call: the process's own (the gateway's, the
 * relay's, or the server's for direct) and, for the gateway, its embedded store's: over the
 * whole round per call of the round, the audit journal's copy into the database included
 * (it runs once the gateway has been quiet for 10 s, and each setup waits for it before the
 * next runs).
 *
 * Goals: p50 at most 1.15 times the byte relay (one extra process copying bytes, reading
 * nothing: the floor any relay pays), throughput with 32 in flight at least 0.8 of it. The
 * JSON relay (`bench/json-relay.mjs`: parses every message both ways, gives requests ids of
 * its own and writes each serialized again) is the floor of a relay that reads what passes,
 * as a gateway must: what it costs beyond the byte relay is the price of reading at all.
 *
 * `COMPARE_CLI=/other/checkout/dist/cli/main.js` (several: separated by commas) adds that build's
 * gateway to every round, labelled by its checkout's directory, so
 * a change is compared with the code before it in one run rather than across noisy runs.
 * `PAYLOAD=1024` gives every call 1 KiB of text, as the shared harness does (see
 * `gateway-harness.ts`).
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  CLI,
  ROOT,
  callEcho,
  cpuMicros,
  dataDirOf,
  fixed,
  fixture,
  machine,
  median,
  quantile,
  requireBuild,
  sequential,
  settleStore,
  storeCpuMicros,
  throughput,
  writeConfig,
  compareClis,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const CALLS = Number(process.env['CALLS'] ?? 1500);
const WARMUP = 300;
const COMPARE_CLIS = compareClis();
/** `SDK_PATH=0` leaves out the gateway with every request through the SDK (a shorter run). */
const SDK_PATH = process.env['SDK_PATH'] !== '0';

/**
 * Calls with 32 in flight per round. The first few thousand of a burst after sequential calls
 * cost a gateway more than the rest; `BURST=20000` shows the steady state.
 */
const BURST = Number(process.env['BURST'] ?? 4000);
/** The calls of one setup in one round: two sequential runs with their warm-ups, and the burst. */
const ROUND_CALLS = 2 * (CALLS + WARMUP) + BURST;

interface Setup {
  readonly label: string;
  readonly tool: string;
  readonly client: Client;
  readonly p50: number[];
  readonly p99: number[];
  /** p50 with the SDK's typed `callTool()`, what most clients use. */
  readonly typed: number[];
  readonly rate: number[];
  /** The process the client spawned (the server, the relay, or the gateway). */
  readonly pid: number;
  /** A gateway's data directory (its store's audit journal is waited for). */
  readonly dataDir: string | undefined;
  /** CPU µs per call of that process, and of the gateway's store process, with 32 in flight. */
  readonly cpu: number[];
  readonly storeCpu: number[];
}

async function open(label: string, auto: boolean, args: string[], tool: string): Promise<Setup> {
  const config = args.indexOf('--config');
  const dataDir = config === -1 ? undefined : dataDirOf(args[config + 1]!);
  const client = new Client(
    { name: 'bench', version: '1' },
    auto ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error(`${label}: no process`);
  await client.request(
    { method: 'tools/list', params: {} },
    (await import('./gateway-harness.js')).LOOSE,
  );
  return {
    label,
    tool,
    client,
    p50: [],
    p99: [],
    typed: [],
    rate: [],
    pid,
    dataDir,
    cpu: [],
    storeCpu: [],
  };
}

async function runEra(era: 'legacy' | 'modern'): Promise<void> {
  const auto = era === 'modern';
  // One config (and data directory) per gateway: each holds its embedded store's lock.
  const config = (policy: Record<string, unknown> = {}): string =>
    writeConfig(
      {
        // The default era (auto): the gateway speaks 2026 to the server whatever its client speaks.
        echo: { command: process.execPath, args: [fixture('echo')] },
      },
      { policy },
    );
  const setups = [
    await open('direct', auto, [fixture('echo')], 'echo'),
    // One extra process copying bytes both ways: what any relay costs before doing anything.
    await open(
      'byte relay (floor)',
      auto,
      [join(ROOT, 'bench', 'relay.mjs'), fixture('echo')],
      'echo',
    ),
    // One extra process that reads every message (parses it, gives it ids of its own, writes
    // it serialized again): the floor of a relay that must know what passes through it.
    await open(
      'JSON relay',
      auto,
      [join(ROOT, 'bench', 'json-relay.mjs'), fixture('echo')],
      'echo',
    ),
    await open('gateway', auto, [CLI, 'serve', '--config', config()], 'echo_echo'),
    ...(await Promise.all(
      COMPARE_CLIS.map(({ label, cli }) =>
        open(label, auto, [cli, 'serve', '--config', config()], 'echo_echo'),
      ),
    )),
    // The audit log's inserts take CPU (on the store's own thread) that 2 cores share with
    // the client and the server: the same gateway without it shows how much.
    await open(
      'gateway, audit off',
      auto,
      [CLI, 'serve', '--config', config({ audit: { enabled: false } })],
      'echo_echo',
    ),
    ...(SDK_PATH
      ? [
          await open(
            'gateway, SDK path',
            auto,
            [CLI, 'serve', '--no-fast-path', '--config', config()],
            'echo_echo',
          ),
        ]
      : []),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of setups) {
      const storeCpu = storeCpuMicros(setup.pid);
      const call = () => callEcho(setup.client, setup.tool);
      const times = await sequential(call, CALLS, WARMUP);
      setup.p50.push(quantile(times, 0.5));
      setup.p99.push(quantile(times, 0.99));
      const typed = await sequential(
        (index) => setup.client.callTool({ name: setup.tool, arguments: { text: `t${index}` } }),
        CALLS,
        WARMUP,
      );
      setup.typed.push(quantile(typed, 0.5));
      const cpu = cpuMicros(setup.pid);
      setup.rate.push(await throughput(call, BURST, 32));
      // The audit records of the last calls are written within the flush window.
      await new Promise((resolve) => setTimeout(resolve, 500));
      setup.cpu.push((cpuMicros(setup.pid) - cpu) / BURST);
      // The store's CPU over the whole round, its audit journal copied (after the calls, once
      // the gateway is quiet), per call of the round.
      if (setup.dataDir !== undefined) await settleStore(setup.pid, setup.dataDir);
      setup.storeCpu.push((storeCpuMicros(setup.pid) - storeCpu) / ROUND_CALLS);
    }
  }
  const [direct, relay] = setups;
  if (direct === undefined || relay === undefined) return;
  console.log(
    `\n${era === 'legacy' ? '2025-11-25 client (initialize)' : '2026-07-28 client (negotiated)'}`,
  );
  console.log('                      request()                         callTool()');
  console.log(
    'setup                 p50 µs   p99 µs   p50 ratio       p50 µs   p50 ratio     calls/s (32 in flight)   throughput ratio   p50 x relay   throughput x relay   CPU µs/call   store CPU µs/call',
  );
  for (const setup of setups) {
    const p50 = median(setup.p50);
    const typed = median(setup.typed);
    const rate = median(setup.rate);
    const cells = [
      setup.label.padEnd(22),
      fixed(p50 * 1000).padStart(7),
      fixed(median(setup.p99) * 1000).padStart(8),
      fixed(p50 / median(direct.p50), 2).padStart(11),
      fixed(typed * 1000).padStart(12),
      fixed(typed / median(direct.typed), 2).padStart(11),
      fixed(rate).padStart(17),
      fixed(rate / median(direct.rate), 2).padStart(25),
      // The goals: p50 at most 1.15 times the byte relay's, throughput at least 0.8 of it.
      fixed(p50 / median(relay.p50), 2).padStart(13),
      fixed(rate / median(relay.rate), 2).padStart(20),
      // The process's own CPU per call with 32 in flight (the server's, for direct), and the
      // embedded store's process's: CPU time, which a loaded machine changes less than speed.
      fixed(median(setup.cpu), 1).padStart(13),
      fixed(median(setup.storeCpu), 1).padStart(19),
    ];
    console.log(cells.join(' '));
  }
  for (const setup of setups) await setup.client.close();
}

requireBuild();
console.log(
  `gateway stdio front vs direct stdio: ${machine()}, ${ROUNDS} rounds x ${CALLS} sequential calls + ${BURST} calls with 32 in flight, medians over rounds`,
);
await runEra('legacy');
await runEra('modern');
