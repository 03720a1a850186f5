/**
 * Gateway cold start and memory, and a slow server at start:
 *
 * - cold start: from spawning `hintgate serve` in front of 10 servers (100 tools each) to the
 *   first tools/list holding all 1,000 tools, against connecting to the same 10 servers
 *   directly (10 clients at once) until each has listed its tools; the same build run from
 *   its modules (`HINTGATE_BUNDLE=off`) beside it from its bundle; `COMPARE_CLI` (paths to
 *   other builds' `dist/cli/main.js`, comma-separated) adds those builds to every round;
 * - memory: the gateway's resident set after start, and after 5,000 calls, beside one of its
 *   servers' (a node process running the SDK) for scale;
 * - a slow server: 10 quick servers and one that takes 5 s to start; how soon a client can
 *   list the quick servers' tools, and when the slow one's join.
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/gateway-start.js
 *
 * `PARTS` (comma-separated: cold, memory, slow) runs some of them only.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import {
  CLI,
  LOOSE,
  callEcho,
  compareClis,
  fixed,
  fixture,
  machine,
  median,
  requireBuild,
  rssMiB,
  storeProcessOf,
  writeConfig,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
/** Which parts to run (`PARTS=cold` for the cold start alone); all three by default. */
const PARTS = new Set((process.env['PARTS'] ?? 'cold,memory,slow').split(','));

const serverArgs = (index: number) => [
  fixture('generator'),
  '--tools',
  '100',
  '--offset',
  String(index * 100),
];
const servers = Object.fromEntries(
  Array.from({ length: 10 }, (_, index) => [
    `s${index}`,
    { command: process.execPath, args: serverArgs(index), era: 'legacy' },
  ]),
);

async function listCount(client: Client): Promise<number> {
  return (
    (await client.request({ method: 'tools/list', params: {} }, LOOSE)) as { tools: unknown[] }
  ).tools.length;
}

async function gatewayColdStart(
  config: string,
  cli = CLI,
  env: Record<string, string> = {},
): Promise<number> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'serve', '--config', config],
      stderr: 'ignore',
      env: { ...getDefaultEnvironment(), ...env },
    }),
  );
  while ((await listCount(client)) < 1000) await new Promise((resolve) => setTimeout(resolve, 5));
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

async function directColdStart(): Promise<number> {
  const started = performance.now();
  const clients = await Promise.all(
    Array.from({ length: 10 }, async (_, index) => {
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: serverArgs(index),
          stderr: 'ignore',
        }),
      );
      await listCount(client);
      return client;
    }),
  );
  const elapsed = performance.now() - started;
  await Promise.all(clients.map((client) => client.close()));
  return elapsed;
}

function storeRss(gateway: number): number {
  const pid = storeProcessOf(gateway);
  if (pid === undefined) return 0;
  try {
    return rssMiB(pid);
  } catch {
    return 0;
  }
}

function peakMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/**
 * Memory of the gateway process and of its embedded store's process: the first run (a fresh
 * data directory: peaks, sampled every 50 ms for the store), after start, after 5,000
 * calls, and once the store has been idle past its 30 s; with `BENCH_PG_URL` set, the
 * gateway with a PostgreSQL store beside it.
 */
