/**
 * The cost of the call path's steps (audit, policy, confirm, cache, rate limit, retry,
 * route around resolve, annotate and forward), in the same run:
 *
 * 1. tools/call p50 through a gateway with every step on (a read-only tool: no confirmation
 *    needed; every call a cache miss, stored; every call audited) against the same gateway
 *    with `policy.passthrough` (each step only calls `next`), and with audit alone off.
 *    Goal: at most 1.1 times the pass-through gateway.
 * 2. Audit off the critical path, in process: the audit step over a store whose writes take
 *    50 ms each, against no audit step at all; the call's latency must not move.
 * 3. A cache hit against the uncached call of a tool that takes 5 ms. Goal: at least 10 times
 *    faster.
 * 4. The steps' own CPU per call, in process, every step on vs passing through (the
 *    collector's work included: what a call keeps alive costs it there).
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/pipeline.js
 *
 * `PAYLOAD=1024` gives every call a text of that many characters (as the shared harness
 * does); `PARTS=4` runs only the listed parts (comma-separated numbers).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  CLI,
  LOOSE,
  ROOT,
  echoText,
  fixed,
  fixture,
  machine,
  median,
  quantile,
  requireBuild,
  sequential,
  writeConfig,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 25);
const CALLS = Number(process.env['CALLS'] ?? 400);
const WARMUP = 100;

interface Setup {
  readonly label: string;
  readonly client: Client;
  readonly config: string;
  readonly p50: number[];
  readonly p99: number[];
}

/** A PostgreSQL server for the store variant (its own schema, dropped at the end), if any. */
const PG_URL = process.env['HINTGATE_BENCH_PG_URL'] ?? process.env['HINTGATE_TEST_PG_URL'];
const PG_SCHEMA = `hg_bench_${process.pid}`;

async function open(
  label: string,
  policy: Record<string, unknown>,
  rest: Record<string, unknown> = {},
): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'hintgate-bench-state-'));
  const config = writeConfig(
    {
      echo: { command: process.execPath, args: [fixture('echo')], era: 'legacy' },
      counter: {
        command: process.execPath,
        args: [fixture('counter'), '--state', join(dir, 'state.json')],
        era: 'legacy',
      },
    },
    { policy, ...rest },
  );
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--config', config],
      stderr: 'ignore',
    }),
  );
  await client.request({ method: 'tools/list', params: {} }, LOOSE);
  return { label, client, config, p50: [], p99: [] };
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.request({ method: 'tools/call', params: { name, arguments: args } }, LOOSE);

/** Audit records a gateway wrote, read through its admin endpoint by the CLI, page by page. */
function auditCount(config: string): number {
  let count = 0;
  let until: string | undefined;
  for (;;) {
    const out = execFileSync(
      process.execPath,
      [
        CLI,
        'audit',
        '--config',
        config,
        '--json',
        '--limit',
        '10000',
        '--since',
        '1h',
        ...(until === undefined ? [] : ['--until', until]),
      ],
      { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
    );
    const page = JSON.parse(out) as { time: string }[];
    count += page.length;
    if (page.length < 10_000) return count;
    // Records share milliseconds: drop the oldest page's last millisecond and read it again.
    const oldest = page.at(-1)?.time ?? '';
    count -= page.filter((record) => record.time === oldest).length;
    until = new Date(Date.parse(oldest) + 1).toISOString();
    if (page.every((record) => record.time === oldest)) return count;
  }
}

async function pipelineCost(): Promise<void> {
  const setups = [
    await open('pass-through', { passthrough: true }),
    await open('every step on', {}),
    await open('every step on, audit off', { audit: { enabled: false } }),
    ...(PG_URL === undefined
      ? []
      : [await open('every step on, PostgreSQL', {}, { store: `${PG_URL}?schema=${PG_SCHEMA}` })]),
  ];
  let sequence = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of setups) {
      const times = await sequential(
        // Distinct arguments: every call is a cache miss that is then stored.
        () => call(setup.client, 'echo_echo', { text: `x${sequence++}` }),
        CALLS,
        WARMUP,
      );
      setup.p50.push(quantile(times, 0.5));
      setup.p99.push(quantile(times, 0.99));
    }
  }
  const base = setups[0]?.p50 ?? [];
  console.log('\n1. tools/call (read-only echo, 2025 client over stdio), medians over rounds');
  console.log(
    'setup                        p50 µs   p99 µs   p50 ratio to pass-through (median of rounds)',
  );
  for (const setup of setups) {
    // Each round measures every setup back to back: the ratio within a round is the least
    // disturbed by a shared machine's drift.
    const ratios = setup.p50.map((p50, round) => p50 / (base[round] ?? Number.NaN));
    console.log(
      [
        setup.label.padEnd(27),
        fixed(median(setup.p50) * 1000).padStart(7),
        fixed(median(setup.p99) * 1000).padStart(8),
        fixed(median(ratios), 3).padStart(12),
      ].join(' '),
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 600));
  const made = ROUNDS * (CALLS + WARMUP);
  for (const setup of setups.filter((candidate) => candidate.label !== 'pass-through')) {
    if (setup.label.includes('audit off')) continue;
    console.log(
      `audit records written by "${setup.label}": ${auditCount(setup.config)} of ${made} calls`,
    );
  }
  for (const setup of setups) await setup.client.close();
  if (PG_URL !== undefined) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
    await client.end();
  }
}

