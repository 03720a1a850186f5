import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  callsIn,
  counterServer,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import type { AuditRecord } from '../../src/store/store.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { connectHttp, startHttpGateway } from '../helpers/gateway.js';

const TOKENS = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789ab' };

describe('the result cache behind one HTTP gateway with two principals', () => {
  const dir = scratchDir();
  let gateway: (GatewayProcess & { url: string }) | undefined;
  const clients: Client[] = [];
  const as = async (who: keyof typeof TOKENS) => {
    const client = (await connectHttp(gateway!.url, 'v2-legacy', {
      authorization: `Bearer ${TOKENS[who]}`,
    })) as Client;
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    const config = await writeFastConfig(
      dir,
      { counter: counterServer(dir), echo: fixtureServer('echo') },
      {
        http: {
          tokens: Object.entries(TOKENS).map(([name, token]) => ({ name, token })),
        },
      },
    );
    gateway = await startHttpGateway(config, []);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it("serves a principal its own cached read, never another principal's", async () => {
    const reads = () => callsIn(dir, 'counter', 'read_value');
    await callTool(await as('alice'), 'counter_write_value', { key: 'mail', value: 'alice' });
    const alice = await as('alice');
    const first = await callTool(alice, 'counter_read_value', { key: 'mail' });
    expect(first['_meta']).toBeUndefined();
    const again = await callTool(alice, 'counter_read_value', { key: 'mail' });
    expect(textOf(again)).toBe(textOf(first));
    expect(again['_meta']).toMatchObject({ 'dev.hintgate/cache': { hit: true } });
    expect(reads()).toHaveLength(1);
    // Another client of the same principal shares alice's results.
    const aliceToo = await as('alice');
    const third = await callTool(aliceToo, 'counter_read_value', { key: 'mail' });
    expect(reads()).toHaveLength(1);
    expect(third['_meta']).toMatchObject({ 'dev.hintgate/cache': { hit: true } });
    // bob's call reaches the server.
    const bob = await as('bob');
    const his = await callTool(bob, 'counter_read_value', { key: 'mail' });
    expect(his['_meta']).toBeUndefined();
    expect(reads()).toHaveLength(2);
    const hisAgain = await callTool(bob, 'counter_read_value', { key: 'mail' });
    expect(hisAgain['_meta']).toMatchObject({ 'dev.hintgate/cache': { hit: true } });
    expect(reads()).toHaveLength(2);
  });

  it("keeps two principals' concurrent calls with long arguments apart, in the answers and in the audit log", async () => {
    // Arguments this long have their text made once and shared by the cache's key, the
    // request to the server and the audit record (core/util/json-text.ts).
    const textFor = (who: string, index: number) => `${who}-${index}-${'t'.repeat(700)}`;
    const [alice, bob] = [await as('alice'), await as('bob')];
    const calls = Array.from({ length: 10 }, (_, index) => [
      callTool(alice, 'echo_echo', { text: textFor('alice', index) }),
      callTool(bob, 'echo_echo', { text: textFor('bob', index) }),
    ]).flat();
    const answers = await Promise.all(calls);
    answers.forEach((answer, at) => {
      expect(textOf(answer)).toBe(textFor(at % 2 === 0 ? 'alice' : 'bob', Math.floor(at / 2)));
      // Each text is new: every call reached the server.
      expect(answer['_meta']).toBeUndefined();
    });
    for (const who of ['alice', 'bob'] as const) {
      const texts = await eventually(async () => {
        const response = await fetch(
          gateway!.url.replace(/\/mcp$/, `/api/audit?principal=${who}`),
          {
            headers: { authorization: `Bearer ${TOKENS[who]}` },
          },
        );
        const body = (await response.json()) as { records?: AuditRecord[] };
        const found = (body.records ?? [])
          .filter((record) => record.tool === 'echo_echo')
          .map((record) => String((record.arguments as { text?: unknown } | undefined)?.text));
        return found.length === 10 ? found : undefined;
      });
      expect(texts.sort()).toEqual(
        Array.from({ length: 10 }, (_, index) => textFor(who, index)).sort(),
      );
    }
  });
});
