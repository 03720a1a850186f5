import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { serveFrontStdio } from '../../src/front/stdio.js';
import { FastPath } from '../../src/front/stdio-fast-path.js';
import { legacySession } from '../../src/front/call.js';
import type { JsonObject, RpcRequest } from '../../src/mcp/json-rpc.js';
import type { StdioFront } from '../../src/front/stdio.js';
import type { Server } from '@modelcontextprotocol/server';
import { scratchDir } from '../helpers/config.js';
import { LOOSE } from '../helpers/gateway.js';
import { fixture } from '../helpers/paths.js';
import { openTestStore } from '../helpers/store.js';
import type { Store } from '../../src/store/store.js';

let gateway: Gateway;
let store: Store;

beforeAll(async () => {
  store = await openTestStore();
  gateway = createGateway({
    store,
    config: configSchema.parse({
      mcpServers: {
        old: { command: process.execPath, args: [fixture('echo')], era: 'legacy' },
        new: { command: process.execPath, args: [fixture('modern')] },
      },
    }),
    dataDir: scratchDir(),
    identity: { name: 'hintgate', version: 'test' },
    baseEnv: process.env,
  });
  await gateway.start();
});

afterAll(async () => {
  await gateway.close();
  await store.close();
});

/** A client talking to an in-process stdio front over a pair of pipes. */
async function connect(
  fastPath: boolean,
  auto: boolean,
): Promise<{ client: Client; front: StdioFront }> {
  const toFront = new PassThrough();
  const fromFront = new PassThrough();
  const front = serveFrontStdio({
    backend: gateway.backend,
    hub: gateway.hub,
    input: toFront,
    output: fromFront,
    fastPath,
  });
  const client = new Client(
    { name: 'in-process', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(auto ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', () =>
    Promise.resolve({ action: 'accept' as const, content: { sure: true } }),
  );
  await client.connect(new StdioServerTransport(fromFront, toFront));
  return { client, front };
}

/**
 * Everything a client sees for a fixed series of requests: results, errors, and the progress
 * notifications that came before the last step. (The SDK client can drop a notification
 * that arrives together with the response, even from a server it talks to directly, so the
 * last one is not compared.)
 */
async function transcript(client: Client): Promise<unknown[]> {
  const seen: unknown[] = [];
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const progress: unknown[] = [];
    try {
      const result = await client.request(
        { method: 'tools/call', params: { name, arguments: args } },
        LOOSE,
        { onprogress: (p) => progress.push(p) },
      );
      seen.push({ name, result, progress: progress.slice(0, 2) });
    } catch (error) {
      seen.push({
        name,
        error: {
          code: (error as { code?: unknown }).code,
          message: (error as Error).message,
          data: (error as { data?: unknown }).data,
        },
      });
    }
  };
  seen.push((await client.request({ method: 'tools/list', params: {} }, LOOSE))['tools']);
  await call('old_echo', { text: 'hi' });
  await call('old_add', { a: 1, b: 2 });
  await call('old_weird');
  await call('old_content_types');
  await call('old_fail', { why: 'x' });
  await call('old_raise', { code: -32050 });
  await call('old_slow', { steps: 3, delay: 20 });
  await call('new_lookup', { word: 'w' });
  await call('new_confirm');
  await call('unknown_tool');
  return seen;
}

describe('the stdio front fast path', () => {
  it.each([
    ['a 2025 client', false],
    ['a 2026 client', true],
  ])('gives %s exactly what the SDK path gives', async (_label, auto) => {
    const fast = await connect(true, auto);
    const slow = await connect(false, auto);
    // The audit records of new_confirm's rounds: a 2025 client's first round is made once,
    // whichever path took it (the fast path hands its input_required result to the SDK's shim).
    const confirmRecords = async () => {
      await gateway.calls.flush();
      return (await store.queryAudit({ tool: 'new_confirm', limit: 1000 })).length;
    };
    try {
      const before = await confirmRecords();
      const viaFast = await transcript(fast.client);
      const afterFast = await confirmRecords();
      const viaSdk = await transcript(slow.client);
      const afterSdk = await confirmRecords();
      expect(viaFast).toEqual(viaSdk);
      expect(afterFast - before).toBe(afterSdk - afterFast);
      expect(afterFast - before).toBeGreaterThan(0);
      const slowCall = viaFast.find(
        (entry) => (entry as { name?: string }).name === 'old_slow',
      ) as {
        progress: unknown[];
      };
      expect(slowCall.progress).toEqual([
        { progress: 1, total: 3, message: 'step 1' },
        { progress: 2, total: 3, message: 'step 2' },
      ]);
      expect(JSON.stringify(viaFast)).toContain('sure=true');
    } finally {
      await fast.client.close();
      await slow.client.close();
      await fast.front.close();
      await slow.front.close();
    }
  });
});

describe('a 2025 client calling a 2026 server on the fast path', () => {
  const session = legacySession(
    {
      protocolVersion: '2025-11-25',
      clientInfo: { name: 'test', version: '1' },
      clientCapabilities: { elicitation: { form: {} } },
    },
    'stdio',
    'stdio',
    undefined,
  );

  /**
   * A fast path whose client accepts every request for input: the gateway's confirmation of
   * `new_confirm` (inferred destructive) goes to it, as to the client's connection.
   */
  function fastPath() {
    const lines: string[] = [];
    const handed: { request: RpcRequest; result: JsonObject }[] = [];
    const asked: string[] = [];
    const connection = {
      request: ({ method }: { method: string }) => {
        asked.push(method);
        return Promise.resolve({ action: 'accept' });
      },
    } as unknown as Server;
    let settled!: () => void;
    const done = new Promise<void>((resolve) => (settled = resolve));
    const fast = new FastPath(
      gateway.backend,
      (line) => {
        lines.push(line);
        settled();
      },
      () => connection,
      () => undefined,
      (request, result) => {
        handed.push({ request, result });
        settled();
      },
    );
    return { fast, lines, handed, asked, done };
  }

  it('answers a plain result itself', async () => {
    const { fast, lines, handed, done } = fastPath();
    const request: RpcRequest = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'new_lookup', arguments: { word: 'w' } },
    };
    expect(fast.take(request, session, false)).toBe(true);
    await done;
    expect(handed).toEqual([]);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      id: 7,
      result: { content: [{ type: 'text', text: 'meaning of w' }] },
    });
  });

  it('hands an input_required result over to the SDK with the request, writing nothing', async () => {
    const { fast, lines, handed, asked, done } = fastPath();
    const request: RpcRequest = {
      jsonrpc: '2.0',
      id: 'c1',
      method: 'tools/call',
      params: { name: 'new_confirm', arguments: {} },
    };
    expect(fast.take(request, session, false)).toBe(true);
    await done;
    expect(asked).toEqual(['elicitation/create']);
    expect(lines).toEqual([]);
    expect(handed).toHaveLength(1);
    expect(handed[0]!.request).toBe(request);
    expect(handed[0]!.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { ok: { method: 'elicitation/create' } },
    });
  });
});
