import { provenanceCapabilities } from '../../src/mcp/provenance.js';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { ROOT, requireBuiltCli } from './paths.js';
import type { ProcessRow } from './processes.js';
import { descendants, processTable, survivors, waitFor } from './processes.js';

/** Loose result schema: nothing stripped. */
export const LOOSE = z.looseObject({});

/** The client flavours the tests drive the gateway with. */
export type ClientKind = 'v2-legacy' | 'v2-auto' | 'v1';

/** A test's handle on a spawned `hintgate serve`. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the gateway wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the first stderr match of `pattern` (or rejects after `timeoutMs`). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** The processes the gateway has spawned (its descendants), now. */
  children(): ProcessRow[];
  /** Resolves with the exit code once the gateway has exited. */
  readonly exited: Promise<number | null>;
}

/** Spawns `hintgate serve` over HTTP (stdin ignored) and resolves once it listens. */
export async function startHttpGateway(
  config: string,
  extraArgs: readonly string[] = ['--no-auth'],
  env: Record<string, string> = {},
): Promise<GatewayProcess & { url: string }> {
  const gateway = spawnGateway(
    ['serve', '--config', config, '--http', '127.0.0.1:0', ...extraArgs],
    env,
    'ignore',
  );
  const match = await gateway.waitForStderr(/listening on (http:\/\/\S+)/, 20_000);
  return { ...gateway, url: match[1] as string };
}

/** Spawns the CLI with `args`; stdout is piped unless `stdin` is 'ignore'. */
export function spawnGateway(
  args: readonly string[],
  env: Record<string, string> = {},
  stdin: 'pipe' | 'ignore' = 'pipe',
): GatewayProcess {
  const child = spawn(process.execPath, [requireBuiltCli(), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: [stdin, 'pipe', 'pipe'],
  });
  return wrap(child);
}

function wrap(child: ChildProcess): GatewayProcess {
  let text = '';
  const waiters = new Set<() => void>();
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    child,
    pid: child.pid as number,
    stderr: () => text,
    exited,
    children: () => descendants(child.pid as number),
    waitForStderr: (pattern, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text);
          if (match !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`gateway stderr never matched ${String(pattern)}; it said:\n${text}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

/** A client of the gateway over stdio: the SDK spawns `hintgate serve --config <config>`. */
export interface StdioSession {
  readonly client: Client | V1Client;
  readonly pid: number;
  stderr(): string;
  close(): Promise<void>;
}

/** Connects a v2 client (2025 or negotiated 2026) to a gateway it spawns over stdio. */
export async function connectStdio(
  config: string,
  kind: 'v2-legacy' | 'v2-auto',
  extraArgs: readonly string[] = [],
  cwd = ROOT,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [requireBuiltCli(), 'serve', '--config', config, ...extraArgs],
    cwd,
    stderr: 'pipe',
  });
  let text = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const client = newClient(kind);
  await client.connect(transport);
  return { client, transport, stderr: () => text };
}

/**
 * A v2 client that accepts elicitation (answering ok: true) and sampling, and asks for each
 * tool's full provenance in tools/list (most tests read it) unless `provenance` is false.
 */
export function newClient(kind: 'v2-legacy' | 'v2-auto', { provenance = true } = {}): Client {
  const client = new Client(
    { name: `test-${kind}`, version: '1.0.0' },
    {
      capabilities: {
        elicitation: { form: {} },
        ...(provenance ? provenanceCapabilities() : {}),
      },
      ...(kind === 'v2-auto' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', () =>
    Promise.resolve({ action: 'accept' as const, content: { ok: true, sure: true } }),
  );
  return client;
}

/** Connects a v1 (1.32) client to a gateway it spawns over stdio. */
export async function connectStdioV1(
  config: string,
): Promise<{ client: V1Client; transport: V1StdioClientTransport; stderr: () => string }> {
  const transport = new V1StdioClientTransport({
    command: process.execPath,
    args: [requireBuiltCli(), 'serve', '--config', config],
    cwd: ROOT,
    stderr: 'pipe',
  });
  let text = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const client = newV1Client();
  await client.connect(transport);
  return { client, transport, stderr: () => text };
}

/** A v1 client that accepts elicitation (answering ok: true) and asks for provenance. */
export function newV1Client(): V1Client {
  const client = new V1Client(
    { name: 'test-v1', version: '1.0.0' },
    { capabilities: { elicitation: {}, ...provenanceCapabilities() } },
  );
  client.setRequestHandler(ElicitRequestSchema, () =>
    Promise.resolve({ action: 'accept' as const, content: { ok: true, sure: true } }),
  );
  return client;
}

/** Connects a client of `kind` to an HTTP gateway at `url`. */
export async function connectHttp(
  url: string,
  kind: ClientKind,
  headers: Record<string, string> = {},
): Promise<Client | V1Client> {
  if (kind === 'v1') {
    const client = newV1Client();
    await client.connect(
      new V1StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
    );
    return client;
  }
  const client = newClient(kind);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client;
}

/** Lists tools with a loose schema (nothing stripped), from either client generation. */
export async function rawListTools(client: Client | V1Client): Promise<Record<string, unknown>[]> {
  const result = (await (client as Client).request(
    { method: 'tools/list', params: {} },
    LOOSE,
  )) as { tools: Record<string, unknown>[] };
  return result.tools;
}

/** Calls a tool with a loose schema (nothing stripped). */
export async function rawCall(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: Parameters<Client['request']>[2] = {},
): Promise<Record<string, unknown>> {
  return await client.request(
    { method: 'tools/call', params: { name, arguments: args } },
    LOOSE,
    options,
  );
}

/**
 * Ends a gateway and checks it left nothing behind: every process it had spawned (and every
 * process in their groups) is gone.
 */
export async function expectNoOrphans(
  before: readonly ProcessRow[],
  timeoutMs = 8000,
): Promise<ProcessRow[]> {
  const pids = before.map((row) => row.pid);
  // The test runner's own group is never one of the servers' (they lead their own groups).
  const own = processTable().find((row) => row.pid === process.pid)?.pgid;
  const groups = [...new Set(before.map((row) => row.pgid))].filter((pgid) => pgid !== own);
  return waitFor(
    () => survivors(pids, groups),
    (left) => left.length === 0,
    timeoutMs,
    100,
  );
}
