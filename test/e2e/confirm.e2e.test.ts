import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitAnswer } from '../helpers/call-path.js';
import {
  callTool,
  callsIn,
  connectGatewayHttp,
  connectGatewayStdio,
  counterServer,
  elicitingClient,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { startHttpGateway } from '../helpers/gateway.js';
import { storeSpec, testStorage } from '../helpers/store.js';

/** `stdio-sdk`: stdio with `--no-fast-path`, every request through the SDK's machinery. */
type Front = 'stdio' | 'http' | 'stdio-sdk';
const FRONTS: Front[] = ['stdio', 'http', 'stdio-sdk'];

/** A gateway over `front` with one counter server, and a client answering as `answer` says. */
async function open(
  front: Front,
  era: 'legacy' | 'modern',
  options: { autoFulfill?: boolean; policy?: Record<string, unknown> } = {},
) {
  const dir = scratchDir();
  const config = await writeFastConfig(
    dir,
    { counter: counterServer(dir) },
    { policy: options.policy ?? {} },
  );
  let answer: ElicitAnswer = { action: 'decline' };
  const { client, asked } = elicitingClient(era, () => answer, {
    ...(options.autoFulfill === undefined ? {} : { autoFulfill: options.autoFulfill }),
  });
  let gateway: (GatewayProcess & { url: string }) | undefined;
  if (front === 'stdio') await connectGatewayStdio(client, config);
  else if (front === 'stdio-sdk') await connectGatewayStdio(client, config, ['--no-fast-path']);
  else {
    gateway = await startHttpGateway(config);
    await connectGatewayHttp(client, gateway.url);
  }
  return {
    dir,
    client,
    asked,
    answer: (next: ElicitAnswer) => {
      answer = next;
    },
    writes: () => callsIn(dir, 'counter', 'write_value'),
    close: async () => {
      await client.close();
      if (gateway !== undefined) {
        gateway.child.kill('SIGTERM');
        await gateway.exited;
      }
    },
  };
}

describe.each(FRONTS)('confirmation of a 2025 client by elicitation, over %s', (front) => {
  let session: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    session = await open(front, 'legacy');
  });
  afterAll(() => session.close());

  it('asks before a destructive call, and a declined call never reaches the server', async () => {
    session.answer({ action: 'decline' });
    const result = await callTool(session.client, 'counter_write_value', { key: 'k', value: 1 });
    expect(result['isError']).toBe(true);
    expect(textOf(result)).toContain('declined');
    expect(session.asked).toHaveLength(1);
    expect(String(session.asked[0]?.['message'])).toMatch(
      /counter\.write_value[\s\S]*"value":1[\s\S]*destructiveHint: true \(declared\)/,
    );
    expect(session.writes()).toEqual([]);
  });

  it('runs an accepted call exactly once', async () => {
    session.answer({ action: 'accept', content: {} });
    const result = await callTool(session.client, 'counter_write_value', { key: 'k', value: 2 });
    expect(result['isError']).toBeUndefined();
    expect(session.writes()).toHaveLength(1);
  });

  it('never asks about a read-only call', async () => {
    const before = session.asked.length;
    await callTool(session.client, 'counter_read_value', { key: 'k' });
    expect(session.asked).toHaveLength(before);
  });

  it('reports a destructive call that fails on the way, calling the server exactly once', async () => {
    session.answer({ action: 'accept' });
    await expect(
      callTool(session.client, 'counter_write_value', { key: 'x', fail: 'exit' }),
    ).rejects.toMatchObject({ code: -32011 });
    // The server restarts; nothing repeats the call.
    await eventually(async () => {
      const result = await callTool(session.client, 'counter_read_value', { key: 'after' });
      return result['isError'] === undefined ? true : undefined;
    }).catch(() => undefined);
    expect(session.writes().filter((call) => call.args['fail'] === 'exit')).toHaveLength(1);
  });
});