async function cacheHit(): Promise<void> {
  const setup = await open('cache', {});
  const uncached: number[] = [];
  const hit: number[] = [];
  let sequence = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const misses = await sequential(
      () => call(setup.client, 'counter_slow_read', { key: `k${sequence++}`, ms: 5 }),
      200,
      20,
    );
    uncached.push(quantile(misses, 0.5));
    const hits = await sequential(
      () => call(setup.client, 'counter_slow_read', { key: 'same', ms: 5 }),
      2000,
      50,
    );
    hit.push(quantile(hits, 0.5));
  }
  const miss = median(uncached);
  const cached = median(hit);
  console.log('\n3. a tool that takes 5 ms: uncached call vs cache hit (p50, medians over rounds)');
  console.log(
    `uncached ${fixed(miss * 1000)} µs, hit ${fixed(cached * 1000)} µs: hit ${fixed(miss / cached, 1)} times faster`,
  );
  await setup.client.close();
}

/**
 * The steps' own CPU per call, in process (no transport, no server): resolve, annotate and
 * a terminal step answering at once, with every step on vs every step passing through.
 */
async function stepsInProcess(): Promise<void> {
  const load = (path: string) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
  const { callPath } = (await load('gateway/gateway.js')) as {
    callPath: (
      calls: unknown,
      resolve: unknown,
      annotate: unknown,
      terminal: unknown,
    ) => (ctx: unknown) => Promise<unknown>;
  };
  const { createCallContext } = await load('gateway/pipeline/context.js');
  const { createCallPolicy } = await load('gateway/call-policy.js');
  const { policySchema } = await load('config/policy-schema.js');
  const { Catalog } = await load('gateway/catalog.js');
  const { resolve } = await load('gateway/pipeline/resolve.js');
  const { annotate } = await load('gateway/pipeline/annotate.js');
  const { emptySession } = await load('front/session.js');
  const catalog = new Catalog();
  catalog.setServer(
    'echo',
    [
      {
        name: 'echo',
        description: 'Returns the text it is given.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
    ],
    { trust: 'untrusted' },
  );
  const { auditCopyLines } = (await load('store/audit.js')) as {
    auditCopyLines: (records: readonly unknown[]) => string;
  };
  // The records' COPY lines are made, as the embedded store makes them; not written.
  const store = {
    appendAudit: (records: readonly unknown[]) => {
      auditCopyLines(records);
      return Promise.resolve();
    },
    watch: () => () => undefined,
  };
  const pipeline = (policy: Record<string, unknown>): ((ctx: unknown) => Promise<unknown>) => {
    const calls = createCallPolicy({
      policy: policySchema.parse(policy),
      store,
      replicasOf: () => undefined,
      replicaStates: () => ({}),
      log: () => undefined,
    });
    return callPath(
      calls,
      resolve(catalog, () => ''),
      annotate(),
      // The server's answer echoes the text, parsed from its line as the gateway gets it.
      (ctx: { params: { arguments: { text: string } } }) =>
        Promise.resolve(
          JSON.parse(
            `{"content":[{"type":"text","text":${JSON.stringify(ctx.params.arguments.text)}}]}`,
          ) as unknown,
        ),
    );
  };
  const setups: [string, (ctx: unknown) => Promise<unknown>][] = [
    ['pass-through', pipeline({ passthrough: true })],
    ['every step on', pipeline({})],
    ['every step on, audit off', pipeline({ audit: { enabled: false } })],
    ['every step on, cache off', pipeline({ cache: { enabled: false } })],
  ];
  const signal = new AbortController().signal;
  let sequence = 0;
  const context = (): unknown =>
    createCallContext(
      {
        // Parsed from the client's line, as the fronts get it.
        params: JSON.parse(
          `{"name":"echo_echo","arguments":{"text":${JSON.stringify(echoText(sequence++))}}}`,
        ) as unknown,
        session: emptySession('bench', 'stdio'),
        signal,
        progress: undefined,
        relay: undefined,
      },
      Date.now(),
    );
  const perCall = async (handler: (ctx: unknown) => Promise<unknown>): Promise<number> => {
    const started = performance.now();
    for (let index = 0; index < 10_000; index++) await handler(context());
    // Let the audit log build its records (they are part of the cost, if not of the wait).
    await new Promise((resolve) => setTimeout(resolve, 60));
    return ((performance.now() - started - 60) * 1000) / 10_000;
  };
  const results = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (const [label, handler] of setups) {
      const cost = await perCall(handler);
      if (round > 0) results.set(label, [...(results.get(label) ?? []), cost]);
    }
  }
  console.log(
    '\n4. the steps in process: CPU per call (audit records built included, not written)',
  );
  const base = median(results.get('pass-through') ?? []);
  for (const [label, costs] of results) {
    const cost = median(costs);
    console.log(
      `${label.padEnd(27)} ${fixed(cost, 2).padStart(6)} µs  (+${fixed(cost - base, 2)} µs)`,
    );
  }
}

