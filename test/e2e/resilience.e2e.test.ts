import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import {
  connectStdio,
  expectNoOrphans,
  rawCall,
  rawListTools,
  startHttpGateway,
} from '../helpers/gateway.js';
import type { ProcessRow } from '../helpers/processes.js';
import { waitFor } from '../helpers/processes.js';
import type { Wire } from '../helpers/wire.js';

describe('a gateway with misbehaving servers', () => {
  const dir = scratchDir();
  const counts = join(dir, 'crash-starts.txt');
  const config = writeConfig(dir, {
    echo: fixtureServer('echo', [], { era: 'legacy' }),
    crash: fixtureServer('crash', [], {
      env: { CRASH_COUNT_FILE: counts },
      reconnect: { initialDelayMs: 1500, maxDelayMs: 2000 },
    }),
    hangcall: fixtureServer('hang', ['--mode', 'calls'], {
      timeouts: { callMs: 700, closeGraceMs: 300 },
    }),
    hangstart: fixtureServer('hang', ['--mode', 'silent', '--with-child'], {
      timeouts: { connectMs: 700, closeGraceMs: 300 },
      reconnect: { initialDelayMs: 60_000 },
    }),
    banner: fixtureServer('garbage', ['--mode', 'banner'], { era: 'legacy' }),
    flood: fixtureServer('garbage', ['--mode', 'flood'], { reconnect: { initialDelayMs: 60_000 } }),
    badreply: fixtureServer('garbage', ['--mode', 'bad-response'], { era: 'legacy' }),
  });
  let client: Client;
  let stderr: () => string;
  let changes = 0;

  beforeAll(async () => {
    const connected = await connectStdio(config, 'v2-legacy');
    client = connected.client;
    stderr = connected.stderr;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes++;
    });
    await rawListTools(client);
  });

  afterAll(async () => {
    await client.close();
  });

  it('fails a call cut short by a crash with a clear error, fails fast while the server is down, and serves its tools again once it is back', async () => {
    const firstOk = await rawCall(client, 'crash_ok');
    const firstPid = /ok from (\d+)/.exec(String((firstOk['content'] as Wire[])[0].text))?.[1];
    await expect(rawCall(client, 'crash_crash')).rejects.toMatchObject({
      code: -32011,
      message: expect.stringMatching(
        /server "crash" crashed: the process exited \(code 3\); stderr: fatal: crashing on purpose/,
      ),
    });
    const started = Date.now();
    await expect(rawCall(client, 'crash_ok')).rejects.toMatchObject({
      code: -32010,
      message: expect.stringContaining('server "crash" is down'),
    });
    expect(Date.now() - started).toBeLessThan(500);
    const changesBefore = changes;
    const tools = await waitFor(
      () => rawListTools(client),
      (list) => list.some((tool) => tool['name'] === 'crash_ok'),
      15_000,
      200,
    );
    expect(tools.map((tool) => tool['name'])).toContain('crash_crash');
    const again = await rawCall(client, 'crash_ok');
    const secondPid = /ok from (\d+)/.exec(String((again['content'] as Wire[])[0].text))?.[1];
    expect(secondPid).not.toBe(firstPid);
    expect(readFileSync(counts, 'utf8').trim().split('\n')).toHaveLength(2);
    await waitFor(
      () => changes,
      (count) => count > changesBefore,
      3000,
    );
    expect(changes).toBeGreaterThan(changesBefore);
  });

  it('times out a call the server never answers, and keeps serving', async () => {
    const started = Date.now();
    await expect(rawCall(client, 'hangcall_wait_forever')).rejects.toMatchObject({
      code: -32001,
      message: expect.stringContaining('server "hangcall" did not answer tools/call within 700 ms'),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await rawCall(client, 'echo_echo', { text: 'alive' }))['content']).toEqual([
      { type: 'text', text: 'alive' },
    ]);
  });

  it('marks a server that never completes the handshake down with the reason', async () => {
    const text = await waitFor(stderr, (value) => /server "hangstart" is down/.test(value), 5000);
    expect(text).toMatch(
      /server "hangstart" is down: did not complete the MCP handshake within 700 ms/,
    );
  });

  it('tolerates log lines on stdout, writing them marked to the server log', async () => {
    expect((await rawCall(client, 'banner_echo', { text: 'fine' }))['content']).toEqual([
      { type: 'text', text: 'fine' },
    ]);
    const log = readFileSync(join(dir, 'data', 'logs', 'banner.log'), 'utf8');
    expect(log).toMatch(
      /\[hintgate [^\]]+\] non-JSON-RPC stdout line \(not JSON\): Starting garbage fixture v1\.0\.\.\./,
    );
  });

  it('marks a server that prints nothing but garbage down with DOWNSTREAM_PROTOCOL', async () => {
    const text = await waitFor(stderr, (value) => /server "flood" is down/.test(value), 5000);
    expect(text).toMatch(
      /server "flood" is down: .*does not speak JSON-RPC on stdout: it wrote 21 line\(s\) to stdout that are not JSON-RPC \(e\.g\. "garbage line 0: not json at all"/,
    );
  });

  it('fails a call answered with broken JSON-RPC at once, naming the problem', async () => {
    const started = Date.now();
    await expect(rawCall(client, 'badreply_echo', { text: 'x' })).rejects.toMatchObject({
      code: -32012,
      message: expect.stringContaining(
        'server "badreply" sent an invalid JSON-RPC response: a response needs exactly one of "result" and "error"',
      ),
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('shutdown', () => {
  const servers = {
    echo: fixtureServer('echo'),
    legacy: fixtureServer('echo', [], { era: 'legacy' }),
    stubborn: fixtureServer('hang', ['--mode', 'calls', '--with-child'], {
      timeouts: { closeGraceMs: 300 },
    }),
  };

  it('ends every server process, and their children, when the client closes stdin', async () => {
    const config = writeConfig(scratchDir(), servers);
    const { client, transport } = await connectStdio(config, 'v2-legacy');
    await waitFor(
      () => rawListTools(client),
      (tools) => tools.some((tool) => tool['name'] === 'stubborn_wait_forever'),
      10_000,
      100,
    );
    const { descendants } = await import('../helpers/processes.js');
    const spawned: ProcessRow[] = descendants(transport.pid as number);
    expect(spawned.length).toBeGreaterThanOrEqual(4);
    await client.close();
    expect(await expectNoOrphans(spawned)).toEqual([]);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'ends every server process on %s and exits 0',
    async (signal) => {
      const config = writeConfig(scratchDir(), servers);
      const gateway = await startHttpGateway(config);
      await gateway.waitForStderr(/3 of 3 server\(s\) up/, 60_000);
      const spawned = gateway.children();
      expect(spawned.length).toBeGreaterThanOrEqual(4);
      gateway.child.kill(signal);
      expect(await gateway.exited).toBe(0);
      expect(await expectNoOrphans(spawned)).toEqual([]);
      expect(gateway.stderr()).toContain(`shutting down (${signal})`);
    },
    90_000,
  );
});
