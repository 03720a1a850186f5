import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { connectStdio, expectNoOrphans, rawCall, rawListTools } from '../helpers/gateway.js';
import type { ProcessRow } from '../helpers/processes.js';
import { descendants, waitFor } from '../helpers/processes.js';
import { preparedDataDir } from '../store/helpers/harness.js';

describe('twenty servers at once', () => {
  const servers = Object.fromEntries(
    Array.from({ length: 20 }, (_, index) => [
      `s${index}`,
      fixtureServer('generator', ['--tools', '10', '--prefix', `g${index}`], { era: 'legacy' }),
    ]),
  );
  const config = writeConfig(scratchDir(), servers);
  let client: Client;
  let spawned: ProcessRow[];

  beforeAll(async () => {
    const connected = await connectStdio(config, 'v2-legacy');
    client = connected.client;
    await waitFor(
      () => rawListTools(client),
      (tools) => tools.length === 200,
      30_000,
      200,
    );
    spawned = descendants(connected.transport.pid as number);
  });

  afterAll(async () => {
    await client.close();
    expect(await expectNoOrphans(spawned)).toEqual([]);
  });

  it('lists all 200 tools under distinct names and calls every server concurrently', async () => {
    const tools = await rawListTools(client);
    expect(new Set(tools.map((tool) => tool['name'])).size).toBe(200);
    // One process per server (the embedded store's own process is the other descendant).
    expect(spawned.filter((row) => row.args.includes('generator.mjs')).length).toBe(20);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        rawCall(client, `s${index}_g${index}_get_user_0`, { id: `u${index}` }),
      ),
    );
    results.forEach((result, index) => {
      expect(result['content']).toEqual([
        { type: 'text', text: JSON.stringify({ id: `u${index}` }) },
      ]);
    });
  });
});

describe('a thousand tools over ten servers, paginated', () => {
  const servers = Object.fromEntries(
    Array.from({ length: 10 }, (_, index) => [
      `p${index}`,
      fixtureServer('generator', ['--tools', '100', '--prefix', `k${index}`, '--page-size', '30']),
    ]),
  );
  const config = writeConfig(scratchDir(), servers);
  let client: Client;

  beforeAll(async () => {
    client = (await connectStdio(config, 'v2-auto')).client;
  });

  afterAll(async () => {
    await client.close();
  });

  it('follows every page of every server and lists the thousand tools', async () => {
    const tools = await waitFor(
      () => rawListTools(client),
      (list) => list.length === 1000,
      30_000,
      200,
    );
    expect(tools).toHaveLength(1000);
    const names = new Set(tools.map((tool) => tool['name']));
    expect(names.has('p9_k9_remove_note_99')).toBe(true);
    expect((await rawCall(client, 'p9_k9_remove_note_99', { id: 'n' }))['content']).toEqual([
      { type: 'text', text: '{"id":"n"}' },
    ]);
  });
});

describe('a slow server', () => {
  const configFor = (dataDir: string) =>
    writeConfig(
      scratchDir(),
      {
        quick: fixtureServer('generator', ['--tools', '3', '--prefix', 'q'], { era: 'legacy' }),
        slow: fixtureServer(
          'generator',
          ['--tools', '3', '--prefix', 'z', '--delay-start', '6000'],
          {
            era: 'legacy',
          },
        ),
      },
      // An initialized store: a first run's database creation (seconds, while the servers
      // start) would let the slow server come up before the first listing.
      { gateway: { startupWaitMs: 1500 }, dataDir },
    );

  it('does not keep clients from the tools of the servers that are up; its tools join later', async () => {
    const { client } = await connectStdio(configFor(await preparedDataDir()), 'v2-legacy');
    try {
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changed++;
      });
      const first = await rawListTools(client);
      expect(first.map((tool) => tool['name'])).toEqual([
        'quick_q_get_user_0',
        'quick_q_list_user_1',
        'quick_q_search_user_2',
      ]);
      const later = await waitFor(
        () => rawListTools(client),
        (tools) => tools.length === 6,
        15_000,
        200,
      );
      expect(later.map((tool) => tool['name'])).toContain('slow_z_get_user_0');
      // A listing can show the new tools before the notification (sent after a 25 ms debounce)
      // has arrived: wait for it.
      expect(
        await waitFor(
          () => changed,
          (count) => count > 0,
          5_000,
        ),
      ).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
