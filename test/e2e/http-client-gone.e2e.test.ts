import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { startHttpGateway } from '../helpers/gateway.js';
import { waitFor } from '../helpers/processes.js';

/**
 * A client that closes its HTTP request while the call runs (no `notifications/cancelled`,
 * only the connection) has the call cancelled at the server, on the fast path, in a 2025
 * session and as a 2026 request alike.
 */

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const VERSION_2026 = '2026-07-28';

describe('a client that closes its request', () => {
  let dir: string;
  let gateway: GatewayProcess & { url: string };

  beforeAll(async () => {
    dir = scratchDir();
    // A 2025 server: a 2025 client calling a 2026 one is served by the SDK's shim instead.
    gateway = await startHttpGateway(
      writeConfig(dir, { echo: fixtureServer('echo', [], { era: 'legacy' }) }),
    );
    await gateway.waitForStderr(/1 of 1 server\(s\) up/, 60_000);
  }, 90_000);

  afterAll(async () => {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  });

  /** Lines of the echo server's log saying a slow call was cancelled. */
  function cancellations(): number {
    const log = join(dir, 'data', 'logs', 'echo.log');
    let text = '';
    try {
      text = readFileSync(log, 'utf8');
    } catch {
      return 0;
    }
    return text.split('\n').filter((line) => /slow cancelled at step/.test(line)).length;
  }

  /** Posts a slow tools/call and closes the request after 300 ms; the fetch must fail. */
  async function closeMidCall(headers: Record<string, string>, meta?: object): Promise<void> {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('gone')), 300);
    await expect(
      fetch(gateway.url, {
        method: 'POST',
        headers: { ...HEADERS, ...headers },
        signal: controller.signal,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'echo_slow',
            arguments: { steps: 200, delay: 20 },
            ...(meta === undefined ? {} : { _meta: meta }),
          },
        }),
      }).then((response) => response.text()),
    ).rejects.toThrow();
  }

  it('in a 2025 session', async () => {
    const opened = await fetch(gateway.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'gone', version: '1.0.0' },
        },
      }),
    });
    const session = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await fetch(gateway.url, {
      method: 'POST',
      headers: { ...HEADERS, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }).then((response) => response.text());
    const before = cancellations();
    await closeMidCall(headers);
    expect(await waitFor(cancellations, (count) => count > before, 10_000)).toBeGreaterThan(before);
  });

  it('as a 2026 request', async () => {
    const before = cancellations();
    await closeMidCall(
      {
        'mcp-protocol-version': VERSION_2026,
        'mcp-method': 'tools/call',
        'mcp-name': 'echo_slow',
      },
      {
        'io.modelcontextprotocol/protocolVersion': VERSION_2026,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'gone', version: '1.0.0' },
      },
    );
    expect(await waitFor(cancellations, (count) => count > before, 10_000)).toBeGreaterThan(before);
  });
});
