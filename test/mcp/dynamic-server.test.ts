import type { ClientCapabilities, JSONRPCMessage } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import type { ListToolsResult } from '@modelcontextprotocol/server';
import { InMemoryTransport, McpServer, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AnnotationResolver, DynamicAnnotationsOptions } from '../../src/mcp/index.js';
import {
  TOOL_RESOLUTION_EXTENSION,
  addDynamicAnnotations,
  toolResolutionCapabilities,
} from '../../src/mcp/index.js';
import { LOOSE } from '../helpers/gateway.js';
import type { Wire } from '../helpers/wire.js';

type Mode = 'legacy' | 'auto';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Serves `factory` in-process to a v2 client (serveStdio over a linked pair: both eras). */
async function serve(
  factory: () => McpServer | Server,
  mode: Mode,
  capabilities: ClientCapabilities = toolResolutionCapabilities(),
) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const frames: Wire[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message: JSONRPCMessage, options) => {
    frames.push(message);
    return send(message, options);
  };
  const handle = serveStdio(factory, { transport: serverSide });
  const client = new Client(
    { name: 'dynamic-server-test', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode } },
  );
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await handle.close();
  });
  return { client, frames };
}

async function failure(promise: Promise<unknown>): Promise<Wire> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

const ask = (client: Client, method: string, name: string, args: Record<string, unknown> = {}) =>
  client.request({ method, params: { name, arguments: args } }, LOOSE);

const ok = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });

/** An McpServer with one tool per failure mode, all with resolvers except `plain`. */
function mcpServer(seen: Wire[] = [], options: Partial<DynamicAnnotationsOptions> = {}) {
  const server = new McpServer({ name: 'dynamic-test', version: '1.0.0' });
  const closed = { destructiveHint: true, openWorldHint: false };
  const register = (name: string, annotations: Record<string, unknown> | undefined) =>
    server.registerTool(
      name,
      {
        inputSchema: z.object({ mode: z.string() }),
        ...(annotations === undefined ? {} : { annotations }),
      },
      ok,
    );
  register('explode', closed);
  register('liar', { readOnlyHint: true });
  register('leaky', { readOnlyHint: false, destructiveHint: false, openWorldHint: false });
  register('garbage', closed);
  register('partial', { readOnlyHint: false, destructiveHint: true, openWorldHint: false });
  register('spy', closed);
  register('plain', closed);
  register('hidden', closed).disable();
  const resolvers: Record<string, AnnotationResolver> = {
    explode: () => {
      throw new Error('the resolver blew up');
    },
    liar: () => ({ readOnlyHint: false }),
    leaky: () => ({ destructiveHint: true, openWorldHint: true }),
    garbage: ({ mode }) =>
      (mode === 'string'
        ? { readOnlyHint: 'yes' }
        : mode === 'title'
          ? { title: 'renamed' }
          : null) as never,
    partial: ({ mode }) => (mode === 'read' ? { readOnlyHint: true } : {}),
    spy: (args, context) => {
      seen.push({
        args,
        frozen: Object.isFrozen(args),
        context: Object.keys(context).sort(),
        static: context.staticAnnotations,
      });
      return { destructiveHint: false };
    },
    hidden: () => ({}),
  };
  addDynamicAnnotations(server, { resolvers, ...options });
  return server;
}

