import { provenanceCapabilities } from '../../src/mcp/provenance.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { preparedDataDir } from '../store/helpers/harness.js';
import type { ServerEntry } from './config.js';
import { fixtureServer, writeConfig } from './config.js';
import { LOOSE } from './gateway.js';
import { ROOT, requireBuiltCli } from './paths.js';

/** One call as the counter fixture logged it. */
export interface LoggedCall {
  readonly id: string;
  readonly pid: number;
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** The counter fixture, logging to `<dir>/<name>.calls.jsonl`, its state in `<dir>/<name>.state.json`. */
export function counterServer(
  dir: string,
  name = 'counter',
  extra: ServerEntry = {},
  id = name,
): ServerEntry {
  return fixtureServer('counter', counterArgs(dir, name, id), extra);
}

/** The counter fixture's arguments (for replicas). */
export function counterArgs(dir: string, name: string, id = name): string[] {
  return [
    '--log',
    join(dir, `${name}.calls.jsonl`),
    '--state',
    join(dir, `${name}.state.json`),
    '--id',
    id,
  ];
}

/** The calls the counter fixture named `name` received, of `tool` when given. */
export function callsIn(dir: string, name = 'counter', tool?: string): LoggedCall[] {
  const file = join(dir, `${name}.calls.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LoggedCall)
    .filter((call) => tool === undefined || call.tool === tool);
}

/** An elicitation answer a test client gives. */
export type ElicitAnswer =
  { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' | 'cancel' };

/** A v2 client whose elicitation answers come from `answer` (and are recorded in `asked`). */
export function elicitingClient(
  era: 'legacy' | 'modern',
  answer: () => ElicitAnswer,
  options: { autoFulfill?: boolean; elicitation?: boolean } = {},
): { client: Client; asked: Record<string, unknown>[] } {
  const asked: Record<string, unknown>[] = [];
  const client = new Client(
    { name: `elicit-${era}`, version: '1.0.0' },
    {
      // Tests read each tool's provenance from the listing: ask for it.
      capabilities:
        options.elicitation === false
          ? provenanceCapabilities()
          : { elicitation: { form: {} }, ...provenanceCapabilities() },
      ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      ...(options.autoFulfill === false ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  if (options.elicitation !== false) {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      return Promise.resolve(answer() as never);
    });
  }
  return { client, asked };
}

/** Connects `client` to a gateway it spawns over stdio; returns the gateway's stderr reader. */
export async function connectGatewayStdio(
  client: Client,
  config: string,
  extraArgs: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<{ stderr: () => string; pid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [requireBuiltCli(), 'serve', '--config', config, ...extraArgs],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let text = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  await client.connect(transport);
  return { stderr: () => text, pid: transport.pid as number };
}

/** Connects `client` to a gateway at `url` over streamable HTTP. */
export async function connectGatewayHttp(
  client: Client,
  url: string,
  headers: Record<string, string> = {},
): Promise<void> {
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
}

/** tools/call with nothing stripped from the result. */
export function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  options: Parameters<Client['request']>[2] = {},
): Promise<Record<string, unknown>> {
  return client.request(
    { method: 'tools/call', params: { name, arguments: args, ...extra } },
    LOOSE,
    options,
  );
}

/** The text of a result's first content block. */
export function textOf(result: Record<string, unknown>): string {
  const content = result['content'] as { text?: string }[] | undefined;
  return content?.[0]?.text ?? '';
}

/** Resolves once `check` returns a value other than undefined (polling), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Writes a config like `writeConfig`, with a data directory holding an initialized embedded
 * store (copied from a template: the gateway starts in a fraction of the time initdb takes).
 */
export async function writeFastConfig(
  dir: string,
  servers: Record<string, ServerEntry>,
  rest: Record<string, unknown> = {},
): Promise<string> {
  return writeConfig(dir, servers, { dataDir: await preparedDataDir(), ...rest });
}
