import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { spawnGateway } from '../helpers/gateway.js';
import type { Wire } from '../helpers/wire.js';

/** Speaks raw lines to a gateway's stdin and reads its stdout. */
class RawPeer {
  private buffer = '';
  private readonly received: Record<string, Wire>[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(private readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        this.received.push(JSON.parse(line) as Record<string, Wire>);
        for (const waiter of this.waiters) waiter();
      }
    });
  }

  send(line: string | object): void {
    this.child.stdin?.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  }

  /** The next received message matching `match`. */
  next(
    match: (message: Record<string, Wire>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, Wire>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const index = this.received.findIndex(match);
        if (index === -1) return;
        const [message] = this.received.splice(index, 1);
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(message as Record<string, Wire>);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no matching message; received ${JSON.stringify(this.received)}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  reply(id: unknown): Promise<Record<string, Wire>> {
    return this.next((message) => message['id'] === id && !('method' in message));
  }
}

describe('the stdio front with malformed and early input', () => {
  const config = writeConfig(scratchDir(), { echo: fixtureServer('echo', [], { era: 'legacy' }) });
  const gateway = spawnGateway(['serve', '--config', config]);
  const peer = new RawPeer(gateway.child);

  beforeAll(async () => {
    await gateway.waitForStderr(/1 of 1 server\(s\) up/, 50_000);
  });

  afterAll(async () => {
    gateway.child.stdin?.end();
    expect(await gateway.exited).toBe(0);
  });

  it('answers a line that is not JSON with -32700 and id null', async () => {
    peer.send('this is not json');
    expect(await peer.reply(null)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700 },
    });
  });

  it.each([
    [
      'a wrong version',
      { jsonrpc: '1.0', id: 'v', method: 'ping' },
      'v',
      'expected "jsonrpc": "2.0"',
    ],
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], null, 'batches are not supported'],
    [
      'params that are not an object',
      { jsonrpc: '2.0', id: 'p', method: 'tools/list', params: 'x' },
      'p',
      '"params" must be an object',
    ],
    ['a message without method or id', { jsonrpc: '2.0' }, null, 'expected "method"'],
  ])('answers %s with -32600', async (_label, message, id, reason) => {
    peer.send(message);
    const reply = await peer.reply(id);
    expect(reply['error']).toMatchObject({
      code: -32600,
      message: expect.stringContaining(reason),
    });
  });

  it('refuses a request before initialize with -32600 naming it, but answers ping', async () => {
    peer.send({ jsonrpc: '2.0', id: 'early', method: 'tools/list' });
    expect((await peer.reply('early'))['error']).toMatchObject({
      code: -32600,
      message: expect.stringContaining('"tools/list" before initialize'),
    });
    peer.send({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
    expect(await peer.reply('ping')).toMatchObject({ result: {} });
  });

  it('keeps serving after all of that: initialize, list, call, unknown method', async () => {
    peer.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    expect((await peer.reply('init'))['result']).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'hintgate' },
    });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    peer.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    expect(((await peer.reply('list'))['result'].tools as unknown[]).length).toBe(10);
    peer.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo_echo', arguments: { text: 'raw' } },
    });
    expect(await peer.reply(7)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'raw' }] },
    });
    peer.send({ jsonrpc: '2.0', id: 'nope', method: 'no/such/method' });
    expect((await peer.reply('nope'))['error']).toMatchObject({ code: -32601 });
    peer.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo_nope' } });
    expect((await peer.reply(8))['error']).toMatchObject({
      code: -32602,
      message: 'Unknown tool: "echo_nope"',
    });
  });
});

describe('the stdio front for a raw 2026 client', () => {
  const config = writeConfig(scratchDir(), { echo: fixtureServer('echo', [], { era: 'legacy' }) });
  const gateway = spawnGateway(['serve', '--config', config]);
  const peer = new RawPeer(gateway.child);
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw26', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  afterAll(async () => {
    gateway.child.stdin?.end();
    await gateway.exited;
  });

  it('discovers, lists and calls with the 2026 stamps on every result', async () => {
    peer.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } });
    expect((await peer.reply(1))['result']).toMatchObject({
      supportedVersions: ['2026-07-28'],
      resultType: 'complete',
    });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope } });
    const list = (await peer.reply(2))['result'];
    expect(list).toMatchObject({
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'hintgate' } },
    });
    peer.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { _meta: envelope, name: 'echo_echo', arguments: { text: 'new' } },
    });
    expect((await peer.reply(3))['result']).toEqual({
      content: [{ type: 'text', text: 'new' }],
      resultType: 'complete',
      _meta: {
        'io.modelcontextprotocol/serverInfo': { name: 'hintgate', version: expect.any(String) },
      },
    });
  });
});
