import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  TOOL_RESOLUTION_EXTENSION,
  callToolSafely,
  preflight,
  toolResolutionCapabilities,
} from '../../src/mcp/index.js';
import { LOOSE } from '../helpers/gateway.js';
import {
  MANAGE_FILES_ACTIONS,
  MANAGE_FILES_EXPECTED,
  MANAGE_FILES_SERVER,
  MANAGE_FILES_WORST_CASE,
} from '../helpers/manage-files.js';
import { ROOT } from '../helpers/paths.js';
import type { Wire } from '../helpers/wire.js';

const run = promisify(execFile);
const CLIENT = join(ROOT, 'examples', 'manage-files', 'client.mjs');

const scratch: string[] = [];
function directory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hintgate-manage-files-'));
  scratch.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Mode = 'legacy' | 'auto';

async function connect(dir: string, mode: Mode, declareExtension = true): Promise<Client> {
  const client = new Client(
    { name: 'dynamic-example-test', version: '1.0.0' },
    {
      capabilities: declareExtension ? toolResolutionCapabilities() : {},
      versionNegotiation: { mode },
    },
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MANAGE_FILES_SERVER, dir],
      stderr: 'pipe',
    }),
  );
  return client;
}

async function rpcError(promise: Promise<unknown>): Promise<Wire> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

const ask = (
  client: Client,
  method: string,
  args: Record<string, unknown>,
  name = 'manage_files',
) => client.request({ method, params: { name, arguments: args } }, LOOSE);

