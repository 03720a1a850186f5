import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, callsIn, counterServer, textOf, writeFastConfig } from '../helpers/call-path.js';
import { scratchDir } from '../helpers/config.js';
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
      { counter: counterServer(dir) },
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
});
