import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serverSchema } from '../../src/config/schema.js';
import type { DownstreamStatus, ListKind } from '../../src/downstream/downstream.js';
import { Downstream } from '../../src/downstream/downstream.js';
import { scratchDir } from '../helpers/config.js';
import { fixture, packageBin } from '../helpers/paths.js';
import { waitFor } from '../helpers/processes.js';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { LOOSE } from '../helpers/gateway.js';

const open: Downstream[] = [];
const processes: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
  for (const child of processes.splice(0)) child.kill('SIGKILL');
});

function server(name: string, entry: Record<string, unknown>, reconnect = false) {
  const logDir = scratchDir();
  const statuses: DownstreamStatus['state'][] = [];
  const changes: ListKind[] = [];
  const downstream = new Downstream({
    name,
    config: serverSchema.parse(entry),
    identity: { name: 'hintgate-test', version: '0.0.0' },
    logDir,
    reconnect,
    baseEnv: process.env,
    events: {
      status: (s) => void statuses.push(s.status.state),
      listChanged: (_s, kind) => void changes.push(kind),
    },
  });
  open.push(downstream);
  return { downstream, statuses, changes, logFile: join(logDir, `${name}.log`) };
}

const node = (name: string, args: string[] = [], extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [fixture(name), ...args],
  ...extra,
});

