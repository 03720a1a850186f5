import { readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { runCli } from '../helpers/cli.js';
import { connectStdio } from '../helpers/gateway.js';
import { waitFor } from '../helpers/processes.js';

// A desktop client keeps the gateway's stderr to itself: the status lines, why a server is
// down above all, are in <dataDir>/logs/gateway.log too, beside the servers' own logs.
describe('the gateway log', () => {
  it("records why a server is down, for every gateway on the data directory, with each one's pid", async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, {
      echo: fixtureServer('echo'),
      broken: {
        command: process.execPath,
        args: ['-e', "require('no-such-module-anywhere')"],
        reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      },
    });
    const logFile = join(dir, 'data', 'logs', 'gateway.log');
    const first = await connectStdio(config, 'v2-legacy');
    let second: Awaited<ReturnType<typeof connectStdio>> | undefined;
    try {
      const text = await waitFor(
        () => readFileSync(logFile, 'utf8'),
        (log) => /1 of 2 server\(s\) up/.test(log),
        60_000,
        100,
      );
      expect(text).toMatch(
        /\[\d+\] hintgate \S+ serving .*hintgate\.config\.json; data directory .*\/data$/m,
      );
      expect(text).toMatch(
        /\[\d+\] server "broken" is down: .*stderr: Error: Cannot find module 'no-such-module-anywhere'/,
      );
      expect(statSync(logFile).mode & 0o777).toBe(0o600);
      // The same lines went to stderr.
      expect(first.stderr()).toMatch(/server "broken" is down: .*Cannot find module/);

      second = await connectStdio(config, 'v2-legacy');
      const both = await waitFor(
        () => readFileSync(logFile, 'utf8'),
        (log) =>
          new Set([...log.matchAll(/^\S+ \[(\d+)\] .*server\(s\) up/gm)].map((m) => m[1])).size ===
          2,
        60_000,
        100,
      );
      expect(both).toMatch(/store: .* \(through the gateway, pid \d+\)/);
    } finally {
      await second?.client.close();
      await first.client.close();
    }
    const ended = await waitFor(
      () => readFileSync(logFile, 'utf8'),
      (log) => (log.match(/shutting down \(stdin closed\)/g) ?? []).length === 2,
      20_000,
      100,
    );
    expect(ended).toContain('shutting down (stdin closed)');
  }, 120_000);

  it('ends with why a start failed (the port is taken), and nothing else goes wrong on the way out', async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, { echo: fixtureServer('echo') });
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const run = await runCli([
        'serve',
        '--config',
        config,
        '--http',
        `127.0.0.1:${port}`,
        '--no-auth',
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `--http: cannot listen: address 127.0.0.1:${port} is already in use`,
      );
      expect(run.stderr).not.toMatch(/closed|cannot read|cannot reload/);
      const lines = readFileSync(join(dir, 'data', 'logs', 'gateway.log'), 'utf8')
        .trim()
        .split('\n');
      expect(lines.at(-1)).toMatch(
        new RegExp(
          `\\] stopped: --http: cannot listen: address 127\\.0\\.0\\.1:${port} is already in use$`,
        ),
      );
    } finally {
      taken.close();
    }
  }, 60_000);
});