describe.each(['legacy', 'auto'] as const)('addDynamicAnnotations on McpServer (%s)', (mode) => {
  it('answers -32603 when the resolver throws, with its message', async () => {
    const { client } = await serve(() => mcpServer(), mode);
    for (const method of ['tools/annotations', 'tools/resolve']) {
      const error = await failure(ask(client, method, 'explode', { mode: 'x' }));
      expect(error.code).toBe(-32603);
      expect(error.message).toContain('the resolver blew up');
    }
  });

  it('answers -32603 naming the hints when the answer exceeds the static bound', async () => {
    const { client } = await serve(() => mcpServer(), mode);
    const liar = await failure(ask(client, 'tools/resolve', 'liar', { mode: 'x' }));
    expect(liar.code).toBe(-32603);
    expect(liar.message).toBe(
      'Resolved annotations exceed the conservative tools/list declaration: readOnlyHint',
    );
    const leaky = await failure(ask(client, 'tools/annotations', 'leaky', { mode: 'x' }));
    expect(leaky.code).toBe(-32603);
    expect(leaky.data).toEqual({ tool: 'leaky', fields: ['destructiveHint', 'openWorldHint'] });
  });

  it.each(['string', 'title', 'null'])(
    'answers -32603 when the resolver returns malformed annotations (%s)',
    async (kind) => {
      const { client } = await serve(() => mcpServer(), mode);
      const error = await failure(ask(client, 'tools/resolve', 'garbage', { mode: kind }));
      expect(error.code).toBe(-32603);
      expect(error.message).toContain('returned malformed annotations');
    },
  );

  it('completes a partial answer from the static annotations', async () => {
    const { client } = await serve(() => mcpServer(), mode);
    const read: Wire = await ask(client, 'tools/resolve', 'partial', { mode: 'read' });
    expect(read.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    const other: Wire = await ask(client, 'tools/annotations', 'partial', { mode: 'write' });
    expect(other.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it('gives the resolver a frozen copy of the arguments and nothing that acts', async () => {
    const seen: Wire[] = [];
    const { client } = await serve(() => mcpServer(seen), mode);
    await ask(client, 'tools/resolve', 'spy', { mode: 'x' });
    expect(seen).toEqual([
      {
        args: { mode: 'x' },
        frozen: true,
        context: ['name', 'signal', 'staticAnnotations'],
        static: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
    ]);
  });

  it('answers -32602 for a tool without a resolver and for a disabled tool', async () => {
    const { client } = await serve(() => mcpServer(), mode);
    const plain = await failure(ask(client, 'tools/resolve', 'plain', { mode: 'x' }));
    expect(plain).toMatchObject({ code: -32602, message: 'Tool is not resolvable: plain' });
    const annotations = await failure(ask(client, 'tools/annotations', 'plain', { mode: 'x' }));
    expect(annotations.message).toBe('Tool has no dynamic annotations: plain');
    const hidden = await failure(ask(client, 'tools/resolve', 'hidden', { mode: 'x' }));
    expect(hidden).toMatchObject({ code: -32602, message: 'Unknown tool: hidden' });
  });

  it('answers -32602 for params that are not a name and an arguments object', async () => {
    const { client } = await serve(() => mcpServer(), mode);
    const error = await failure(
      client.request({ method: 'tools/resolve', params: { name: 'spy' } }, LOOSE),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('params.arguments must be an object');
  });

  it('marks only the tools with resolvers, keeping their other fields', async () => {
    const { client } = await serve(() => mcpServer(), mode);
    const listed: Wire = await client.request({ method: 'tools/list', params: {} }, LOOSE);
    const byName = new Map<string, Wire>(
      listed.tools.map((tool: Wire): [string, Wire] => [tool.name, tool]),
    );
    expect(byName.get('plain').dynamicAnnotations).toBeUndefined();
    expect(byName.get('plain')._meta).toBeUndefined();
    expect(byName.get('spy')).toMatchObject({
      dynamicAnnotations: true,
      _meta: { [TOOL_RESOLUTION_EXTENSION]: { resolvable: true } },
      annotations: { destructiveHint: true, openWorldHint: false },
      inputSchema: { properties: { mode: { type: 'string' } } },
    });
    expect(byName.has('hidden')).toBe(false);
  });

  it('serves only what the options ask for', async () => {
    const { client, frames } = await serve(() => mcpServer([], { annotations: false }), mode);
    const missing = await failure(ask(client, 'tools/annotations', 'spy', { mode: 'x' }));
    expect(missing.code).toBe(-32601);
    const listed: Wire = await client.request({ method: 'tools/list', params: {} }, LOOSE);
    const spy = listed.tools.find((tool: Wire) => tool.name === 'spy');
    expect(spy.dynamicAnnotations).toBeUndefined();
    expect(spy._meta[TOOL_RESOLUTION_EXTENSION]).toEqual({ resolvable: true });
    const declared = frames.find((frame) => frame.result?.capabilities !== undefined);
    expect(declared.result.capabilities.tools.dynamicAnnotations).toBeUndefined();
    expect(declared.result.capabilities.extensions).toEqual({ [TOOL_RESOLUTION_EXTENSION]: {} });
  });

  it('declares tools.dynamicAnnotations and the extension on the wire', async () => {
    const { frames } = await serve(() => mcpServer(), mode);
    const declared = frames.find((frame) => frame.result?.capabilities !== undefined);
    expect(declared.result.capabilities).toEqual({
      tools: { listChanged: true, dynamicAnnotations: true },
      extensions: { [TOOL_RESOLUTION_EXTENSION]: {} },
    });
  });
});

describe('negotiating tools/resolve', () => {
  it('requires the extension from a 2025 session by default', async () => {
    const { client } = await serve(() => mcpServer(), 'legacy', {});
    const error = await failure(ask(client, 'tools/resolve', 'spy', { mode: 'x' }));
    expect(error.code).toBe(-32021);
  });

  it('lets a 2025 session resolve without it when negotiation is optional', async () => {
    const factory = () => mcpServer([], { legacyNegotiation: 'optional' });
    const { client } = await serve(factory, 'legacy', {});
    const answer: Wire = await ask(client, 'tools/resolve', 'spy', { mode: 'x' });
    expect(answer.annotations.destructiveHint).toBe(false);
    const listed: Wire = await client.request({ method: 'tools/list', params: {} }, LOOSE);
    expect(listed.tools.find((tool: Wire) => tool.name === 'spy')._meta).toEqual({
      [TOOL_RESOLUTION_EXTENSION]: { resolvable: true },
    });
  });

  it('still requires it in every 2026 request when negotiation is optional', async () => {
    const factory = () => mcpServer([], { legacyNegotiation: 'optional' });
    const { client } = await serve(factory, 'auto', {});
    expect(client.getProtocolEra()).toBe('modern');
    const error = await failure(ask(client, 'tools/resolve', 'spy', { mode: 'x' }));
    expect(error.code).toBe(-32021);
  });

  it('treats extension settings it does not know as not negotiated', async () => {
    const capabilities = { extensions: { [TOOL_RESOLUTION_EXTENSION]: { future: true } } };
    const { client } = await serve(() => mcpServer(), 'auto', capabilities);
    const error = await failure(ask(client, 'tools/resolve', 'spy', { mode: 'x' }));
    expect(error.code).toBe(-32021);
  });
});

describe('addDynamicAnnotations on the low-level Server', () => {
  /** Two pages of tools, one schema per JSON Schema dialect, as a hand-written server lists them. */
  function lowLevel(listCalls: Wire[] = []) {
    const server = new Server(
      { name: 'low-level', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    const pages: Record<string, Wire> = {
      first: {
        tools: [
          {
            name: 'draft7',
            inputSchema: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              properties: {
                n: { type: 'integer', minimum: 1 },
                // The draft-07 tuple form, which 2020-12 spells prefixItems.
                pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
              },
              required: ['n'],
            },
            annotations: { readOnlyHint: false, destructiveHint: true },
            _meta: { 'vendor.test/kept': 1 },
          },
        ],
        nextCursor: 'second',
      },
      second: {
        tools: [
          {
            name: 'late',
            inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
            annotations: { openWorldHint: false },
          },
        ],
      },
    };
    server.setRequestHandler('tools/list', (request) => {
      listCalls.push(request.params ?? {});
      return pages[request.params?.cursor ?? 'first'] as ListToolsResult;
    });
    server.setRequestHandler('tools/call', () => ok());
    addDynamicAnnotations(server, {
      resolvers: {
        draft7: ({ n }) => ({ destructiveHint: (n as number) > 10 }),
        late: ({ q }) => (q === 'read' ? { readOnlyHint: true } : {}),
      },
    });
    return server;
  }

  it.each(['legacy', 'auto'] as const)('finds tools on later pages (%s)', async (mode) => {
    const calls: Wire[] = [];
    const { client } = await serve(() => lowLevel(calls), mode);
    const late: Wire = await ask(client, 'tools/resolve', 'late', { q: 'read' });
    expect(late.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(calls.slice(-2)).toEqual([{}, { cursor: 'second' }]);
    const second: Wire = await client.request(
      { method: 'tools/list', params: { cursor: 'second' } },
      LOOSE,
    );
    expect(second.tools[0]).toMatchObject({
      dynamicAnnotations: true,
      _meta: { [TOOL_RESOLUTION_EXTENSION]: { resolvable: true } },
    });
  });

  it.each(['legacy', 'auto'] as const)(
    'validates with the dialect the schema declares (%s)',
    async (mode) => {
      const { client } = await serve(() => lowLevel(), mode);
      const small: Wire = await ask(client, 'tools/annotations', 'draft7', { n: 3 });
      expect(small.annotations.destructiveHint).toBe(false);
      const big: Wire = await ask(client, 'tools/annotations', 'draft7', { n: 30 });
      expect(big.annotations.destructiveHint).toBe(true);
      const error = await failure(ask(client, 'tools/resolve', 'draft7', { n: 0.5 }));
      expect(error.code).toBe(-32602);
      expect(error.data.errors).toEqual([
        { instancePath: '/n', message: 'must be integer' },
        { instancePath: '/n', message: 'must be >= 1' },
      ]);
      const tuple = await failure(
        ask(client, 'tools/resolve', 'draft7', { n: 2, pair: ['a', 'b'] }),
      );
      expect(tuple.data.errors).toEqual([{ instancePath: '/pair/1', message: 'must be integer' }]);
      const listed: Wire = await client.request({ method: 'tools/list', params: {} }, LOOSE);
      expect(listed.tools[0]._meta).toEqual({
        'vendor.test/kept': 1,
        [TOOL_RESOLUTION_EXTENSION]: { resolvable: true },
      });
    },
  );
});

describe('addDynamicAnnotations misuse', () => {
  it('refuses a server with no tools yet', () => {
    const server = new McpServer({ name: 'empty', version: '1.0.0' });
    expect(() => addDynamicAnnotations(server, { resolvers: {} })).toThrow(/register the tools/);
  });

  it('refuses to be added twice', () => {
    const server = mcpServer();
    expect(() => addDynamicAnnotations(server, { resolvers: {} })).toThrow(/already added/);
  });

  it('refuses a connected server and leaves it unchanged', async () => {
    const server = new McpServer({ name: 'late', version: '1.0.0' });
    server.registerTool('t', { inputSchema: z.object({}) }, ok);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'c', version: '1.0.0' });
    await client.connect(clientSide);
    closers.push(async () => {
      await client.close();
      await server.close();
    });
    expect(() => addDynamicAnnotations(server, { resolvers: { t: () => ({}) } })).toThrow(
      /after connecting/,
    );
    const listed: Wire = await client.request({ method: 'tools/list', params: {} }, LOOSE);
    expect(listed.tools[0].dynamicAnnotations).toBeUndefined();
    const missing = await failure(ask(client, 'tools/annotations', 't'));
    expect(missing.code).toBe(-32601);
  });
});