async function memory(): Promise<void> {
  const config = writeConfig(servers);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--config', config],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  let storePeak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      if (transport.pid !== null) storePeak = Math.max(storePeak, storeRss(transport.pid));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await client.connect(transport);
  while ((await listCount(client)) < 1000) await new Promise((resolve) => setTimeout(resolve, 5));
  const pid = transport.pid as number;
  // The first run's store closes after creating its database; give the sampler its peak.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const line = (label: string) =>
    `${label}: gateway ${fixed(rssMiB(pid))} MiB + store ${fixed(storeRss(pid))} MiB`;
  console.log(`\nmemory (10 servers, 1,000 tools; RSS):`);
  console.log(line('  after the first start'));
  for (let index = 0; index < 5000; index++)
    await callEcho(client, `s${index % 10}_t_get_user_${(index % 10) * 100}`);
  console.log(line('  after 5,000 calls'));
  sampling = false;
  await sampler;
  console.log(
    `  first-run peaks: gateway ${fixed(peakMiB(pid))} MiB, store process ${fixed(storePeak)} MiB (sampled)`,
  );
  await new Promise((resolve) => setTimeout(resolve, 32_000));
  console.log(line('  idle 32 s later'));
  await client.close();

  const pg = process.env['BENCH_PG_URL'];
  if (pg !== undefined) {
    const withPg = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--config', config, '--store', pg],
      stderr: 'ignore',
    });
    const pgClient = new Client({ name: 'bench', version: '1' });
    await pgClient.connect(withPg);
    while ((await listCount(pgClient)) < 1000)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    console.log(`  with PostgreSQL instead: gateway ${fixed(rssMiB(withPg.pid as number))} MiB`);
    await pgClient.close();
  }

  const direct = new StdioClientTransport({
    command: process.execPath,
    args: serverArgs(0),
    stderr: 'ignore',
  });
  const single = new Client({ name: 'bench', version: '1' });
  await single.connect(direct);
  await listCount(single);
  console.log(`  one of its servers alone: ${fixed(rssMiB(direct.pid as number))} MiB`);
  await single.close();
}

async function slowServer(): Promise<void> {
  // Lists answer at once (no startup wait): the client polls, as one would after list_changed.
  const config = writeConfig(
    {
      ...servers,
      slow: {
        command: process.execPath,
        args: [fixture('generator'), '--tools', '100', '--prefix', 'z', '--delay-start', '5000'],
        era: 'legacy',
      },
    },
    { gateway: { startupWaitMs: 0 } },
  );
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--config', config],
      stderr: 'ignore',
    }),
  );
  let quickAt: number | undefined;
  let count = 0;
  while (count < 1100) {
    count = await listCount(client);
    if (count >= 1000 && quickAt === undefined) quickAt = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const allAt = performance.now() - started;
  console.log(
    `\nslow server (starts in 5 s): the 10 quick servers' 1,000 tools were listed ${fixed(quickAt ?? Number.NaN)} ms after the gateway was spawned; ` +
      `the slow server's 100 joined at ${fixed(allAt)} ms`,
  );
  await client.close();
}

async function coldStart(): Promise<void> {
  // This build and each COMPARE_CLI build, each on a data directory of its own, started once
  // before the rounds: a gateway's usual start follows an earlier run on the same store.
  // This build also from its modules rather than its bundle (src/cli/code-cache.ts).
  const gateways = [
    { label: 'gateway', cli: CLI, env: {} },
    { label: 'gateway from its modules', cli: CLI, env: { HINTGATE_BUNDLE: 'off' } },
    ...compareClis().map((build) => ({ ...build, env: {} })),
  ].map((build) => ({ ...build, config: writeConfig(servers), times: [] as number[] }));
  for (const build of gateways) await gatewayColdStart(build.config, build.cli, build.env);
  const direct: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    direct.push(await directColdStart());
    for (const build of gateways) {
      build.times.push(await gatewayColdStart(build.config, build.cli, build.env));
    }
  }
  console.log(
    `\ncold start to 1,000 tools listed (a start after an earlier run), 10 direct connections ${fixed(median(direct))} ms:`,
  );
  for (const build of gateways) {
    console.log(
      `  ${build.label}: ${fixed(median(build.times))} ms, ratio ${fixed(median(build.times) / median(direct), 2)}`,
    );
  }
}

requireBuild();
console.log(`gateway start and memory: ${machine()}, ${ROUNDS} rounds, medians`);
if (PARTS.has('cold')) await coldStart();
if (PARTS.has('memory')) await memory();
if (PARTS.has('slow')) await slowServer();
