/**
 * Toolsets and notes, measured.
 *
 * 1. tools/list of 10,000 tools (ten generated servers of 1,000; real recorded tools, then
 *    tiny generated ones) through the gateway's stdio front with the embedded store, the
 *    session on a default toolset holding every tool:
 *    with 1,000 notes (one each on 1,000 tools) against the same toolset without notes
 *    (goal: at most 1.2 times), and against a direct tools/list of one server holding the
 *    same 10,000 tools (goal: at most 2 times). Interleaved round by round, medians.
 * 2. A note added by one client (add-tool-annotation) visible in another client's next
 *    listing: two 2025 HTTP sessions on one gateway (embedded store), and two gateways on
 *    one PostgreSQL database (LISTEN/NOTIFY; needs HINTGATE_TEST_PG_URL). Reported: the
 *    add-tool-annotation call, the time from its answer to the other client's first listing
 *    that shows the note, and from the call's start to the other client's list_changed
 *    (which waits out the hub's 25 ms debounce). Goal: visible within 100 ms.
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/toolsets.js
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import pg from 'pg';
import {
  CLI,
  LOOSE,
  fixed,
  fixture,
  machine,
  median,
  quantile,
  requireBuild,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const LISTS = Number(process.env['LISTS'] ?? 10);
const SERVERS = 10;
const PER_SERVER = 1000;
const NOTES = 1000;
const PROPAGATIONS = Number(process.env['PROPAGATIONS'] ?? 30);

interface Tool {
  readonly name: string;
}

function servers(extra: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    Array.from({ length: SERVERS }, (_, index) => [
      `s${index}`,
      {
        command: process.execPath,
        args: [
          fixture('generator'),
          '--tools',
          String(PER_SERVER),
          '--offset',
          String(index * PER_SERVER),
          ...extra,
        ],
      },
    ]),
  );
}

function writeConfig(
  rest: Record<string, unknown>,
  extra: readonly string[] = [],
): { path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hintgate-bench-toolsets-'));
  const path = join(dir, 'hintgate.config.json');
  writeFileSync(
    path,
    JSON.stringify({ mcpServers: servers(extra), dataDir: join(dir, 'data'), ...rest }),
  );
  return { path, dir };
}

function cli(args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`hintgate ${args.join(' ')}: ${stderr}`)),
    );
  });
}

/** A toolset document holding every server, with `notes` notes (0 for none). */
function toolsetDocument(name: string, tools: readonly Tool[], notes: number): unknown {
  return {
    hintgate: 'toolset',
    version: 1,
    name,
    members: Array.from({ length: SERVERS }, (_, index) => ({
      kind: 'server',
      server: `s${index}`,
    })),
    notes: tools.slice(0, notes).map((tool, index) => ({
      tool: { namespacedName: `s${Math.floor(index / PER_SERVER)}.${tool.name}` },
      name: 'house-rule',
      note: `Check with the owning team before calling ${tool.name}; results are cached for an hour.`,
    })),
  };
}

async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  // 10,000 real tools are a 17 MiB message: above the SDK's default of 10 MiB per message.
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      stderr: 'ignore',
      maxBufferSize: 256 * 1024 * 1024,
    }),
  );
  return client;
}

async function list(client: Client): Promise<{ tools: Record<string, unknown>[] }> {
  return (await client.request({ method: 'tools/list', params: {} }, LOOSE)) as {
    tools: Record<string, unknown>[];
  };
}

async function timeLists(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < LISTS; index++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return quantile(times, 0.5);
}

