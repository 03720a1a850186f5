import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { startHttpGateway } from '../helpers/gateway.js';

const LIMIT = 4 * 1024 * 1024;
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** A 2025 initialize whose padding makes the body `size` bytes long or more. */
function callBody(size: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { experimental: { 'test/padding': { text: 'x'.repeat(size) } } },
      clientInfo: { name: 'body-test', version: '1.0.0' },
    },
  });
}

/** POSTs `body` in chunks, with no Content-Length (chunked transfer encoding). */
function postChunked(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: HEADERS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    // The gateway may answer and close before every chunk is sent.
    req.on('error', reject);
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.slice(at, at + 64 * 1024));
    req.end();
  });
}

describe('request bodies on the HTTP front', () => {
  let gateway: GatewayProcess & { url: string };

  beforeAll(async () => {
    const config = writeConfig(scratchDir(), { echo: fixtureServer('echo') });
    gateway = await startHttpGateway(config);
    await gateway.waitForStderr(/1 of 1 server\(s\) up/, 60_000);
  }, 90_000);

  afterAll(async () => {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  });

  it('serves a request whose body has a Content-Length, and one sent in chunks', async () => {
    const sized = await fetch(gateway.url, {
      method: 'POST',
      headers: HEADERS,
      body: callBody(1000),
    });
    expect(sized.status).toBe(200);
    expect(await sized.text()).toContain('"serverInfo":{"name":"hintgate"');
    const chunked = await postChunked(gateway.url, callBody(200_000));
    expect(chunked.status).toBe(200);
    expect(chunked.text).toContain('"serverInfo":{"name":"hintgate"');
  });

  it('refuses a body over the limit with 413 naming it, declared or sent in chunks', async () => {
    const declared = await fetch(gateway.url, {
      method: 'POST',
      headers: HEADERS,
      body: callBody(LIMIT + 1),
    });
    expect(declared.status).toBe(413);
    expect(await declared.text()).toContain('message longer than 4 MiB');
    const chunked = await postChunked(gateway.url, callBody(LIMIT + 1)).catch((error: unknown) => ({
      status: 0,
      text: String(error),
    }));
    // Either the 413 arrives, or the gateway stopped reading and the socket was reset.
    if (chunked.status !== 0) {
      expect(chunked.status).toBe(413);
      expect(chunked.text).toContain('message longer than 4 MiB');
    }
    // The gateway serves on.
    const after = await fetch(gateway.url, {
      method: 'POST',
      headers: HEADERS,
      body: callBody(10),
    });
    expect(after.status).toBe(200);
  });

  it('reads a body that starts with a byte order mark as the SDK does, declared or chunked', async () => {
    const body = `\ufeff${callBody(10)}`;
    const sized = await fetch(gateway.url, { method: 'POST', headers: HEADERS, body });
    expect(sized.status).toBe(200);
    expect(await sized.text()).toContain('"serverInfo":{"name":"hintgate"');
    const chunked = await postChunked(gateway.url, body);
    expect(chunked.status).toBe(200);
    expect(chunked.text).toContain('"serverInfo":{"name":"hintgate"');
  });

  it('answers a malformed body with a parse error, whichever way it was sent', async () => {
    const sized = await fetch(gateway.url, {
      method: 'POST',
      headers: HEADERS,
      body: '{"jsonrpc":',
    });
    expect(sized.status).toBe(400);
    expect(await sized.text()).toContain('Parse error');
    const chunked = await postChunked(gateway.url, '{"jsonrpc":');
    expect(chunked.status).toBe(400);
    expect(chunked.text).toContain('Parse error');
  });
});