/** The audit step over a store whose writes take 50 ms, in process, vs. no audit step. */
async function auditOffPath(): Promise<void> {
  const load = (path: string) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
  const { compose } = await load('gateway/pipeline/compose.js');
  const { audit } = await load('gateway/pipeline/audit.js');
  const { createCallContext } = await load('gateway/pipeline/context.js');
  const { AuditLog } = await load('gateway/audit-log.js');
  const { createAuditWriter } = await load('store/audit-writer.js');
  const { emptySession } = await load('front/session.js');
  let written = 0;
  const slowStore = {
    appendAudit: async (records: unknown[]) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      written += records.length;
    },
  };
  const log = new AuditLog(createAuditWriter(slowStore, { maxBatch: 500 }), {
    restrictedArguments: () => 'omit',
  });
  const answer = { content: [{ type: 'text', text: 'ok' }] };
  const terminal = () => new Promise((resolve) => setImmediate(() => resolve(answer)));
  const withAudit = compose([audit(log), terminal]);
  const without = compose([terminal]);
  const context = (index: number): unknown =>
    createCallContext(
      {
        params: { name: 'x', arguments: { i: index, password: 'p' } },
        session: emptySession('bench', 'stdio'),
        signal: new AbortController().signal,
        progress: undefined,
        relay: undefined,
      },
      Date.now(),
    );
  const run = async (handler: (ctx: unknown) => Promise<unknown>) =>
    quantile(await sequential((index) => handler(context(index)), 20_000, 2_000), 0.5);
  const rows: { off: number; on: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rows.push({ off: await run(without), on: await run(withAudit) });
  }
  await log.close();
  const off = median(rows.map((row) => row.off));
  const on = median(rows.map((row) => row.on));
  console.log('\n2. audit off the critical path (in process; the store takes 50 ms per write)');
  console.log(
    `p50 without audit ${fixed(off * 1000, 1)} µs, with audit ${fixed(on * 1000, 1)} µs (+${fixed((on - off) * 1000, 1)} µs); ${written} records written in batches`,
  );
}

requireBuild();
console.log(
  `the call path's cost: ${machine()}, ${ROUNDS} rounds x ${CALLS} sequential calls, setups interleaved`,
);
const PARTS = new Set((process.env['PARTS'] ?? '1,2,3,4').split(','));
if (PARTS.has('1')) await pipelineCost();
if (PARTS.has('2')) await auditOffPath();
if (PARTS.has('3')) await cacheHit();
if (PARTS.has('4')) await stepsInProcess();
