import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { FrontHub } from '../../src/front/hub.js';
import type { ModernPublisher } from '../../src/front/hub.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * A 2025 front instance of `principal` tracked by `hub`, subscribed to `team://me` and at log
 * level debug, with what its client received.
 */
async function session(hub: FrontHub, principal: string | undefined) {
  const server = new Server(
    { name: 'hub-test', version: '1.0.0' },
    { capabilities: { resources: { subscribe: true }, logging: {} } },
  );
  const client = new Client(
    { name: `client-${principal ?? 'stdio'}`, version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  const received: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (note) => {
    received.push(`updated ${note.params.uri}`);
  });
  client.setNotificationHandler('notifications/message', (note) => {
    received.push(`log ${String(note.params.data)}`);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  hub.track(server, {
    era: 'legacy',
    front: 'http',
    state: { subscriptions: new Set(['team://me']), logLevel: 'debug' },
    principal,
  });
  closers.push(() => client.close());
  return received;
}

describe('FrontHub', () => {
  it("tells a principal's own sessions alone what came over that principal's connection", async () => {
    const hub = new FrontHub();
    const published: string[] = [];
    const publisher: ModernPublisher = {
      notify: {
        toolsChanged: () => undefined,
        promptsChanged: () => undefined,
        resourcesChanged: () => undefined,
        resourceUpdated: (uri) => published.push(uri),
      },
    };
    hub.addPublisher(publisher);
    const alice = await session(hub, 'alice');
    const bob = await session(hub, 'bob');
    const anonymous = await session(hub, undefined);

    hub.resourceUpdated({ uri: 'team://me' }, 'alice');
    hub.log({ level: 'info', data: 'for bob' }, 'bob');
    // Waited for as they arrive (however loaded the machine), then nothing else came.
    await expect.poll(() => alice).toEqual(['updated team://me']);
    await expect.poll(() => bob).toEqual(['log for bob']);
    expect(anonymous).toEqual([]);
    // 2026 HTTP listen streams are not told apart by principal: they hear none of it.
    expect(published).toEqual([]);

    // What a shared server reports reaches everyone subscribed or listening.
    hub.resourceUpdated({ uri: 'team://me' });
    hub.log({ level: 'info', data: 'for all' });
    for (const received of [alice, bob, anonymous]) {
      await expect.poll(() => received.slice(-2)).toEqual(['updated team://me', 'log for all']);
    }
    expect(published).toEqual(['team://me']);
  });
});
