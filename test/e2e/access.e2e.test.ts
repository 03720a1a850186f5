import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/store/types.js';
import {
  callTool,
  callsIn,
  counterServer,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { scratchDir } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { connectHttp, rawListTools, startHttpGateway } from '../helpers/gateway.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';

/** The counter fixture's tools, as listed (flattened names). */
const READ_ONLY = [
  'counter_flaky_lookup',
  'counter_flaky_read',
  'counter_get_quote',
  'counter_get_secret_report',
  'counter_read_value',
  'counter_slow_read',
  'counter_whoami',
];

describe('who may use which tool: two principals on one HTTP front', () => {
  const dir = scratchDir();
  let gateway: GatewayProcess & { url: string };
  let api: string;
  const clients: Client[] = [];
  const connect = async (token: string, kind: 'v2-legacy' | 'v2-auto'): Promise<Client> => {
    const client = (await connectHttp(gateway.url, kind, {
      authorization: `Bearer ${token}`,
    })) as Client;
    clients.push(client);
    return client;
  };
  const names = async (client: Client): Promise<string[]> =>
    (await rawListTools(client)).map((tool) => tool['name'] as string).sort();

  beforeAll(async () => {
    const config = await writeFastConfig(
      dir,
      { counter: counterServer(dir) },
      {
        policy: { confirm: 'never' },
        http: {
          tokens: [
            { name: 'alice', tokenEnv: 'ALICE_TOKEN', groups: ['interns'] },
            { name: 'bob', tokenEnv: 'BOB_TOKEN', groups: ['ops'] },
          ],
        },
        access: {
          rules: [
            { who: ['group:interns'], effect: 'allow', annotations: { readOnly: true } },
            { who: ['group:interns'], effect: 'deny', reason: 'interns get read-only tools' },
            { who: ['bob'], effect: 'deny', tools: ['counter.get_*'] },
          ],
        },
      },
    );
    gateway = await startHttpGateway(config, [], { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB });
    api = gateway.url.replace(/\/mcp$/, '/api');
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it('lists to each principal only the tools it may call, in both eras', async () => {
    const alice = await connect(ALICE, 'v2-legacy');
    const bob = await connect(BOB, 'v2-legacy');
    expect(await names(alice)).toEqual(READ_ONLY);
    const bobs = await names(bob);
    expect(bobs).toContain('counter_write_value');
    expect(bobs).toContain('counter_read_value');
    expect(bobs).not.toContain('counter_get_quote');
    // A 2026 client (stateless, the fast path) sees the same as its principal's session.
    expect(await names(await connect(ALICE, 'v2-auto'))).toEqual(READ_ONLY);
  });

  it('refuses a call the principal may not make, with a clear message, and runs the other', async () => {
    const alice = await connect(ALICE, 'v2-legacy');
    const bob = await connect(BOB, 'v2-legacy');
    const refused = await callTool(alice, 'counter_write_value', { key: 'k', value: 1 });
    expect(refused['isError']).toBe(true);
    expect(textOf(refused)).toBe(
      "Access denied: alice may not call counter_write_value through this gateway (access.rules[1]) (interns get read-only tools). Do not retry; ask the gateway's administrator for access if it is needed.",
    );
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(0);
    const modern = await connect(ALICE, 'v2-auto');
    const refusedModern = await callTool(modern, 'counter_write_value', { key: 'k', value: 1 });
    expect(textOf(refusedModern)).toContain('Access denied: alice');
    const done = await callTool(bob, 'counter_write_value', { key: 'k', value: 1 });
    expect(done['isError']).toBeUndefined();
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
    expect(textOf(await callTool(bob, 'counter_get_quote', {}))).toContain(
      'Access denied: bob may not call counter_get_quote through this gateway (access.rules[2])',
    );
    const read = await callTool(alice, 'counter_read_value', { key: 'k' });
    expect(read['isError']).toBeUndefined();
  });

  it('records the principal and the access decision in the audit log', async () => {
    const records = await eventually(async () => {
      const response = await fetch(`${api}/audit?principal=alice&decision=access-denied`, {
        headers: { authorization: `Bearer ${BOB}` },
      });
      const body = (await response.json()) as { records: AuditRecord[] };
      return body.records.length >= 2 ? body.records : undefined;
    });
    expect(records[0]).toMatchObject({
      principal: 'alice',
      namespacedName: 'counter.write_value',
      decision: 'access-denied',
      outcome: 'denied',
    });
    const bobs = await eventually(async () => {
      const response = await fetch(`${api}/audit?principal=bob&tool=counter.write_value`, {
        headers: { authorization: `Bearer ${BOB}` },
      });
      const body = (await response.json()) as { records: AuditRecord[] };
      return body.records[0];
    });
    expect(bobs).toMatchObject({ principal: 'bob', outcome: 'ok' });
  });

  it("keeps a 2025 session its opener's: another principal's request in it finds no session", async () => {
    const opened = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ALICE}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'probe', version: '1' },
        },
      }),
    });
    const session = opened.headers.get('mcp-session-id');
    expect(session).not.toBeNull();
    await opened.body?.cancel();
    const hijack = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${BOB}`,
        'mcp-session-id': session ?? '',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
  });
});
