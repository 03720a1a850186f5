import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { AUDIT_JOURNAL_DIR } from '../../src/store/audit-journal.js';
import { SNAPSHOT_FILE } from '../../src/store/snapshot.js';
import type { AuditRecord } from '../../src/store/types.js';
import { callTool } from '../helpers/call-path.js';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { connectStdio, rawListTools, spawnGateway } from '../helpers/gateway.js';
import { isAlive } from '../helpers/processes.js';

const SNAPSHOT_USED = /first listing from the last run's snapshot/;

/** One run of the gateway over stdio: the `add` tool's title, and what it said on stderr. */
async function run(config: string): Promise<{ title: unknown; stderr: string }> {
  const { client, transport, stderr } = await connectStdio(config, 'v2-legacy');
  try {
    const tools = await rawListTools(client);
    const add = tools.find((tool) => tool['name'] === 'echo_add');
    expect(add).toBeDefined();
    return { title: (add?.['annotations'] as Record<string, unknown>)['title'], stderr: stderr() };
  } finally {
    const pid = transport.pid;
    await client.close();
    // The snapshot is written as the gateway exits.
    await expect.poll(() => pid === null || !isAlive(pid), { timeout: 10_000 }).toBe(true);
  }
}

// A gateway on the embedded store answers its first listing's store reads from what the last
// run left, and opens the store once its servers are up; anything that has opened the
// database since (the CLI) makes it wait for the store instead.
describe('the start snapshot', () => {
  it('serves the next start, and is passed over once the CLI has changed the store', async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, { echo: fixtureServer('echo') });
    const first = await run(config);
    expect(first.stderr).not.toMatch(SNAPSHOT_USED);
    expect(existsSync(join(dir, 'data', SNAPSHOT_FILE))).toBe(true);

    const second = await run(config);
    expect(second.stderr).toMatch(SNAPSHOT_USED);
    expect(second.title).toEqual(first.title);

    const set = await runCli(['override', 'set', 'echo.add', 'title=Sum', '--config', config]);
    expect(set.code).toBe(0);
    const third = await run(config);
    expect(third.stderr).not.toMatch(SNAPSHOT_USED);
    expect(third.title).toBe('Sum');

    // The third run left a snapshot of the store with the override.
    const fourth = await run(config);
    expect(fourth.stderr).toMatch(SNAPSHOT_USED);
    expect(fourth.title).toBe('Sum');
  }, 120_000);

  it('keeps the calls of a run that never started its database, for the next reader of the log', async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, { echo: fixtureServer('echo') });
    await run(config);
    // A client that keeps the gateway busy (listing without a pause) makes three calls and
    // leaves: the snapshot serves the start, and the database's process, which waits for the
    // gateway to be quiet, never starts. Their records stay in the journal, and the snapshot
    // stays as it was.
    const snapshot = join(dir, 'data', SNAPSHOT_FILE);
    const snapshotBefore = statSync(snapshot).mtimeMs;
    const { client, transport, stderr } = await connectStdio(config, 'v2-legacy');
    const pid = transport.pid;
    let listing = true;
    const busy = (async () => {
      while (listing) await rawListTools(client);
    })();
    try {
      expect(stderr()).toMatch(SNAPSHOT_USED);
      for (const text of ['one', 'two', 'three']) {
        const result = await callTool(client, 'echo_echo', { text });
        expect(result['isError']).not.toBe(true);
      }
    } finally {
      listing = false;
      await busy;
      await client.close();
      await expect.poll(() => pid === null || !isAlive(pid), { timeout: 10_000 }).toBe(true);
    }
    const journal = join(dir, 'data', AUDIT_JOURNAL_DIR);
    const waiting = readdirSync(journal)
      .filter((name) => name.endsWith('.copy'))
      .flatMap((name) => readFileSync(join(journal, name), 'utf8').split('\n').slice(1))
      .filter((line) => line.includes('echo_echo'));
    expect(waiting).toHaveLength(3);
    expect(statSync(snapshot).mtimeMs).toBe(snapshotBefore);
    // The next reader of the log copies them in first.
    const audit = await runCli(['audit', '--tool', 'echo_echo', '--config', config, '--json']);
    expect(audit.code).toBe(0);
    const texts = (JSON.parse(audit.stdout) as AuditRecord[]).map(
      (record) => (record.arguments as { text: string }).text,
    );
    expect(texts.sort()).toEqual(['one', 'three', 'two']);
    // The CLI opened the database: the next start waits for the store, and leaves a snapshot.
    expect((await run(config)).stderr).not.toMatch(SNAPSHOT_USED);
    expect((await run(config)).stderr).toMatch(SNAPSHOT_USED);
  }, 120_000);

  it('corrects a first listing the store contradicts, with list_changed', async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, { echo: fixtureServer('echo') });
    expect(
      (await runCli(['override', 'set', 'echo.add', 'title=Sum', '--config', config])).code,
    ).toBe(0);
    expect((await run(config)).title).toBe('Sum');
    // The snapshot, under the database's true stamp, now says there are no overrides.
    const path = join(dir, 'data', SNAPSHOT_FILE);
    const file = deserialize(readFileSync(path)) as { reads: Map<string, unknown> };
    file.reads.set('getGlobalOverrides[]', []);
    writeFileSync(path, serialize(file));

    const { client, stderr } = await connectStdio(config, 'v2-legacy');
    try {
      const titleOfAdd = async () =>
        (
          (await rawListTools(client)).find((tool) => tool['name'] === 'echo_add')?.[
            'annotations'
          ] as Record<string, unknown>
        )['title'];
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changed++;
      });
      expect(stderr()).toMatch(SNAPSHOT_USED);
      expect(await titleOfAdd()).not.toBe('Sum');
      await expect.poll(titleOfAdd, { timeout: 15_000 }).toBe('Sum');
      // The notification follows the change (sent once per burst, after 25 ms).
      await expect.poll(() => changed, { timeout: 5_000 }).toBeGreaterThan(0);
      expect(stderr()).toMatch(/snapshot differed from the store/);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('holds the data directory while the store waits: a CLI change goes through the gateway', async () => {
    const dir = scratchDir();
    // A server slower than the longest wait of a lazy store (2 s): the store opens before it.
    const config = writeConfig(dir, {
      echo: fixtureServer('echo'),
      slow: fixtureServer('generator', ['--tools', '2', '--delay-start', '4000'], {
        era: 'legacy',
      }),
    });
    await run(config);
    const gateway = spawnGateway(['serve', '--config', config]);
    try {
      await gateway.waitForStderr(SNAPSHOT_USED);
      // --strict checks the tool against the running gateway's catalog: it refuses without one.
      const set = await runCli([
        'override',
        'set',
        'echo.add',
        'title=Sum',
        '--strict',
        '--config',
        config,
      ]);
      expect(set.stderr).not.toMatch(/cannot be checked|not running|no gateway/i);
      expect(set.code).toBe(0);
      await gateway.waitForStderr(/server "slow" is up/);
    } finally {
      gateway.child.stdin?.end();
      await gateway.exited;
    }
    // Saved at that gateway's shutdown, with the change.
    const after = await run(config);
    expect(after.stderr).toMatch(SNAPSHOT_USED);
    expect(after.title).toBe('Sum');
  }, 120_000);

  it('ends a gateway that cannot listen with its reason before its store ever opened', async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, { echo: fixtureServer('echo') });
    await run(config);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const serve = await runCli(
        ['serve', '--config', config, '--http', `127.0.0.1:${port}`, '--no-auth'],
        { timeoutMs: 30_000 },
      );
      expect(serve.stderr).toMatch(SNAPSHOT_USED);
      expect(serve.stderr).toMatch(/already in use/);
      expect(serve.code).not.toBe(0);
      expect(serve.code).not.toBe(null);
    } finally {
      taken.close();
    }
    // Nothing opened the store: the snapshot still serves.
    expect((await run(config)).stderr).toMatch(SNAPSHOT_USED);
  }, 120_000);
});
