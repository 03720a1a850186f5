import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  InMemoryTransport,
  McpServer,
  ProtocolError,
  Server,
  createMcpHandler,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { JsonObject } from '../../src/mcp/json-rpc.js';
import {
  TOOL_RESOLUTION_EXTENSION,
  addDynamicAnnotations,
  callToolSafely,
  forgetListedTools,
  preflight,
  toolResolutionCapabilities,
} from '../../src/mcp/index.js';
import { LOOSE } from '../helpers/gateway.js';
import { packageBin } from '../helpers/paths.js';
import type { Wire } from '../helpers/wire.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const WORST = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
const MARKED = {
  dynamicAnnotations: true,
  _meta: { [TOOL_RESOLUTION_EXTENSION]: { resolvable: true } },
};
const ok = () => ({ content: [{ type: 'text' as const, text: 'called' }] });

/** Serves `factory` in-process (serveStdio over a linked pair) to a v2 client. */
async function serve(
  factory: () => McpServer | Server,
  mode: 'legacy' | 'auto' = 'auto',
  capabilities: ClientCapabilities = toolResolutionCapabilities(),
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(factory, { transport: serverSide });
  const client = new Client(
    { name: 'dynamic-client-test', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode } },
  );
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await handle.close();
  });
  return client;
}

/**
 * A hand-written server whose dynamic answers are whatever the test says, counting every
 * request by method: for the client's checks and fallbacks.
 */
function scripted(options: {
  tools: JsonObject[];
  resolve?: (params: JsonObject) => unknown;
  annotations?: (params: JsonObject) => unknown;
  counts: Record<string, number>;
}) {
  const count = (method: string) => {
    options.counts[method] = (options.counts[method] ?? 0) + 1;
  };
  const server = new Server(
    { name: 'scripted', version: '1.0.0' },
    { capabilities: { tools: {}, extensions: { [TOOL_RESOLUTION_EXTENSION]: {} } } },
  );
  server.setRequestHandler('tools/list', () => {
    count('tools/list');
    return { tools: options.tools as never };
  });
  server.setRequestHandler('tools/call', () => {
    count('tools/call');
    return ok();
  });
  const custom = (method: string, answer: ((params: JsonObject) => unknown) | undefined) => {
    if (answer === undefined) return;
    server.setRequestHandler(method, { params: LOOSE }, (params) => {
      count(method);
      return answer(params) as JsonObject;
    });
  };
  custom('tools/resolve', options.resolve);
  custom('tools/annotations', options.annotations);
  return server;
}

const tool = (name: string, annotations?: JsonObject, extra: JsonObject = MARKED): JsonObject => ({
  name,
  inputSchema: { type: 'object' },
  ...(annotations === undefined ? {} : { annotations }),
  ...extra,
});

describe('preflight against a server without the methods (server-everything)', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'dynamic-client-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [packageBin('@modelcontextprotocol/server-everything')],
        stderr: 'pipe',
      }),
    );
  });
  afterAll(async () => {
    await client.close();
  });

  it('uses the static annotations of an unmarked tool without asking', async () => {
    const check = await preflight(client, 'echo', { message: 'hi' });
    expect(check).toEqual({ annotations: READ_ONLY, source: 'static', callable: true });
  });

  it('falls back to the static annotations when the server has no tools/annotations', async () => {
    const listed: Wire = await client.request({ method: 'tools/list', params: {} }, LOOSE);
    const echo = listed.tools.find((item: Wire) => item.name === 'echo');
    const check = await preflight(
      client,
      'echo',
      { message: 'hi' },
      { tool: { ...echo, dynamicAnnotations: true } },
    );
    expect(check).toMatchObject({
      annotations: READ_ONLY,
      source: 'static',
      method: 'tools/annotations',
      callable: true,
      error: { kind: 'not-supported', code: -32601, surface: false },
    });
  });

  it('calls a read-only tool without confirmation', async () => {
    const confirm = vi.fn(() => false);
    const outcome = await callToolSafely(client, 'echo', { message: 'hi' }, { confirm });
    expect(outcome).toMatchObject({ kind: 'called', confirmed: false });
    if (outcome.kind === 'called') expect(JSON.stringify(outcome.result.content)).toContain('hi');
    expect(confirm).not.toHaveBeenCalled();
  });
});