describe('Downstream', () => {
  it("sends a 2026 server each call's own log level and capabilities, however calls alternate", async () => {
    const copy = join(scratchDir(), 'sent.jsonl');
    const { downstream } = server('echo', node('tee', [copy, fixture('echo')]));
    await downstream.start();
    expect(downstream.status).toMatchObject({ state: 'up', era: 'modern' });
    const can = { elicitation: {} };
    const cannot = {};
    const calls: [string, Record<string, unknown>][] = [
      ['error', can],
      ['debug', can],
      ['debug', cannot],
      ['error', can],
    ];
    const outcomes: string[] = [];
    for (const [logLevel, clientCapabilities] of calls) {
      outcomes.push(
        await downstream
          .callTool({ name: 'ask', arguments: {} }, { logLevel, clientCapabilities })
          .then(
            (result) => String(result['resultType']),
            () => 'refused',
          ),
      );
    }
    // The server acts on the capabilities each call declared…
    expect(outcomes).toEqual(['input_required', 'input_required', 'refused', 'input_required']);
    // …and each request carried its own level and capabilities.
    const sent = readFileSync(copy, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"tools/call"'))
      .map(
        (line) => (JSON.parse(line) as { params: { _meta: Record<string, unknown> } }).params._meta,
      );
    expect(
      sent.map((meta) => [
        meta['io.modelcontextprotocol/logLevel'],
        meta['io.modelcontextprotocol/clientCapabilities'],
      ]),
    ).toEqual(calls);
  });

  it('connects to a 2025 server and lists its tools exactly as sent', async () => {
    const { downstream, statuses } = server('echo', node('echo', [], { era: 'legacy' }));
    await downstream.start();
    expect(downstream.status).toMatchObject({
      state: 'up',
      era: 'legacy',
      protocolVersion: '2025-11-25',
    });
    expect(statuses).toEqual(['starting', 'up']);
    // What a direct client reading with a loose schema gets: every unknown field kept.
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fixture('echo')],
        stderr: 'ignore',
      }),
    );
    const listed = await direct.request({ method: 'tools/list', params: {} }, LOOSE);
    await direct.close();
    expect(downstream.snapshot.tools).toEqual(listed['tools']);
    expect(downstream.snapshot.tools.find((tool) => tool['name'] === 'weird')).toMatchObject({
      vendorField: { kept: true },
      _meta: { 'vendor.test/n': 1 },
    });
    expect(downstream.snapshot.prompts[0]).toMatchObject({ name: 'greet', extraPromptField: 1 });
    expect(downstream.snapshot.capabilities).toMatchObject({
      experimental: { 'vendor.test/feature': { on: true } },
    });
    expect(downstream.snapshot.instructions).toBe('Use echo to test things.');
  });

  it('negotiates 2026 with a server that offers it, and 2025 with an SDK v1 server, on the same process', async () => {
    const modern = server('modern', node('modern'));
    const v1 = server('v1', node('crash'));
    await Promise.all([modern.downstream.start(), v1.downstream.start()]);
    expect(modern.downstream.status).toMatchObject({
      state: 'up',
      era: 'modern',
      protocolVersion: '2026-07-28',
    });
    expect(v1.downstream.status).toMatchObject({ state: 'up', era: 'legacy' });
    expect(readFileSync(v1.logFile, 'utf8').match(/starting:/g)).toHaveLength(1);
    const result = await modern.downstream.callTool({ name: 'lookup', arguments: { word: 'w' } });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'meaning of w' }],
      structuredContent: { word: 'w' },
    });
  });

  it('respawns once with 2025 a server that exits on the 2026 probe', async () => {
    const strict = `let b=''; process.stdin.on('data', (d) => { b += d; let i; while ((i = b.indexOf('\\n')) >= 0) { const m = JSON.parse(b.slice(0, i)); b = b.slice(i + 1); if (m.method === 'server/discover') process.exit(1); if (m.method === 'initialize') console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'strict', version: '1' } } })); if (m.method === 'tools/list') console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [] } })); } });`;
    const { downstream, logFile } = server('strict', {
      command: process.execPath,
      args: ['-e', strict],
    });
    await downstream.start();
    expect(downstream.status).toMatchObject({ state: 'up', era: 'legacy' });
    // The log is written asynchronously: wait for the second start's line, then
    // check there was no third.
    const starts = await waitFor(
      () => readFileSync(logFile, 'utf8').match(/starting:/g)?.length ?? 0,
      (count) => count >= 2,
      5000,
    );
    expect(starts).toBe(2);
  });

  it('follows pagination', async () => {
    const { downstream } = server(
      'paged',
      node('generator', ['--tools', '23', '--page-size', '5']),
    );
    await downstream.start();
    expect(downstream.snapshot.tools.map((tool) => tool['name'])).toHaveLength(23);
    expect(new Set(downstream.snapshot.tools.map((tool) => tool['name'])).size).toBe(23);
  });

  it('re-reads a list when the server says it changed', async () => {
    for (const args of [[], ['--modern-only']]) {
      const { downstream, changes } = server('changing', node('changing', args));
      await downstream.start();
      await downstream.callTool({ name: 'grow', arguments: {} });
      await waitFor(
        () => changes.length,
        (count) => count > 0,
        5000,
      );
      expect(changes).toEqual(['tools']);
      expect(downstream.snapshot.tools.map((tool) => tool['name'])).toContain('added_1');
    }
  });

  it('marks a server that cannot start down, fails calls at once, and retries with backoff', async () => {
    const { downstream, statuses } = server(
      'missing',
      { command: '/no/such/binary', reconnect: { initialDelayMs: 50, maxDelayMs: 100 } },
      true,
    );
    await downstream.start();
    expect(downstream.status).toMatchObject({
      state: 'down',
      code: 'DOWNSTREAM_UNAVAILABLE',
      reason: 'command not found: "/no/such/binary"',
    });
    expect((downstream.status as { retryAt?: number }).retryAt).toBeGreaterThan(Date.now() - 1000);
    await expect(downstream.callTool({ name: 'x' })).rejects.toMatchObject({
      code: 'DOWNSTREAM_UNAVAILABLE',
      message: expect.stringContaining('server "missing" is down: command not found'),
    });
    await waitFor(
      () => statuses.filter((state) => state === 'starting').length,
      (count) => count >= 3,
      5000,
    );
    expect(statuses.slice(0, 4)).toEqual(['starting', 'down', 'starting', 'down']);
  });

  it('comes back after a crash', async () => {
    const { downstream, statuses } = server(
      'crash',
      node('crash', [], { reconnect: { initialDelayMs: 50 } }),
      true,
    );
    await downstream.start();
    await expect(downstream.callTool({ name: 'crash', arguments: {} })).rejects.toMatchObject({
      code: 'DOWNSTREAM_CRASHED',
    });
    await waitFor(
      () => downstream.status.state,
      (state) => state === 'up',
      10_000,
    );
    expect(statuses).toEqual(['starting', 'up', 'down', 'starting', 'up']);
    expect((await downstream.callTool({ name: 'ok', arguments: {} }))['content']).toBeDefined();
  });

  it('connects over streamable HTTP (2026 by negotiation) and over SSE', async () => {
    const http = spawn(process.execPath, [fixture('echo'), '--http', '0'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    processes.push(http);
    const port = await new Promise<number>((resolve) =>
      http.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).port)),
    );
    const overHttp = server('http', { url: `http://127.0.0.1:${port}/mcp` });
    await overHttp.downstream.start();
    expect(overHttp.downstream.status).toMatchObject({ state: 'up', era: 'modern' });
    expect(
      (await overHttp.downstream.callTool({ name: 'echo', arguments: { text: 'web' } }))['content'],
    ).toEqual([{ type: 'text', text: 'web' }]);

    const ssePort = 39000 + Math.floor(Math.random() * 1000);
    const sse = spawn(
      process.execPath,
      [packageBin('@modelcontextprotocol/server-everything'), 'sse'],
      { env: { ...process.env, PORT: String(ssePort) }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    processes.push(sse);
    await new Promise<void>((resolve) =>
      sse.stderr.on(
        'data',
        (chunk: Buffer) => /listening|running/i.test(chunk.toString()) && resolve(),
      ),
    );
    const overSse = server('sse', { url: `http://127.0.0.1:${ssePort}/sse`, type: 'sse' });
    await overSse.downstream.start();
    expect(overSse.downstream.status).toMatchObject({ state: 'up', era: 'legacy' });
    expect(overSse.downstream.snapshot.tools.length).toBeGreaterThan(5);
  });
});
