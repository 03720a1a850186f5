import type { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { LOOSE, connectHttp, connectStdio, startHttpGateway } from '../helpers/gateway.js';

/**
 * No client can bring the gateway down: calls with a progress token that the client
 * abandons (its request timeout) or cancels while progress is still flowing, many times in
 * a row, on every entrance (the HTTP and stdio fast paths, and the SDK path), for both eras.
 * Afterwards the same gateway answers a normal call.
 */

const ROUNDS = 8;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
});

function config(): string {
  return writeConfig(scratchDir(), { echo: fixtureServer('echo') });
}

/** A slow call with progress that the client gives up on, by timeout or by cancelling. */
async function abandon(client: Client, how: 'timeout' | 'cancel'): Promise<void> {
  const controller = new AbortController();
  let progressed = 0;
  const call = client.request(
    { method: 'tools/call', params: { name: 'echo_slow', arguments: { steps: 40, delay: 15 } } },
    LOOSE,
    {
      onprogress: () => {
        progressed++;
        if (how === 'cancel' && progressed === 2) controller.abort('enough');
      },
      signal: controller.signal,
      ...(how === 'timeout' ? { timeout: 60 } : {}),
    },
  );
  await expect(call).rejects.toThrow();
}

async function stillServes(client: Client): Promise<void> {
  const result = await client.request(
    { method: 'tools/call', params: { name: 'echo_slow', arguments: { steps: 2, delay: 1 } } },
    LOOSE,
  );
  expect(result['content']).toEqual([{ type: 'text', text: 'counted 2' }]);
}

describe.each([
  ['HTTP, fast path', 'http', []],
  ['HTTP, SDK path', 'http', ['--no-fast-path']],
  ['stdio, fast path', 'stdio', []],
] as const)('abandoned calls with progress: %s', (_name, front, extra) => {
  it.each(['v2-legacy', 'v2-auto'] as const)(
    'survives calls a %s client times out or cancels mid-progress',
    async (kind) => {
      let client: Client;
      let gateway: (GatewayProcess & { url: string }) | undefined;
      if (front === 'http') {
        gateway = await startHttpGateway(config(), ['--no-auth', ...extra]);
        const started = gateway;
        closers.push(async () => {
          started.child.kill('SIGTERM');
          await started.exited;
        });
        client = (await connectHttp(started.url, kind)) as Client;
      } else {
        const session = await connectStdio(config(), kind, extra);
        closers.push(() => session.client.close());
        client = session.client;
      }
      closers.push(() => client.close());
      for (let round = 0; round < ROUNDS; round++) {
        await abandon(client, round % 2 === 0 ? 'timeout' : 'cancel');
      }
      await stillServes(client);
      if (gateway !== undefined) {
        expect(gateway.child.exitCode).toBeNull();
        expect(gateway.stderr()).not.toMatch(/ERR_INVALID_STATE|Unhandled|TypeError/);
      }
    },
  );
});