describe('preflight fallbacks', () => {
  it('falls back to the static annotations when the resolver fails, and confirms on them', async () => {
    const called = vi.fn(ok);
    const client = await serve(() => {
      const server = new McpServer({ name: 'erring', version: '1.0.0' });
      server.registerTool('risky', { inputSchema: z.object({}), annotations: WORST }, called);
      addDynamicAnnotations(server, {
        resolvers: {
          risky: () => {
            throw new Error('cannot tell');
          },
        },
      });
      return server;
    });
    const check = await preflight(client, 'risky', {});
    expect(check).toMatchObject({
      annotations: WORST,
      source: 'static',
      method: 'tools/resolve',
      callable: true,
      error: { kind: 'failed', code: -32603, surface: false },
    });
    expect(check.error?.message).toContain('cannot tell');
    const confirm = vi.fn(() => false);
    const outcome = await callToolSafely(client, 'risky', {}, { confirm });
    expect(outcome).toMatchObject({ kind: 'refused', reason: 'declined' });
    expect((confirm.mock.calls[0] as unknown as [{ reason: string }])[0].reason).toMatch(
      /static annotations say it may be destructive; the preflight failed: .*cannot tell/,
    );
    expect(called).not.toHaveBeenCalled();
  });

  it('surfaces the error of a tool with no static annotations, and treats it as destructive', async () => {
    const counts: Record<string, number> = {};
    const client = await serve(() =>
      scripted({
        tools: [tool('bare')],
        resolve: () => {
          throw new ProtocolError(-32603, 'no idea');
        },
        counts,
      }),
    );
    const check = await preflight(client, 'bare', {});
    expect(check).toMatchObject({
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
      source: 'static',
      callable: true,
      error: { kind: 'failed', surface: true },
    });
    const confirm = vi.fn(() => true);
    const outcome = await callToolSafely(client, 'bare', {}, { confirm });
    expect(outcome).toMatchObject({ kind: 'called', confirmed: true });
    expect((confirm.mock.calls[0] as unknown as [{ reason: string }])[0].reason).toContain(
      'it has no annotations',
    );
    expect(counts['tools/call']).toBe(1);
  });

  it.each([
    [
      'another tool name',
      { resultType: 'complete', name: 'other', annotations: READ_ONLY },
      'name-mismatch',
    ],
    ['a missing hint', { name: 'multi', annotations: { readOnlyHint: true } }, 'malformed'],
    ['an unknown hint', { name: 'multi', annotations: { ...READ_ONLY, title: 'x' } }, 'malformed'],
  ])('rejects a tools/resolve answer with %s', async (_label, answer, kind) => {
    const counts: Record<string, number> = {};
    const client = await serve(
      () => scripted({ tools: [tool('multi', WORST)], resolve: () => answer, counts }),
      'legacy',
    );
    const check = await preflight(client, 'multi', {});
    expect(check).toMatchObject({ annotations: WORST, source: 'static', error: { kind } });
  });

  it('rejects answers beyond the static bound, from either method', async () => {
    const counts: Record<string, number> = {};
    const staticReadOnly = { readOnlyHint: true, openWorldHint: false };
    const client = await serve(() =>
      scripted({
        tools: [
          tool('resolved', staticReadOnly),
          tool('annotated', staticReadOnly, { dynamicAnnotations: true }),
        ],
        resolve: () => ({ name: 'resolved', annotations: { ...READ_ONLY, readOnlyHint: false } }),
        annotations: () => ({ annotations: { openWorldHint: true } }),
        counts,
      }),
    );
    const resolved = await preflight(client, 'resolved', {});
    expect(resolved).toMatchObject({
      source: 'static',
      method: 'tools/resolve',
      error: { kind: 'exceeds-bound', data: { fields: ['readOnlyHint'] } },
    });
    expect(resolved.annotations).toEqual(READ_ONLY);
    const annotated = await preflight(client, 'annotated', {});
    expect(annotated).toMatchObject({
      source: 'static',
      method: 'tools/annotations',
      error: { kind: 'exceeds-bound', data: { fields: ['openWorldHint'] } },
    });
  });

  it('turns to tools/annotations when tools/resolve is not negotiated or not served', async () => {
    const counts: Record<string, number> = {};
    const client = await serve(() =>
      scripted({
        tools: [tool('multi', WORST)],
        resolve: () => {
          throw new ProtocolError(-32021, 'not negotiated');
        },
        annotations: () => ({ annotations: { readOnlyHint: true } }),
        counts,
      }),
    );
    const check = await preflight(client, 'multi', {});
    expect(check).toEqual({
      annotations: READ_ONLY,
      source: 'dynamic',
      method: 'tools/annotations',
      callable: true,
    });

    const plainCounts: Record<string, number> = {};
    const other = await serve(() =>
      scripted({
        tools: [tool('multi', WORST)],
        annotations: () => ({ annotations: { readOnlyHint: false, destructiveHint: false } }),
        counts: plainCounts,
      }),
    );
    const fallback = await preflight(other, 'multi', {});
    expect(fallback).toMatchObject({ source: 'dynamic', method: 'tools/annotations' });
    expect(fallback.annotations).toEqual({ ...WORST, destructiveHint: false });
  });

  it('does not try tools/annotations after tools/resolve failed for another reason', async () => {
    const counts: Record<string, number> = {};
    const client = await serve(() =>
      scripted({
        tools: [tool('multi', WORST)],
        resolve: () => {
          throw new ProtocolError(-32603, 'broken');
        },
        annotations: () => ({ annotations: READ_ONLY }),
        counts,
      }),
    );
    const check = await preflight(client, 'multi', {});
    expect(check).toMatchObject({ source: 'static', method: 'tools/resolve' });
    expect(counts['tools/annotations']).toBeUndefined();
  });

  it('refuses an unknown tool without calling it', async () => {
    const counts: Record<string, number> = {};
    const client = await serve(() => scripted({ tools: [tool('multi', WORST)], counts }));
    const outcome = await callToolSafely(client, 'ghost', {}, { confirm: () => true });
    expect(outcome).toMatchObject({
      kind: 'refused',
      reason: 'not-callable',
      preflight: { callable: false, error: { kind: 'unknown-tool', surface: true } },
    });
    expect(counts['tools/call']).toBeUndefined();
  });

  it('rejects when the caller aborts rather than falling back', async () => {
    const counts: Record<string, number> = {};
    const client = await serve(() =>
      scripted({
        tools: [tool('slow', WORST)],
        resolve: () => new Promise(() => undefined),
        counts,
      }),
    );
    const controller = new AbortController();
    const pending = preflight(client, 'slow', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toThrow();
  });
});

describe('what preflight keeps', () => {
  it('lists tools once per client, and again after forgetListedTools or for a new name', async () => {
    const counts: Record<string, number> = {};
    const client = await serve(() =>
      scripted({
        tools: [tool('multi', WORST)],
        resolve: () => ({ name: 'multi', annotations: READ_ONLY }),
        counts,
      }),
    );
    await preflight(client, 'multi', { a: 1 });
    await preflight(client, 'multi', { a: 1 });
    expect(counts['tools/list']).toBe(1);
    // Never the resolution: both calls asked the server.
    expect(counts['tools/resolve']).toBe(2);
    forgetListedTools(client);
    await preflight(client, 'multi', { a: 2 });
    expect(counts['tools/list']).toBe(2);
    await preflight(client, 'unheard-of', {});
    expect(counts['tools/list']).toBe(3);
  });
});

describe('preflight over 2026 streamable HTTP (createMcpHandler)', () => {
  function httpClient(
    factory: () => McpServer,
    capabilities: ClientCapabilities = toolResolutionCapabilities(),
  ): Promise<Client> {
    const handler = createMcpHandler(factory);
    const client = new Client(
      { name: 'dynamic-client-test', version: '1.0.0' },
      { capabilities, versionNegotiation: { mode: 'auto' } },
    );
    closers.push(async () => {
      await client.close();
      await handler.close();
    });
    const transport = new StreamableHTTPClientTransport(new URL('http://test.invalid/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    });
    return client.connect(transport).then(() => client);
  }

  const files = () => {
    const server = new McpServer({ name: 'files', version: '1.0.0' });
    server.registerTool(
      'manage_files',
      {
        inputSchema: z.object({ action: z.enum(['read', 'delete']) }),
        annotations: WORST,
      },
      ok,
    );
    addDynamicAnnotations(server, {
      resolvers: {
        manage_files: ({ action }) => (action === 'read' ? { readOnlyHint: true } : {}),
      },
    });
    return server;
  };

  it('resolves through the per-request server, each request with its own envelope', async () => {
    const client = await httpClient(files);
    expect(client.getProtocolEra()).toBe('modern');
    const check = await preflight(client, 'manage_files', { action: 'read' });
    expect(check).toMatchObject({ source: 'dynamic', method: 'tools/resolve' });
    expect(check.annotations).toEqual(READ_ONLY);
  });

  it('uses tools/annotations for a client that did not declare the extension', async () => {
    const client = await httpClient(files, {});
    const check = await preflight(client, 'manage_files', { action: 'read' });
    expect(check).toMatchObject({ source: 'dynamic', method: 'tools/annotations' });
  });

  it('treats an HTTP 404 for a method the server lacks as not supported', async () => {
    const client = await httpClient(() => {
      const server = new McpServer({ name: 'static', version: '1.0.0' });
      server.registerTool('t', { inputSchema: z.object({}), annotations: WORST }, ok);
      return server;
    });
    const listed: Wire = await client.request({ method: 'tools/list', params: {} }, LOOSE);
    const check = await preflight(
      client,
      't',
      {},
      { tool: { ...listed.tools[0], dynamicAnnotations: true } },
    );
    expect(check).toMatchObject({
      source: 'static',
      annotations: WORST,
      error: { kind: 'not-supported', surface: false },
    });
  });
});