describe.each([
  ['2025-11-25 session', 'legacy', 'legacy'],
  ['2026-07-28 stateless (auto negotiation)', 'auto', 'modern'],
] as const)('the manage_files example over stdio, %s', (_label, mode, era) => {
  let dir: string;
  let client: Client;
  let plain: Client;

  beforeAll(async () => {
    dir = directory();
    [client, plain] = await Promise.all([connect(dir, mode), connect(dir, mode, false)]);
    expect(client.getProtocolEra()).toBe(era);
  });
  afterAll(async () => {
    await Promise.all([client.close(), plain.close()]);
  });

  it('lists manage_files marked dynamic and resolvable, with worst-case static annotations', async () => {
    const listed: Wire = await client.request({ method: 'tools/list', params: {} }, LOOSE);
    const tool = listed.tools.find((item: Wire) => item.name === 'manage_files');
    expect(tool.dynamicAnnotations).toBe(true);
    expect(tool._meta[TOOL_RESOLUTION_EXTENSION]).toEqual({ resolvable: true });
    expect(tool.annotations).toEqual(MANAGE_FILES_WORST_CASE);
    expect(tool.inputSchema.properties.action.enum).toEqual(MANAGE_FILES_ACTIONS);
    expect(client.getServerCapabilities()?.extensions?.[TOOL_RESOLUTION_EXTENSION]).toEqual({});
  });

  it('leaves the resolvable marker out for a client that did not declare the extension', async () => {
    const listed: Wire = await plain.request({ method: 'tools/list', params: {} }, LOOSE);
    const tool = listed.tools[0];
    expect(tool.dynamicAnnotations).toBe(true);
    expect(tool._meta?.[TOOL_RESOLUTION_EXTENSION]).toBeUndefined();
  });

  it.each(MANAGE_FILES_ACTIONS)(
    'answers tools/annotations and tools/resolve for %s',
    async (action) => {
      const args = { path: 'notes.txt', action };
      const annotations: Wire = await ask(client, 'tools/annotations', args);
      expect(annotations.annotations).toEqual(MANAGE_FILES_EXPECTED[action]);
      const resolved: Wire = await ask(client, 'tools/resolve', args);
      expect(resolved).toMatchObject({
        name: 'manage_files',
        annotations: MANAGE_FILES_EXPECTED[action],
      });
      expect(Object.keys(resolved.annotations).sort()).toEqual(
        Object.keys(MANAGE_FILES_WORST_CASE).sort(),
      );
    },
  );

  it('gives the same answer to the same arguments', async () => {
    const args = { path: 'a/b.txt', action: 'append', content: 'x' };
    const first = await ask(client, 'tools/resolve', args);
    const second = await ask(client, 'tools/resolve', args);
    expect(second).toEqual(first);
    expect(await ask(client, 'tools/annotations', args)).toEqual(
      await ask(client, 'tools/annotations', args),
    );
  });

  it('answers -32602 for an unknown tool', async () => {
    for (const method of ['tools/annotations', 'tools/resolve']) {
      const error = await rpcError(ask(client, method, { path: 'x', action: 'read' }, 'nope'));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('Unknown tool: nope');
    }
  });

  it('answers -32602 with the validation details for invalid arguments', async () => {
    for (const method of ['tools/annotations', 'tools/resolve']) {
      const error = await rpcError(ask(client, method, { action: 'shred', path: 3 }));
      expect(error.code).toBe(-32602);
      expect(error.data.errors).toEqual(
        expect.arrayContaining([
          { instancePath: '/action', message: 'must be equal to one of the allowed values' },
          { instancePath: '/path', message: 'must be string' },
        ]),
      );
    }
    const missing = await rpcError(ask(client, 'tools/resolve', { path: 'x' }));
    expect(missing.data.errors).toEqual([
      { instancePath: '', message: "must have required property 'action'" },
    ]);
  });

  it('answers -32021 to tools/resolve from a client that did not negotiate the extension', async () => {
    const error = await rpcError(ask(plain, 'tools/resolve', { path: 'x', action: 'read' }));
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({
      requiredCapabilities: { extensions: { [TOOL_RESOLUTION_EXTENSION]: {} } },
    });
    // The proposal's method needs no negotiation.
    const answer: Wire = await ask(plain, 'tools/annotations', { path: 'x', action: 'read' });
    expect(answer.annotations).toEqual(MANAGE_FILES_EXPECTED.read);
  });

  it.each(MANAGE_FILES_ACTIONS)('preflights %s through tools/resolve', async (action) => {
    const check = await preflight(client, 'manage_files', { path: 'notes.txt', action });
    expect(check).toEqual({
      annotations: MANAGE_FILES_EXPECTED[action],
      source: 'dynamic',
      method: 'tools/resolve',
      callable: true,
    });
  });

  it('preflights through tools/annotations when the extension is not negotiated', async () => {
    const check = await preflight(plain, 'manage_files', { path: 'notes.txt', action: 'read' });
    expect(check).toMatchObject({ source: 'dynamic', method: 'tools/annotations' });
    expect(check.annotations).toEqual(MANAGE_FILES_EXPECTED.read);
  });

  it('surfaces invalid arguments from the preflight and never calls', async () => {
    const confirm = vi.fn(() => true);
    const outcome = await callToolSafely(
      client,
      'manage_files',
      { path: 'notes.txt', action: 'shred' },
      { confirm },
    );
    expect(outcome).toMatchObject({ kind: 'refused', reason: 'not-callable' });
    if (outcome.kind !== 'refused') return;
    expect(outcome.preflight.error).toMatchObject({
      kind: 'invalid-arguments',
      code: -32602,
      surface: true,
    });
    expect(confirm).not.toHaveBeenCalled();
  });

  it('reads without confirmation, and deletes only when the confirmation says yes', async () => {
    writeFileSync(join(dir, 'keep.txt'), 'precious\n');
    const confirm = vi.fn(() => false);
    const read = await callToolSafely(
      client,
      'manage_files',
      { path: 'keep.txt', action: 'read' },
      { confirm },
    );
    expect(read).toMatchObject({ kind: 'called', confirmed: false });
    if (read.kind === 'called')
      expect(read.result.content).toEqual([{ type: 'text', text: 'precious\n' }]);
    expect(confirm).not.toHaveBeenCalled();

    const declined = await callToolSafely(
      client,
      'manage_files',
      { path: 'keep.txt', action: 'delete' },
      { confirm },
    );
    expect(declined).toMatchObject({ kind: 'refused', reason: 'declined' });
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]).toEqual([
      expect.objectContaining({
        name: 'manage_files',
        source: 'dynamic',
        method: 'tools/resolve',
        annotations: MANAGE_FILES_EXPECTED.delete,
        reason: expect.stringContaining('destructive for these arguments'),
      }),
    ]);
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('precious\n');

    const accepted = await callToolSafely(
      client,
      'manage_files',
      { path: 'keep.txt', action: 'delete' },
      { confirm: () => true },
    );
    expect(accepted).toMatchObject({ kind: 'called', confirmed: true });
    expect(existsSync(join(dir, 'keep.txt'))).toBe(false);
  });

  it('appends without confirmation: additive is not destructive', async () => {
    const confirm = vi.fn(() => false);
    const outcome = await callToolSafely(
      client,
      'manage_files',
      { path: 'log.txt', action: 'append', content: 'one\n' },
      { confirm },
    );
    expect(outcome).toMatchObject({ kind: 'called', confirmed: false });
    expect(confirm).not.toHaveBeenCalled();
    expect(readFileSync(join(dir, 'log.txt'), 'utf8')).toBe('one\n');
  });
});