async function listing(kind: string, extra: readonly string[]): Promise<void> {
  const direct = await stdioClient([
    fixture('generator'),
    '--tools',
    String(SERVERS * PER_SERVER),
    ...extra,
  ]);
  const tools = (await list(direct)).tools as unknown as Tool[];
  interface Setup {
    label: string;
    client: Client;
    loose: number[];
    typed: number[];
    bytes: number;
  }
  const setups: Setup[] = [
    { label: 'direct, 1 server', client: direct, loose: [], typed: [], bytes: 0 },
  ];
  for (const [label, notes] of [
    ['gateway, toolset, no notes', 0],
    ['gateway, toolset, 1,000 notes', NOTES],
  ] as const) {
    const { path, dir } = writeConfig({ toolsets: { default: 'everything' } }, extra);
    const document = join(dir, 'toolset.json');
    writeFileSync(document, JSON.stringify(toolsetDocument('everything', tools, notes)));
    await cli(['toolset', 'import', document, '--config', path]);
    const client = await stdioClient([CLI, 'serve', '--config', path]);
    // Servers still starting join later (list_changed): wait for all of them.
    let first = await list(client);
    const deadline = Date.now() + 60_000;
    while (first.tools.length < SERVERS * PER_SERVER && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      first = await list(client);
    }
    if (first.tools.length !== SERVERS * PER_SERVER) {
      throw new Error(
        `${label}: expected ${SERVERS * PER_SERVER} tools, got ${first.tools.length}`,
      );
    }
    const noted = first.tools.filter((tool) =>
      String(tool['description']).includes('### Additional Tool Notes'),
    ).length;
    if (noted !== notes)
      throw new Error(`${label}: expected ${notes} tools with notes, got ${noted}`);
    setups.push({ label, client, loose: [], typed: [], bytes: 0 });
  }
  for (const setup of setups) setup.bytes = JSON.stringify((await list(setup.client)).tools).length;
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of setups) {
      setup.loose.push(await timeLists(() => list(setup.client)));
      setup.typed.push(await timeLists(() => setup.client.listTools()));
    }
  }
  const [baseline, plain] = setups;
  const ratio = (value: number, base: number[] | undefined): string =>
    fixed(value / median(base ?? []), 2);
  console.log(`\ntools/list of 10,000 ${kind} (p50 ms, median over rounds)`);
  console.log(
    'setup                          loose ms  vs direct  vs no notes  listTools() ms  vs direct  vs no notes  JSON of tools',
  );
  for (const setup of setups) {
    const loose = median(setup.loose);
    const typed = median(setup.typed);
    console.log(
      `${setup.label.padEnd(30)} ${fixed(loose, 1).padStart(8)} ${ratio(loose, baseline?.loose).padStart(10)} ${ratio(loose, plain?.loose).padStart(12)} ${fixed(typed, 1).padStart(15)} ${ratio(typed, baseline?.typed).padStart(10)} ${ratio(typed, plain?.typed).padStart(12)}  ${fixed(setup.bytes / 1024)} KiB`,
    );
  }
  for (const setup of setups) await setup.client.close();
}

/** An HTTP gateway process and its URL. */
async function httpGateway(config: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--config', config, '--http', '127.0.0.1:0', '--no-auth'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.on('exit', () => reject(new Error(`gateway exited: ${text}`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function httpClient(url: string): Promise<{ client: Client; changed: () => number }> {
  const client = new Client({ name: 'bench', version: '1' });
  let last = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    last = performance.now();
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, changed: () => last };
}

