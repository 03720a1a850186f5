/**
 * tools/call through the gateway's streamable HTTP front (the gateway reaching the fixture
 * echo server over stdio) against the same fixture server served directly over streamable
 * HTTP (the same hono + SDK transport stack), in the same run: latency p50/p99 of
 * sequential calls and throughput with 32 calls in flight, for a 2025 client (session) and
 * a 2026 client (stateless); and, for comparison, the gateway with every request through the
 * SDK (`--no-fast-path`).
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/gateway-http.js
 *
 * Goal: p50 at most 1.15 times direct.
 *
 * `COMPARE_CLI=/other/checkout/dist/cli/main.js` (several: separated by commas) adds that build's
 * gateway to every round, labelled by its checkout's directory, so
 * a change is compared with the code before it in one run rather than across noisy runs.
 */
import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  CLI,
  LOOSE,
  callEcho,
  fixed,
  fixture,
  machine,
  median,
  quantile,
  requireBuild,
  sequential,
  startServer,
  throughput,
  writeConfig,
  compareClis,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const CALLS = Number(process.env['CALLS'] ?? 800);
const WARMUP = 200;
const COMPARE_CLIS = compareClis();
/** `SDK_PATH=0` leaves out the gateway with every request through the SDK (a shorter run). */
const SDK_PATH = process.env['SDK_PATH'] !== '0';

const BURST = 2000;

interface Setup {
  readonly label: string;
  readonly tool: string;
  readonly client: Client;
  readonly child: ChildProcess;
  readonly p50: number[];
  readonly p99: number[];
  readonly rate: number[];
}

async function open(label: string, auto: boolean, args: string[], tool: string): Promise<Setup> {
  const { child, url } = await startServer(args);
  const client = new Client(
    { name: 'bench', version: '1' },
    auto ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.request({ method: 'tools/list', params: {} }, LOOSE);
  return { label, tool, client, child, p50: [], p99: [], rate: [] };
}

async function runEra(era: 'legacy' | 'modern'): Promise<void> {
  const auto = era === 'modern';
  // One config (and data directory) per gateway: each holds its embedded store's lock.
  const config = (): string =>
    writeConfig({
      // The default era (auto): the gateway speaks 2026 to the server whatever its client speaks.
      echo: { command: process.execPath, args: [fixture('echo')] },
    });
  const setups = [
    await open('direct HTTP', auto, [fixture('echo'), '--http', '0'], 'echo'),
    await open(
      'gateway HTTP',
      auto,
      [CLI, 'serve', '--config', config(), '--http', '127.0.0.1:0', '--no-auth'],
      'echo_echo',
    ),
    ...(await Promise.all(
      COMPARE_CLIS.map(({ label, cli }) =>
        open(
          label,
          auto,
          [cli, 'serve', '--config', config(), '--http', '127.0.0.1:0', '--no-auth'],
          'echo_echo',
        ),
      ),
    )),
    ...(SDK_PATH
      ? [
          await open(
            'gateway, SDK path',
            auto,
            [
              CLI,
              'serve',
              '--no-fast-path',
              '--config',
              config(),
              '--http',
              '127.0.0.1:0',
              '--no-auth',
            ],
            'echo_echo',
          ),
        ]
      : []),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts one setup later: a gateway's background work after its turn (the
    // embedded store copying the audit journal 10 s later) falls on a different setup's
    // turn each round, not always on the same one.
    const turn = round % setups.length;
    for (const setup of [...setups.slice(turn), ...setups.slice(0, turn)]) {
      const call = () => callEcho(setup.client, setup.tool);
      const times = await sequential(call, CALLS, WARMUP);
      setup.p50.push(quantile(times, 0.5));
      setup.p99.push(quantile(times, 0.99));
      setup.rate.push(await throughput(call, BURST, 32));
    }
  }
  const [direct] = setups;
  if (direct === undefined) return;
  if (process.env['VERBOSE'] === '1') {
    for (const setup of setups)
      console.log(setup.label, setup.p50.map((value) => fixed(value * 1000)).join(' '));
  }
  console.log(
    `\n${era === 'legacy' ? '2025-11-25 client (session)' : '2026-07-28 client (stateless)'}`,
  );
  console.log(
    'setup                 p50 µs   p99 µs   calls/s (32 in flight)   p50 ratio   throughput ratio',
  );
  for (const setup of setups) {
    const p50 = median(setup.p50);
    const rate = median(setup.rate);
    console.log(
      `${setup.label.padEnd(22)} ${fixed(p50 * 1000).padStart(7)} ${fixed(median(setup.p99) * 1000).padStart(8)} ${fixed(rate).padStart(12)}             ${fixed(p50 / median(direct.p50), 2).padStart(9)} ${fixed(rate / median(direct.rate), 2).padStart(18)}`,
    );
  }
  for (const setup of setups) {
    await setup.client.close();
    setup.child.kill('SIGTERM');
  }
}

// The SDK's HTTP client adds a listener per request to a shared signal in 2026 mode and warns
// about it at 32 in flight; the warning is noise here.
process.removeAllListeners('warning');
requireBuild();
console.log(
  `gateway HTTP front vs the server over HTTP directly: ${machine()}, ${ROUNDS} rounds x ${CALLS} sequential calls + ${BURST} calls with 32 in flight, medians over rounds`,
);
await runEra('legacy');
await runEra('modern');