describe.each(FRONTS)('confirmation of a 2026 client by input_required, over %s', (front) => {
  it('goes through the SDK client answering the question: accepted runs once, declined never', async () => {
    const session = await open(front, 'modern');
    try {
      session.answer({ action: 'decline' });
      const declined = await callTool(session.client, 'counter_write_value', {
        key: 'm',
        value: 1,
      });
      expect(declined['isError']).toBe(true);
      expect(session.writes()).toEqual([]);
      expect(String(session.asked[0]?.['message'])).toContain('counter.write_value');
      session.answer({ action: 'accept' });
      const accepted = await callTool(session.client, 'counter_write_value', {
        key: 'm',
        value: 2,
      });
      expect(accepted['isError']).toBeUndefined();
      expect(session.writes()).toHaveLength(1);
    } finally {
      await session.close();
    }
  });

  it('signs the request state: the answer runs the call once; forged, replayed or misapplied states are refused', async () => {
    const session = await open(front, 'modern', { autoFulfill: false });
    try {
      const args = { key: 'z', value: 3 };
      const first = await callTool(
        session.client,
        'counter_write_value',
        args,
        {},
        {
          allowInputRequired: true,
        },
      );
      expect(first).toMatchObject({
        resultType: 'input_required',
        inputRequests: { 'hintgate-confirm': { method: 'elicitation/create' } },
      });
      const state = String(first['requestState']);
      expect(state).toMatch(/^hg\.v1\./);
      const answer = { 'hintgate-confirm': { action: 'accept', content: {} } };
      const retry = (stateValue: string, callArgs = args) =>
        callTool(
          session.client,
          'counter_write_value',
          callArgs,
          { inputResponses: answer, requestState: stateValue },
          { allowInputRequired: true },
        );
      const [head, version, body, mac] = state.split('.');
      const forged = [head, version, `${body}`, `${mac?.slice(0, -2)}AA`].join('.');
      await expect(retry(forged)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('signature does not match'),
      });
      await expect(retry(state, { key: 'z', value: 4 })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('another call'),
      });
      expect(session.writes()).toEqual([]);
      const done = await retry(state);
      expect(done['isError']).toBeUndefined();
      expect(session.writes()).toHaveLength(1);
      await expect(retry(state)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('already used'),
      });
      expect(session.writes()).toHaveLength(1);
    } finally {
      await session.close();
    }
  });
});

describe('the request state of a 2026 client over stateless HTTP', () => {
  /** The first round of a write: the input_required result. */
  const ask = (session: Awaited<ReturnType<typeof open>>, args: Record<string, unknown>) =>
    callTool(session.client, 'counter_write_value', args, {}, { allowInputRequired: true });
  const answer = (
    session: Awaited<ReturnType<typeof open>>,
    args: Record<string, unknown>,
    requestState: unknown,
  ) =>
    callTool(
      session.client,
      'counter_write_value',
      args,
      {
        inputResponses: { 'hintgate-confirm': { action: 'accept', content: {} } },
        requestState,
      },
      { allowInputRequired: true },
    );

  it('is refused once it has expired, and the call never runs', async () => {
    const session = await open('http', 'modern', {
      autoFulfill: false,
      policy: { approvalTimeoutMs: 1_000 },
    });
    try {
      const args = { key: 'late', value: 1 };
      const first = await ask(session, args);
      expect(first['resultType']).toBe('input_required');
      // The state lives for the approval timeout, counted in whole seconds.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      await expect(answer(session, args, first['requestState'])).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('has expired'),
      });
      expect(session.writes()).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('is accepted once by gateways sharing PostgreSQL and the secret: a replay to another is refused', async () => {
    const storage = await testStorage('postgres');
    const logs = scratchDir();
    const gateways: (GatewayProcess & { url: string })[] = [];
    const clients: Client[] = [];
    try {
      for (let index = 0; index < 2; index++) {
        const config = writeConfig(
          scratchDir(),
          { counter: counterServer(logs) },
          {
            store: storeSpec(storage),
            policy: { requestState: { secret: 'one-secret-for-every-gateway-here' } },
          },
        );
        const gateway = await startHttpGateway(config);
        gateways.push(gateway);
        const { client } = elicitingClient('modern', () => ({ action: 'accept' }), {
          autoFulfill: false,
        });
        await connectGatewayHttp(client, gateway.url);
        clients.push(client);
      }
      const [a, b] = clients as [Client, Client];
      const args = { key: 'shared', value: 1 };
      const call = (client: Client, extra: Record<string, unknown>) =>
        callTool(client, 'counter_write_value', args, extra, { allowInputRequired: true });
      const first = await call(a, {});
      expect(first['resultType']).toBe('input_required');
      const retry = {
        inputResponses: { 'hintgate-confirm': { action: 'accept', content: {} } },
        requestState: first['requestState'],
      };
      // Answered on the other gateway (behind one balancer, any gateway may get the retry).
      expect((await call(b, retry))['isError']).toBeUndefined();
      await expect(call(a, retry)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('already used'),
      });
      await expect(call(b, retry)).rejects.toMatchObject({ code: -32602 });
      expect(callsIn(logs, 'counter', 'write_value')).toHaveLength(1);
    } finally {
      for (const client of clients) await client.close();
      for (const gateway of gateways) {
        gateway.child.kill('SIGTERM');
        await gateway.exited;
      }
      await storage.cleanup();
    }
  });
});
