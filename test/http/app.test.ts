import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { createHttpApp } from '../../src/http/app.js';
import { httpSecurity } from '../../src/http/auth.js';
import { createMcpEndpoint } from '../../src/front/http-endpoint.js';
import { scratchDir } from '../helpers/config.js';
import { fixture } from '../helpers/paths.js';
import { openTestStore } from '../helpers/store.js';
import type { Wire } from '../helpers/wire.js';

const store = await openTestStore();
const gateway = createGateway({
  store,
  config: configSchema.parse({
    mcpServers: { echo: { command: process.execPath, args: [fixture('echo')], era: 'legacy' } },
  }),
  dataDir: scratchDir(),
  identity: { name: 'hintgate', version: 'test' },
  baseEnv: process.env,
});
const endpoint = createMcpEndpoint({ backend: gateway.backend, hub: gateway.hub });
const app = createHttpApp({
  endpoint,
  security: httpSecurity({
    host: '127.0.0.1',
    token: 'token-token-token',
    authDisabled: false,
    allowedHosts: [],
    allowedOrigins: [],
  }),
});
const headers = {
  host: '127.0.0.1:1',
  authorization: 'Bearer token-token-token',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const post = (body: unknown, extra: Record<string, string> = {}) =>
  app.request('/mcp', {
    method: 'POST',
    headers: { ...headers, ...extra },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

afterAll(async () => {
  await endpoint.close();
  await gateway.close();
  await store.close();
});

/** The JSON-RPC messages of an SSE or JSON response body (priming events carry none). */
async function messages(response: Response): Promise<Wire[]> {
  const text = await response.text();
  if (response.headers.get('content-type')?.includes('application/json') === true)
    return [JSON.parse(text) as unknown];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.slice(6).trim() !== '')
    .map((line): unknown => JSON.parse(line.slice(6)));
}

describe('the HTTP app', () => {
  it('opens a 2025 session and serves it, then ends it', async () => {
    void gateway.start();
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'app-test', version: '1' },
      },
    });
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id') ?? '';
    expect(session).not.toBe('');
    expect((await messages(init))[0].result.serverInfo.name).toBe('hintgate');
    expect(endpoint.sessionCount).toBe(1);
    const withSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, withSession);
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo_echo', arguments: { text: 'over http' } },
      },
      withSession,
    );
    expect((await messages(call)).at(-1)).toMatchObject({
      id: 2,
      result: { content: [{ type: 'text', text: 'over http' }] },
    });
    const ended = await app.request('/mcp', {
      method: 'DELETE',
      headers: { ...headers, ...withSession },
    });
    expect(ended.status).toBe(200);
    expect(endpoint.sessionCount).toBe(0);
  });

  it.each([
    ['a body that is not JSON', '{', 400, -32700, null],
    ['a JSON-RPC batch', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], 400, -32600, null],
    [
      'a request before initialize',
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      400,
      -32600,
      9,
    ],
  ])('answers %s with the right JSON-RPC error', async (_label, body, status, code, id) => {
    const response = await post(body);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
  });

  it('answers an unknown session with 404', async () => {
    const response = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-session-id': 'gone' },
    );
    expect(response.status).toBe(404);
  });

  it('keeps /mcp behind the checks, and leaves other paths to later routes', async () => {
    expect(
      (await app.request('/mcp', { method: 'POST', headers: { host: '127.0.0.1' }, body: '{}' }))
        .status,
    ).toBe(401);
    expect((await app.request('/api/anything', { headers: { host: 'evil.example' } })).status).toBe(
      403,
    );
    expect((await app.request('/api/anything', { headers })).status).toBe(404);
  });
});
