import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  callsIn,
  connectGatewayStdio,
  counterServer,
  elicitingClient,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { scratchDir } from '../helpers/config.js';
import { rawListTools } from '../helpers/gateway.js';

describe('the call path end to end: retry, cache, rate limits, policy', () => {
  const dir = scratchDir();
  let client: Client;

  beforeAll(async () => {
    const config = await writeFastConfig(
      dir,
      {
        counter: counterServer(dir, 'counter', {
          timeouts: { callMs: 600 },
          reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
        }),
      },
      {
        policy: {
          retry: { maxAttempts: 6, initialDelayMs: 50, maxDelayMs: 400, totalMs: 4_000 },
          rateLimit: { maxWaitMs: 0 },
          timeouts: { estimateFactor: 10, minMs: 100 },
          tools: {
            'counter.add_entry': { deny: true, message: 'Appending is off today.' },
            'counter.flaky_lookup': { retryOnTimeout: true },
          },
        },
      },
    );
    client = elicitingClient('legacy', () => ({ action: 'accept' })).client;
    await connectGatewayStdio(client, config);
  });
  afterAll(() => client?.close());

  it('never retries a read-only call that timed out: the server may still be running it', async () => {
    await expect(
      callTool(client, 'counter_flaky_read', { key: 'hang', failures: 1, mode: 'hang' }),
    ).rejects.toMatchObject({ code: -32001 });
    expect(
      callsIn(dir, 'counter', 'flaky_read').filter((c) => c.args['key'] === 'hang'),
    ).toHaveLength(1);
  });

  it('retries a timed-out call of a tool declared idempotent when config says so', async () => {
    const result = await callTool(client, 'counter_flaky_lookup', {
      key: 'hang-lookup',
      failures: 1,
      mode: 'hang',
    });
    expect(result['isError']).toBeUndefined();
    expect(JSON.parse(textOf(result))).toMatchObject({ attempts: 2 });
    expect(
      callsIn(dir, 'counter', 'flaky_lookup').filter((c) => c.args['key'] === 'hang-lookup'),
    ).toHaveLength(2);
  });

  it('retries a read-only call whose server crashed, once the server is back', async () => {
    const result = await callTool(client, 'counter_flaky_read', {
      key: 'exit',
      failures: 1,
      mode: 'exit',
    });
    expect(result['isError']).toBeUndefined();
    const calls = callsIn(dir, 'counter', 'flaky_read').filter((c) => c.args['key'] === 'exit');
    expect(calls).toHaveLength(2);
    expect(calls[0]?.pid).not.toBe(calls[1]?.pid);
  });

  it('calls a destructive tool that times out exactly once', async () => {
    await expect(
      callTool(client, 'counter_write_value', { key: 'slow', fail: 'hang' }),
    ).rejects.toMatchObject({ code: -32001 });
    expect(
      callsIn(dir, 'counter', 'write_value').filter((c) => c.args['key'] === 'slow'),
    ).toHaveLength(1);
  });

  it("times a call out after ten times the tool's estimatedDuration, not the server's timeout", async () => {
    // slow_write is estimated at 50 ms: 500 ms, where the server's callMs is 600.
    await expect(
      callTool(client, 'counter_slow_write', { key: 'est', value: 1, ms: 5_000 }),
    ).rejects.toMatchObject({ code: -32001, message: expect.stringContaining('within 500 ms') });
    // Three times its estimate is still within its timeout.
    const ok = await callTool(client, 'counter_slow_write', { key: 'est', value: 2, ms: 150 });
    expect(ok['isError']).toBeUndefined();
    expect(callsIn(dir, 'counter', 'slow_write')).toHaveLength(2);
  });

  it("does not retry a tool's own error result", async () => {
    const result = await callTool(client, 'counter_write_value', { key: 'e', fail: 'error' });
    expect(result['isError']).toBe(true);
    expect(
      callsIn(dir, 'counter', 'write_value').filter((c) => c.args['key'] === 'e'),
    ).toHaveLength(1);
  });

  it('answers repeated reads from the cache until a write to the server', async () => {
    const reads = () => callsIn(dir, 'counter', 'read_value').filter((c) => c.args['key'] === 'c');
    const first = await callTool(client, 'counter_read_value', { key: 'c' });
    for (let i = 0; i < 4; i++) {
      const hit = await callTool(client, 'counter_read_value', { key: 'c' });
      expect(hit['content']).toEqual(first['content']);
      expect(hit['_meta']).toMatchObject({ 'dev.hintgate/cache': { hit: true } });
    }
    expect(reads()).toHaveLength(1);
    await callTool(client, 'counter_write_value', { key: 'c', value: 'new' });
    const after = await callTool(client, 'counter_read_value', { key: 'c' });
    expect(JSON.parse(textOf(after))).toMatchObject({ value: 'new' });
    expect(reads()).toHaveLength(2);
    // An idempotent write invalidates as well.
    await callTool(client, 'counter_tag_value', { key: 'c', tag: 't' });
    await callTool(client, 'counter_read_value', { key: 'c' });
    expect(reads()).toHaveLength(3);
  });

  it('holds a tool to its rateLimitHint: over the limit, a clear error and no call', async () => {
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push(await callTool(client, 'counter_get_quote', { symbol: `S${i}` }));
    expect(results.slice(0, 2).every((result) => result['isError'] === undefined)).toBe(true);
    expect(results[2]?.['isError']).toBe(true);
    expect(textOf(results[2] ?? {})).toMatch(
      /^Rate limit: counter_get_quote takes at most 2 call\(s\) a minute; try again in \d+ s\.$/,
    );
    expect(callsIn(dir, 'counter', 'get_quote')).toHaveLength(2);
  });

  it('refuses a tool config denies, with its message, and the server never sees it', async () => {
    const result = await callTool(client, 'counter_add_entry', { key: 'd', entry: 1 });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Appending is off today.' }],
    });
    expect(callsIn(dir, 'counter', 'add_entry')).toEqual([]);
    expect((await rawListTools(client)).some((tool) => tool['name'] === 'counter_add_entry')).toBe(
      true,
    );
  });

  it('keeps all attempts within the retry budget (the client timeout) against a slow server', async () => {
    // Every attempt hangs: 600 ms timeouts and waits of at least 50, 100, 200, 400 and 400 ms:
    // six attempts would take 4,750 ms, over the budget of 4,000.
    const started = Date.now();
    await expect(
      callTool(client, 'counter_flaky_lookup', { key: 'budget', failures: 99, mode: 'hang' }),
    ).rejects.toMatchObject({ code: -32001 });
    const calls = callsIn(dir, 'counter', 'flaky_lookup').filter((c) => c.args['key'] === 'budget');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThan(6);
    expect(Date.now() - started).toBeLessThan(4_000 + 500);
  });
});