async function propagation(label: string, urlA: string, urlB: string): Promise<void> {
  const a = await httpClient(urlA);
  const b = await httpClient(urlB);
  for (const { client } of [a, b]) {
    await client.request(
      { method: 'tools/call', params: { name: 'equip-toolset', arguments: { name: 'shared' } } },
      LOOSE,
    );
  }
  const calls: number[] = [];
  const visible: number[] = [];
  const notified: number[] = [];
  let firstListing = 0;
  for (let index = 0; index < PROPAGATIONS; index++) {
    const name = `note-${index}-${randomBytes(3).toString('hex')}`;
    const started = performance.now();
    await a.client.request(
      {
        method: 'tools/call',
        params: {
          name: 'add-tool-annotation',
          arguments: {
            toolRef: { namespacedName: `s0.${firstTool}` },
            notes: [{ name, note: 'Seen?' }],
          },
        },
      },
      LOOSE,
    );
    calls.push(performance.now() - started);
    // The other client's next listing: does it show the note already?
    for (let attempt = 0; ; attempt++) {
      const tools = (await list(b.client)).tools;
      if (tools.some((item) => String(item['description']).includes(`**${name}**`))) {
        if (attempt === 0) firstListing++;
        break;
      }
      if (performance.now() - started > 5_000) throw new Error(`${label}: note never visible`);
    }
    visible.push(performance.now() - started);
    while (b.changed() < started && performance.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    notified.push(b.changed() - started);
    // Stay under the bound of notes per tool: start the toolset afresh now and then.
    if (index % 15 === 14) {
      await resetNotes();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
  console.log(
    `${label.padEnd(30)} ${fixed(median(calls), 1).padStart(8)} ${fixed(median(visible), 1).padStart(11)} ${fixed(quantile(visible, 0.9), 1).padStart(6)} ${fixed(Math.max(...visible), 1).padStart(6)} ${`${firstListing}/${PROPAGATIONS}`.padStart(14)} ${fixed(median(notified), 1).padStart(17)}`,
  );
  await a.client.close();
  await b.client.close();
}

let firstTool = '';
let resetNotes: () => Promise<void> = () => Promise.resolve();

async function propagations(): Promise<void> {
  const generator = await stdioClient([fixture('generator'), '--tools', '1']);
  firstTool = String((await list(generator)).tools[0]?.['name']);
  await generator.close();
  const shared = (dir: string): string => {
    const path = join(dir, 'shared.json');
    writeFileSync(
      path,
      JSON.stringify({
        hintgate: 'toolset',
        version: 1,
        name: 'shared',
        members: [{ kind: 'server', server: 's0' }],
      }),
    );
    return path;
  };
  console.log(
    '\na note added by one client (add-tool-annotation), seen by another (2025 HTTP sessions; ms from the start of the call)',
  );
  console.log(
    'setup                          call p50  visible p50    p90    max  next listing  list_changed p50',
  );
  {
    const { path, dir } = writeConfig({ toolsets: { configurationMode: 'always' } });
    await cli(['toolset', 'import', shared(dir), '--config', path]);
    const gateway = await httpGateway(path);
    resetNotes = () => cli(['toolset', 'import', shared(dir), '--replace', '--config', path]);
    try {
      await propagation('embedded store, same gateway', gateway.url, gateway.url);
    } finally {
      await gateway.stop();
    }
  }
  const url = process.env['HINTGATE_TEST_PG_URL'];
  if (url === undefined || url === '') {
    console.log('PostgreSQL: skipped (set HINTGATE_TEST_PG_URL)');
    return;
  }
  const schema = `hg_bench_${randomBytes(4).toString('hex')}`;
  const store = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
  try {
    const { path, dir } = writeConfig({ store, toolsets: { configurationMode: 'always' } });
    await cli(['toolset', 'import', shared(dir), '--config', path]);
    resetNotes = () => cli(['toolset', 'import', shared(dir), '--replace', '--config', path]);
    const one = await httpGateway(path);
    const two = await httpGateway(path);
    try {
      await propagation('PostgreSQL, two gateways', one.url, two.url);
    } finally {
      await one.stop();
      await two.stop();
    }
  } finally {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}

requireBuild();
console.log(
  `toolsets: ${machine()}, ${ROUNDS} rounds x ${LISTS} lists, ${PROPAGATIONS} propagations`,
);
// Real tools (the recorded tools/list results of published servers, renamed), then tiny
// generated ones: hintgate's additions weigh most there, the worst case.
await listing('real tools (recorded from published servers)', ['--recorded']);
await listing('tiny generated tools', []);
await propagations();
