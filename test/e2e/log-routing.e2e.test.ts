import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, textOf, writeFastConfig } from '../helpers/call-path.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { connectHttp, startHttpGateway } from '../helpers/gateway.js';

/**
 * A server's log messages during a call reach the session that made the call, and never
 * another one: two sessions (of one principal, then of two) call the same stdio server at
 * once, each call logging while the other is in flight (the fixture holds them until both
 * arrived). Log messages carry no request id on the wire, so a message that could be either
 * call's reaches neither; a call alone gets all of its own.
 */

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';

/** A 2025 HTTP session recording the log messages it receives. */
async function loggingSession(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ client: Client; logs: string[] }> {
  const client = (await connectHttp(url, 'v2-legacy', headers)) as Client;
  const logs: string[] = [];
  client.setNotificationHandler('notifications/message', (notification) => {
    logs.push(String(notification.params.data));
  });
  return { client, logs };
}

/** A JSON-RPC message as a raw session reads it. */
interface RawMessage {
  readonly id?: number;
  readonly method?: string;
  readonly params?: { readonly data?: unknown };
  readonly result?: unknown;
}

/**
 * A 2025 session over plain fetch, accepting JSON and SSE: what each call was answered
 * with (its content type and messages in order) shows which path answered it (the fast path
 * answers JSON when nothing comes before the result; the SDK always answers SSE).
 */
async function rawSession(url: string, headers: Record<string, string>) {
  let sessionId: string | undefined;
  let nextId = 1;
  const post = async (body: object): Promise<{ type: string; messages: RawMessage[] }> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
        ...headers,
      },
      body: JSON.stringify(body),
    });
    sessionId = response.headers.get('mcp-session-id') ?? sessionId;
    const type = response.headers.get('content-type') ?? '';
    const text = await response.text();
    const messages = type.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
          .map((line) => JSON.parse(line.slice('data: '.length)) as RawMessage)
      : text === ''
        ? []
        : [JSON.parse(text) as RawMessage];
    return { type, messages };
  };
  await post({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    call: (name: string, args: Record<string, unknown>) =>
      post({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
  };
}

/** Both sessions call at once; each call logs before and after the other arrived. */
async function callTogether(
  sessions: readonly { client: Client; text: string }[],
  group: string,
): Promise<void> {
  const results = await Promise.all(
    sessions.map(({ client, text }) =>
      callTool(client, 'chatty_log_together', { text, group, count: sessions.length }),
    ),
  );
  expect(results.map(textOf)).toEqual(sessions.map(({ text }) => `${text} done`));
}

/** Every message is of the session's own calls (their texts start with `own`). */
function expectOnly(logs: readonly string[], own: 'A' | 'B'): void {
  expect(logs.filter((line) => !line.startsWith(own))).toEqual([]);
}

// The server on the 2025 protocol (its calls take the HTTP front's fast path) and on the
// 2026 one (a 2025 client's calls of its tools go through the SDK's shim).
describe.each([
  ['two sessions of one gateway (no auth), a 2025 server', false, 'legacy'],
  ['two principals over HTTP, a 2025 server', true, 'legacy'],
  ['two sessions of one gateway (no auth), a 2026 server', false, 'auto'],
  ['two principals over HTTP, a 2026 server', true, 'auto'],
] as const)('log messages during calls: %s', (_name, tokens, era) => {
  const dir = scratchDir();
  let gateway: GatewayProcess & { url: string };
  const clients: Client[] = [];

  beforeAll(async () => {
    const config = await writeFastConfig(
      dir,
      { chatty: fixtureServer('chatty', [], { era }) },
      tokens
        ? {
            http: {
              tokens: [
                { name: 'alice', tokenEnv: 'ALICE_TOKEN' },
                { name: 'bob', tokenEnv: 'BOB_TOKEN' },
              ],
            },
          }
        : {},
    );
    gateway = await startHttpGateway(config, tokens ? [] : ['--no-auth'], {
      ALICE_TOKEN: ALICE,
      BOB_TOKEN: BOB,
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it("never delivers one call's log messages to the other session", async () => {
    const auth = (token: string) => (tokens ? { authorization: `Bearer ${token}` } : {});
    const a = await loggingSession(gateway.url, auth(ALICE));
    const b = await loggingSession(gateway.url, auth(BOB));
    clients.push(a.client, b.client);
    for (let round = 0; round < 5; round++) {
      await callTogether(
        [
          { client: a.client, text: `A${round}` },
          { client: b.client, text: `B${round}` },
        ],
        `${tokens ? 'p' : 's'}${round}`,
      );
    }
    expectOnly(a.logs, 'A');
    expectOnly(b.logs, 'B');
    // A call alone gets every message of its own.
    await callTogether([{ client: a.client, text: 'Alone' }], `${tokens ? 'p' : 's'}-alone`);
    expect(a.logs.slice(-2)).toEqual(['Alone first', 'Alone second']);
    expect(b.logs.some((line) => line.startsWith('Alone'))).toBe(false);
  });

  it('answers a call with nothing before its result as JSON, and one that logs as SSE, its messages first', async () => {
    const raw = await rawSession(gateway.url, tokens ? { authorization: `Bearer ${ALICE}` } : {});
    const chatty = await raw.call('chatty_log_together', {
      text: 'Raw',
      group: `raw-${era}-${tokens}`,
      count: 1,
    });
    expect(chatty.type).toContain('text/event-stream');
    expect(chatty.messages.map((message) => message.params?.data ?? 'result')).toEqual([
      'Raw first',
      'Raw second',
      'result',
    ]);
    // Logs only after its answer: JSON, from the fast path (on either protocol). Called last:
    // its message, with no call in flight then, would go to a call alone in flight after it.
    const quiet = await raw.call('chatty_log_after', { text: 'raw later' });
    expect(quiet.type).toContain('application/json');
    expect(quiet.messages.map((message) => message.result !== undefined)).toEqual([true]);
  });

  // A 2026 server asks for input with an input_required result, which the gateway turns into
  // an elicitation request for a 2025 client: the log message of the round that asked
  // reaches the client before the question, the second round's before the answer.
  it.runIf(era === 'auto')(
    'delivers the log messages of every round of a call that asks',
    async () => {
      const auth = tokens ? { authorization: `Bearer ${ALICE}` } : {};
      const client = (await connectHttp(gateway.url, 'v2-legacy', auth)) as Client;
      clients.push(client);
      const seen: string[] = [];
      client.setNotificationHandler('notifications/message', (notification) => {
        seen.push(String(notification.params.data));
      });
      client.setRequestHandler('elicitation/create', () => {
        seen.push('asked');
        return { action: 'accept', content: { name: 'Ada' } };
      });
      const result = await callTool(client, 'chatty_log_then_ask', { text: 'Ask' });
      expect(textOf(result)).toBe('Hello, Ada!');
      // Only this call's (a message of the server's own, from another test's call, may come too).
      expect(seen.filter((line) => line.startsWith('Ask') || line === 'asked')).toEqual([
        'Ask asking',
        'asked',
        'Ask answered',
      ]);
    },
  );
});
