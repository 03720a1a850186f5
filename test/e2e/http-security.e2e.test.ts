import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { connectHttp, rawCall, spawnGateway, startHttpGateway } from '../helpers/gateway.js';

const TOKEN = 'test-token-0123456789abcdef';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
});

/** A POST to `url` with exactly these headers (node:http, so Host can be set). */
function post(
  url: string,
  headers: Record<string, string>,
  body = INITIALIZE,
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the HTTP front with a bearer token', () => {
  const config = writeConfig(scratchDir(), { echo: fixtureServer('echo', [], { era: 'legacy' }) });
  let gateway: GatewayProcess & { url: string };

  beforeAll(async () => {
    gateway = await startHttpGateway(config, [], { HINTGATE_TOKEN: TOKEN });
  });

  afterAll(async () => {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  });

  it('refuses a request without a token, or with a wrong one, with 401', async () => {
    const missing = await post(gateway.url, {});
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await post(gateway.url, { authorization: 'Bearer wrong-token' })).status).toBe(401);
  });

  it('serves a client that sends the token', async () => {
    const client = await connectHttp(gateway.url, 'v2-legacy', {
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(
      (await rawCall(client as never, 'echo_echo', { text: 'authorized' }))['content'],
    ).toEqual([{ type: 'text', text: 'authorized' }]);
    await client.close();
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin with 403', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const host = await post(gateway.url, { ...auth, host: 'evil.example:80' });
    expect(host.status).toBe(403);
    expect(host.text).toContain('Invalid Host');
    const origin = await post(gateway.url, { ...auth, origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect(origin.text).toContain('Invalid Origin');
    expect((await post(gateway.url, { ...auth, origin: 'http://localhost:3000' })).status).toBe(
      200,
    );
  });

  it('answers malformed JSON-RPC with the right errors and keeps serving', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const parse = await post(gateway.url, auth, '{nope');
    expect(parse.status).toBe(400);
    expect(JSON.parse(parse.text)).toMatchObject({ id: null, error: { code: -32700 } });
    const invalid = await post(
      gateway.url,
      auth,
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 7 }),
    );
    expect(JSON.parse(invalid.text)).toMatchObject({ id: 4, error: { code: -32600 } });
    const early = await post(
      gateway.url,
      auth,
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    );
    expect(early.status).toBe(400);
    expect(JSON.parse(early.text)).toMatchObject({
      id: 5,
      error: { code: -32600, message: expect.stringContaining('before initialize') },
    });
    const unknownSession = await post(
      gateway.url,
      { ...auth, 'mcp-session-id': 'no-such-session' },
      JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }),
    );
    expect(unknownSession.status).toBe(404);
    expect((await post(gateway.url, auth)).status).toBe(200);
  });
});

describe('starting the HTTP front', () => {
  const config = writeConfig(scratchDir(), {});

  it.each([
    [
      ['--http', '127.0.0.1:0'],
      /needs a bearer token: set HINTGATE_TOKEN, pass --token-file <file>, or name tokens in http.tokens, or turn auth off on loopback with --no-auth/,
    ],
    [['--http', '0.0.0.0:0', '--no-auth'], /--no-auth is only allowed on a loopback address/],
    [['--http', 'nonsense'], /--http: expected host:port/],
  ])('refuses %j with a message saying what to do', async (args, message) => {
    const gateway = spawnGateway(
      ['serve', '--config', config, ...args],
      { HINTGATE_TOKEN: '' },
      'ignore',
    );
    expect(await gateway.exited).toBe(2);
    expect(gateway.stderr()).toMatch(message);
  });

  it('runs without auth on loopback when told to', async () => {
    const gateway = await startHttpGateway(config, ['--no-auth']);
    expect(gateway.stderr()).toContain('(no auth)');
    expect((await post(gateway.url, {})).status).toBe(200);
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  });
});