describe('the manage_files example on the wire', () => {
  /** Sends JSON lines to a fresh server and collects the answers by id. */
  async function exchange(
    messages: readonly object[],
    ids: readonly number[],
  ): Promise<Map<number, Wire>> {
    const child = spawn(process.execPath, [MANAGE_FILES_SERVER, directory()], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const answers = new Map<number, Wire>();
    let buffer = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer in time')), 10_000);
        child.stdout.on('data', (chunk: Buffer) => {
          buffer += chunk.toString('utf8');
          let end: number;
          while ((end = buffer.indexOf('\n')) >= 0) {
            const message: Wire = JSON.parse(buffer.slice(0, end));
            buffer = buffer.slice(end + 1);
            if (typeof message.id === 'number') answers.set(message.id, message);
          }
          if (ids.every((id) => answers.has(id))) {
            clearTimeout(timer);
            resolve();
          }
        });
        for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`);
      });
    } finally {
      child.kill();
    }
    return answers;
  }

  const envelope = (capabilities: object) => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  });
  const resolveArgs = { name: 'manage_files', arguments: { path: 'x', action: 'read' } };

  it('declares both capabilities and answers tools/resolve with resultType on 2025', async () => {
    const answers = await exchange(
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: toolResolutionCapabilities(),
            clientInfo: { name: 'raw', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/resolve', params: resolveArgs },
      ],
      [1, 2],
    );
    expect(answers.get(1).result.capabilities).toMatchObject({
      tools: { dynamicAnnotations: true },
      extensions: { [TOOL_RESOLUTION_EXTENSION]: {} },
    });
    expect(answers.get(2).result).toEqual({
      resultType: 'complete',
      name: 'manage_files',
      annotations: MANAGE_FILES_EXPECTED.read,
    });
  });

  it('declares both capabilities and judges each 2026 request by its own envelope', async () => {
    const answers = await exchange(
      [
        { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope({}) } },
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/resolve',
          params: { ...resolveArgs, _meta: envelope(toolResolutionCapabilities()) },
        },
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/resolve',
          params: { ...resolveArgs, _meta: envelope({}) },
        },
      ],
      [1, 2, 3],
    );
    expect(answers.get(1).result.capabilities).toMatchObject({
      tools: { dynamicAnnotations: true },
      extensions: { [TOOL_RESOLUTION_EXTENSION]: {} },
    });
    expect(answers.get(2).result).toMatchObject({
      resultType: 'complete',
      name: 'manage_files',
      annotations: MANAGE_FILES_EXPECTED.read,
    });
    expect(answers.get(3).error.code).toBe(-32021);
  });
});

describe('the manage_files example with an SDK v1 client', () => {
  it('lists and calls the tool over the 2025 protocol', async () => {
    const dir = directory();
    writeFileSync(join(dir, 'hello.txt'), 'hi\n');
    const client = new V1Client({ name: 'v1', version: '1.0.0' });
    await client.connect(
      new V1StdioClientTransport({
        command: process.execPath,
        args: [MANAGE_FILES_SERVER, dir],
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['manage_files']);
      expect(tools[0]?.annotations).toEqual(MANAGE_FILES_WORST_CASE);
      const loose = await client.request({ method: 'tools/list', params: {} }, z.looseObject({}));
      expect((loose as Wire).tools[0].dynamicAnnotations).toBe(true);
      const result = await client.callTool({
        name: 'manage_files',
        arguments: { path: 'hello.txt', action: 'read' },
      });
      expect(result.content).toEqual([{ type: 'text', text: 'hi\n' }]);
      const check = await preflight(client, 'manage_files', { path: 'hello.txt', action: 'read' });
      expect(check).toMatchObject({ source: 'dynamic', method: 'tools/annotations' });
      expect(check.annotations).toEqual(MANAGE_FILES_EXPECTED.read);
    } finally {
      await client.close();
    }
  });
});

describe('the example client script', () => {
  it('preflights every action and declines destructive calls by default', async () => {
    const dir = directory();
    const { stdout } = await run(process.execPath, [CLIENT, dir], { cwd: ROOT });
    expect(stdout).toContain('connected: protocol 2026-07-28');
    expect(stdout).toContain(
      'preflight read: readOnly=true destructive=false idempotent=true openWorld=false (dynamic via tools/resolve)',
    );
    expect(stdout).toContain(
      'preflight delete: readOnly=false destructive=true idempotent=true openWorld=false (dynamic via tools/resolve)',
    );
    expect(stdout).toMatch(/confirm\? Calling manage_files may destroy data: .* -> no/);
    expect(stdout).toContain('delete: refused');
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('first line\n');
  });

  it('deletes when told to accept, over the 2025 protocol', async () => {
    const dir = directory();
    const { stdout } = await run(process.execPath, [CLIENT, '--accept', '--legacy', dir], {
      cwd: ROOT,
    });
    expect(stdout).toContain('connected: protocol 2025-11-25');
    expect(stdout).toContain('delete: ok (confirmed)');
    expect(existsSync(join(dir, 'notes.txt'))).toBe(false);
  });
});
