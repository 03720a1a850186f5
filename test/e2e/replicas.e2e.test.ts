import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  callsIn,
  connectGatewayStdio,
  counterArgs,
  elicitingClient,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { scratchDir } from '../helpers/config.js';
import { rawListTools } from '../helpers/gateway.js';
import { fixture } from '../helpers/paths.js';

/** A counter server with two replicas logging to one file: `primary` (weight 100) and `mirror` (20). */
function replicatedConfig(dir: string, reconnectMs: number): Promise<string> {
  const replica = (id: string, weight: number) => ({
    command: process.execPath,
    args: [fixture('counter'), ...counterArgs(dir, 'counter', id)],
    name: id,
    weight,
  });
  return writeFastConfig(
    dir,
    {
      counter: {
        replicas: [replica('primary', 100), replica('mirror', 20)],
        reconnect: { initialDelayMs: reconnectMs, maxDelayMs: reconnectMs },
        timeouts: { callMs: 2_000 },
      },
    },
    {
      policy: {
        confirm: 'never',
        cache: { enabled: false },
        retry: { maxAttempts: 4, initialDelayMs: 20, maxDelayMs: 100 },
        routing: { failureThreshold: 2, cooldownMs: 60_000 },
      },
    },
  );
}

async function whoami(client: Client): Promise<{ id: string; pid: number }> {
  return JSON.parse(textOf(await callTool(client, 'counter_whoami'))) as {
    id: string;
    pid: number;
  };
}

async function pidOf(client: Client, id: string): Promise<number> {
  return eventually(
    async () => {
      const answer = await whoami(client);
      return answer.id === id ? answer.pid : undefined;
    },
    10_000,
    `an answer from replica ${id}`,
  );
}

describe('replicas: a mirror killed mid-run', () => {
  const dir = scratchDir();
  let client: Client;
  beforeAll(async () => {
    client = elicitingClient('legacy', () => ({ action: 'accept' })).client;
    await connectGatewayStdio(client, await replicatedConfig(dir, 60_000));
  });
  afterAll(() => client?.close());

  it('lists the logical server once', async () => {
    const names = (await rawListTools(client)).map((tool) => tool['name']);
    expect(names.filter((name) => name === 'counter_whoami')).toHaveLength(1);
  });

  it('spreads reads, sends destructive calls only to the primary, and keeps reads flowing when the mirror dies', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) seen.add((await whoami(client)).id);
    expect(seen).toEqual(new Set(['primary', 'mirror']));
    for (let i = 0; i < 6; i++)
      await callTool(client, 'counter_write_value', { key: 'w', value: i });
    const mirror = await pidOf(client, 'mirror');
    // Reads keep going while the mirror is killed under them.
    const reading = (async () => {
      const answers: string[] = [];
      for (let i = 0; i < 40; i++) {
        const result = await callTool(client, 'counter_read_value', { key: `r${i}` });
        expect(result['isError']).toBeUndefined();
        answers.push(String(JSON.parse(textOf(result)).replica));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return answers;
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(mirror, 'SIGKILL');
    const answers = await reading;
    expect(answers.slice(-10).every((replica) => replica === 'primary')).toBe(true);
    for (let i = 0; i < 3; i++)
      await callTool(client, 'counter_write_value', { key: 'w2', value: i });
    const writes = callsIn(dir, 'counter', 'write_value');
    expect(writes).toHaveLength(9);
    expect(new Set(writes.map((call) => call.id))).toEqual(new Set(['primary']));
  });
});

describe('replicas: the primary killed', () => {
  const dir = scratchDir();
  let client: Client;
  beforeAll(async () => {
    client = elicitingClient('legacy', () => ({ action: 'accept' })).client;
    await connectGatewayStdio(client, await replicatedConfig(dir, 60_000));
  });
  afterAll(() => client?.close());

  it('serves reads from the mirror and refuses destructive calls clearly, never sending them to the mirror', async () => {
    process.kill(await pidOf(client, 'primary'), 'SIGKILL');
    await eventually(async () => ((await whoami(client)).id === 'mirror' ? true : undefined));
    for (let i = 0; i < 5; i++) expect((await whoami(client)).id).toBe('mirror');
    await expect(
      callTool(client, 'counter_write_value', { key: 'w', value: 1 }),
    ).rejects.toMatchObject({
      code: -32010,
      message: expect.stringContaining('no primary replica of server "counter"'),
    });
    expect(callsIn(dir, 'counter', 'write_value')).toEqual([]);
    // Writes that may not destroy go to any replica.
    const added = await callTool(client, 'counter_add_entry', { key: 'a', entry: 1 });
    expect(JSON.parse(textOf(added))).toMatchObject({ replica: 'mirror' });
  });
});
