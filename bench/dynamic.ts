/**
 * A `tools/annotations` answer through the gateway's streamable HTTP front, from a built-in
 * classifier (SQL, on the `query` tool of test/fixtures/servers/query.mjs), in the same run
 * as two baselines: an SDK server answering the same request itself over the same hono + SDK
 * HTTP stack (the library's `addDynamicAnnotations`, resolving with the same classifier),
 * and a plain `tools/list` round trip to the same gateway; and, for comparison, the gateway
 * answering through the SDK's machinery (`--no-fast-path`). For a 2025 client (session) and
 * a 2026 client (stateless), each through the SDK client and through a bare keep-alive HTTP
 * client (which leaves out the SDK client's own cost): p50 and p99 of sequential requests,
 * every setup measured in each round in turn, medians over rounds.
 *
 *   npm run bench:build && node bench/dist/bench/dynamic.js
 *
 * Goal: p50 under 0.5 ms. Classifier throughput on 10,000 SQL statements is measured by
 * bench/classifiers.ts (`node bench/dist/bench/classifiers.js`).
 */
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { classifySql } from '../src/core/dynamic/index.js';
import { addDynamicAnnotations } from '../src/mcp/dynamic-server.js';
import {
  CLI,
  LOOSE,
  fixed,
  fixture,
  machine,
  median,
  quantile,
  requireBuild,
  sequential,
  startServer,
  writeConfig,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const CALLS = Number(process.env['CALLS'] ?? 500);
const WARMUP = 200;
const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';

/** Statements of every kind the classifier sorts, so that each request reads a new one. */
const STATEMENTS: readonly ((n: number) => string)[] = [
  (n) =>
    `SELECT o.id, sum(i.qty * i.price) FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.customer_id = ${n} GROUP BY o.id`,
  (n) => `UPDATE accounts SET status = 'active', updated_at = now() WHERE id = ${n}`,
  (n) => `INSERT INTO events (kind, payload) VALUES ('click', '{"n": ${n}}') RETURNING id`,
  (n) => `DELETE FROM sessions WHERE expires_at < now() - interval '${n % 30} days'`,
  (n) => `/* report */ SELECT count(*) FROM users WHERE id > ${n}; -- DELETE FROM users`,
];
const statement = (index: number): string =>
  (STATEMENTS[index % STATEMENTS.length] as (n: number) => string)(index);

/** The worst case over every statement: what the direct server lists its tool with. */
const QUERY_WORST_CASE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

// ---------------------------------------------------------------------------------------
// The direct baseline: this file run with `--direct` serves an SDK server on HTTP.
// ---------------------------------------------------------------------------------------

function directServer(): McpServer {
  const server = new McpServer({ name: 'direct-query', version: '1.0.0' });
  server.registerTool(
    'query',
    {
      description: 'Runs a SQL statement against the database and returns the rows.',
      inputSchema: z.object({ sql: z.string().describe('The SQL statement') }),
      annotations: QUERY_WORST_CASE,
    },
    () => ({ content: [{ type: 'text', text: 'not run' }] }),
  );
  addDynamicAnnotations(server, {
    resolvers: { query: ({ sql }) => classifySql(String(sql))?.annotations ?? {} },
  });
  return server;
}

/** The same HTTP stack as the gateway and the echo fixture: 2025 sessions and 2026 stateless. */
function serveDirect(): void {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const modern = createMcpHandler(() => directServer(), { legacy: 'reject' });
  const handle = async (request: Request): Promise<Response> => {
    const sid = request.headers.get('mcp-session-id');
    const body: unknown =
      request.method === 'POST' ? await request.json().catch(() => undefined) : undefined;
    const parsed = body === undefined ? {} : { parsedBody: body };
    if (sid !== null) {
      const session = sessions.get(sid);
      if (session === undefined) return new Response('no session', { status: 404 });
      return session.handleRequest(request, parsed);
    }
    if (
      request.method === 'POST' &&
      (await isLegacyRequest(request, body)) &&
      (body as { method?: unknown } | undefined)?.method === 'initialize'
    ) {
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
      await directServer().connect(transport);
      return transport.handleRequest(request, parsed);
    }
    return modern.fetch(request, parsed);
  };
  const server = serve({ fetch: handle, hostname: '127.0.0.1', port: 0 }, (info) => {
    process.stdout.write(`${JSON.stringify({ port: info.port })}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

// ---------------------------------------------------------------------------------------
// Clients
// ---------------------------------------------------------------------------------------

type Era = 'legacy' | 'modern';
/** One JSON-RPC request: its method and params; the answer's `result` (or throws its error). */
type Send = (method: string, params: Record<string, unknown>) => Promise<unknown>;

interface Connected {
  readonly send: Send;
  close(): Promise<void>;
}

async function sdkClient(url: string, era: Era): Promise<Connected> {
  const client = new Client(
    { name: 'bench', version: '1' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    send: (method, params) => client.request({ method, params }, LOOSE),
    close: () => client.close(),
  };
}

interface RawResponse {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/**
 * A bare JSON-RPC client on one keep-alive connection: the least a client can do per request
 * (write the POST, read the answer, parse it), so its figures are the server's cost plus the
 * loopback's.
 */
async function rawClient(url: string, era: Era): Promise<Connected> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  let sessionId: string | undefined;
  let id = 0;
  const post = (body: string, headers: Record<string, string>) =>
    new Promise<RawResponse>((resolve, reject) => {
      const req = httpRequest(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ headers: res.headers, body: text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const answer = (response: RawResponse): unknown => {
    const json = /^data: (.*)$/m.exec(response.body)?.[1] ?? response.body;
    const message = JSON.parse(json) as { result?: unknown; error?: { message: string } };
    if (message.error !== undefined) throw new Error(message.error.message);
    return message.result;
  };
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench-raw', version: '1' },
  };
  if (era === 'legacy') {
    const initialized = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: {},
          clientInfo: { name: 'bench-raw', version: '1' },
        },
      }),
      {},
    );
    answer(initialized);
    const header = initialized.headers['mcp-session-id'];
    sessionId = typeof header === 'string' ? header : undefined;
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
      'mcp-protocol-version': LEGACY_VERSION,
    });
  }
  return {
    send: async (method, params) => {
      const headers: Record<string, string> =
        era === 'legacy'
          ? { 'mcp-protocol-version': LEGACY_VERSION }
          : { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
      if (era === 'modern' && typeof params['name'] === 'string')
        headers['mcp-name'] = params['name'];
      const full = era === 'modern' ? { ...params, _meta: envelope } : params;
      return answer(
        await post(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: full }), headers),
      );
    },
    close: async () => {
      agent.destroy();
      await Promise.resolve();
    },
  };
}

// ---------------------------------------------------------------------------------------
// The measurement
// ---------------------------------------------------------------------------------------

interface Setup {
  readonly label: string;
  readonly run: (index: number) => Promise<unknown>;
  readonly close: () => Promise<void>;
  readonly p50: number[];
  readonly p99: number[];
}

/** tools/annotations for statement `index`, checked: a wrong answer stops the benchmark. */
function annotationsOf(send: Send, tool: string): (index: number) => Promise<unknown> {
  return async (index) => {
    const sql = statement(index);
    const result = (await send('tools/annotations', { name: tool, arguments: { sql } })) as {
      annotations?: { readOnlyHint?: unknown };
    };
    const expected = classifySql(sql)?.annotations.readOnlyHint;
    if (result.annotations?.readOnlyHint !== expected)
      throw new Error(`${tool}: unexpected answer for ${sql}: ${JSON.stringify(result)}`);
    return result;
  };
}

/** The servers measured: the direct one, the gateway, and the gateway without its fast path. */
interface Urls {
  readonly direct: string;
  readonly gateway: string;
  readonly sdkPath: string;
}

/** Setups per client kind, in this order: the direct one first, tools/list last. */
const PER_KIND = 4;

async function runEra(era: Era, urls: Urls): Promise<void> {
  const setups: Setup[] = [];
  for (const [kind, connect] of [
    ['SDK client', sdkClient],
    ['bare HTTP', rawClient],
  ] as const) {
    const direct = await connect(urls.direct, era);
    const gateway = await connect(urls.gateway, era);
    const sdkPath = await connect(urls.sdkPath, era);
    const list = await connect(urls.gateway, era);
    const entry = (label: string, run: (index: number) => Promise<unknown>, c: Connected) => {
      setups.push({ label: `${kind}: ${label}`, run, close: () => c.close(), p50: [], p99: [] });
    };
    entry('direct SDK server, tools/annotations', annotationsOf(direct.send, 'query'), direct);
    entry('gateway, tools/annotations', annotationsOf(gateway.send, 'db_query'), gateway);
    entry('gateway, SDK path, tools/annotations', annotationsOf(sdkPath.send, 'db_query'), sdkPath);
    entry('gateway, tools/list', () => list.send('tools/list', {}), list);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of setups) {
      const times = await sequential(setup.run, CALLS, WARMUP);
      setup.p50.push(quantile(times, 0.5));
      setup.p99.push(quantile(times, 0.99));
    }
  }
  console.log(
    `\n${era === 'legacy' ? '2025-11-25 client (session)' : '2026-07-28 client (stateless)'}`,
  );
  console.log(
    'setup                                               p50 µs   p99 µs   p50 ratio to direct   to tools/list',
  );
  for (let start = 0; start < setups.length; start += PER_KIND) {
    const group = setups.slice(start, start + PER_KIND);
    const [direct, list] = [group[0], group.at(-1)];
    for (const setup of group) {
      // Ratios within a round, then their median: the least disturbed by a shared machine.
      const ratio = (base: Setup | undefined) =>
        median(setup.p50.map((p50, round) => p50 / (base?.p50[round] ?? Number.NaN)));
      console.log(
        [
          setup.label.padEnd(49),
          fixed(median(setup.p50) * 1000).padStart(8),
          fixed(median(setup.p99) * 1000).padStart(8),
          fixed(ratio(direct), 2).padStart(21),
          fixed(ratio(list), 2).padStart(15),
        ].join(' '),
      );
    }
  }
  for (const setup of setups) await setup.close();
}

async function untilListed(url: string, tool: string): Promise<void> {
  const probe = await rawClient(url, 'legacy');
  try {
    for (let tries = 0; ; tries++) {
      const listed = (await probe.send('tools/list', {})) as { tools: { name: string }[] };
      if (listed.tools.some((candidate) => candidate.name === tool)) return;
      if (tries > 100) throw new Error(`the gateway at ${url} never listed ${tool}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await probe.close();
  }
}

async function main(): Promise<void> {
  // The SDK's HTTP client adds a listener per request to a shared signal in 2026 mode and
  // warns about it; the warning is noise here.
  process.removeAllListeners('warning');
  requireBuild();
  const gatewayArgs = (...flags: string[]) => {
    // A config (and data directory) per gateway: each holds its own.
    const config = writeConfig({ db: { command: process.execPath, args: [fixture('query')] } });
    return [CLI, 'serve', ...flags, '--config', config, '--http', '127.0.0.1:0', '--no-auth'];
  };
  const gateway = await startServer(gatewayArgs());
  const sdkPath = await startServer(gatewayArgs('--no-fast-path'));
  const direct = await startServer([fileURLToPath(import.meta.url), '--direct']);
  console.log(
    `tools/annotations from the SQL classifier, gateway HTTP front vs an SDK server answering directly: ${machine()}, ${ROUNDS} rounds x ${CALLS} sequential requests per setup, medians over rounds`,
  );
  const children = [gateway.child, sdkPath.child, direct.child];
  try {
    // A gateway lists its tools once its servers are up; wait for the query tool.
    for (const url of [gateway.url, sdkPath.url]) await untilListed(url, 'db_query');
    const urls = { direct: direct.url, gateway: gateway.url, sdkPath: sdkPath.url };
    await runEra('legacy', urls);
    await runEra('modern', urls);
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
  console.log(
    '\nClassifier throughput on 10,000 SQL statements: node bench/dist/bench/classifiers.js',
  );
}

if (process.argv.includes('--direct')) serveDirect();
else await main();
