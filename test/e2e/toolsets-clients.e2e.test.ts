import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureServer } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { connectHttp, connectStdio, rawListTools, startHttpGateway } from '../helpers/gateway.js';
import { waitFor } from '../helpers/processes.js';
import type { E2eStore } from '../helpers/toolsets.js';
import {
  callTool,
  countListChanged,
  e2eStore,
  listedTool,
  nextChange,
  resultText,
  toolsetConfig,
  waitForRelease,
} from '../helpers/toolsets.js';
import type { Wire } from '../helpers/wire.js';

const META_NAMES = [
  'list-available-tools',
  'build-toolset',
  'equip-toolset',
  'unequip-toolset',
  'list-saved-toolsets',
  'delete-toolset',
  'get-active-toolset',
  'add-tool-annotation',
];

const names = async (client: Client): Promise<string[]> =>
  (await rawListTools(client)).map((tool) => String(tool['name']));

async function seed(config: string): Promise<void> {
  const run = await runCli([
    'toolset',
    'create',
    'reading',
    '--tool',
    'echo.echo',
    '--tool',
    'echo.add',
    '--config',
    config,
  ]);
  expect(run.code, run.stderr).toBe(0);
}

describe('configuration mode', () => {
  let store: E2eStore;

  beforeAll(async () => {
    store = await e2eStore('pglite');
  });

  afterAll(async () => {
    await store.cleanup();
  });

  it('never: the model sees no meta tools and cannot call them (the default)', async () => {
    const config = toolsetConfig(store, { echo: fixtureServer('echo') });
    await seed(config);
    const { client } = await connectStdio(config, 'v2-legacy');
    try {
      const listed = await names(client);
      for (const name of META_NAMES) expect(listed).not.toContain(name);
      await expect(callTool(client, 'equip-toolset', { name: 'reading' })).rejects.toThrow(
        /Unknown tool: "equip-toolset"/,
      );
    } finally {
      await client.close();
      await waitForRelease(store.dataDir);
    }
  });

  it('until-equipped: meta tools until a toolset is equipped, then only its tools', async () => {
    const config = toolsetConfig(
      store,
      { echo: fixtureServer('echo') },
      { toolsets: { configurationMode: 'until-equipped' } },
    );
    const { client } = await connectStdio(config, 'v2-legacy');
    const changes = countListChanged(client);
    try {
      expect(await names(client)).toEqual(expect.arrayContaining(META_NAMES));
      const before = changes();
      await callTool(client, 'equip-toolset', { name: 'reading' });
      await nextChange(changes, before);
      expect(await names(client)).toEqual(['echo_echo', 'echo_add']);
      await expect(
        callTool(client, 'add-tool-annotation', {
          toolRef: { namespacedName: 'echo.echo' },
          notes: [{ name: 'a', note: 'b' }],
        }),
      ).rejects.toThrow(/Unknown tool: "add-tool-annotation"/);
    } finally {
      await client.close();
      await waitForRelease(store.dataDir);
    }
  });

  it('a default toolset is equipped from the start, and counts as equipped', async () => {
    const config = toolsetConfig(
      store,
      { echo: fixtureServer('echo') },
      { toolsets: { default: 'reading', configurationMode: 'until-equipped' } },
    );
    const { client } = await connectStdio(config, 'v2-legacy');
    try {
      expect(await names(client)).toEqual(['echo_echo', 'echo_add']);
    } finally {
      await client.close();
      await waitForRelease(store.dataDir);
    }
  });

  it('always: meta tools stay beside the equipped toolset', async () => {
    const config = toolsetConfig(
      store,
      { echo: fixtureServer('echo') },
      { toolsets: { default: 'reading', configurationMode: 'always' } },
    );
    const { client } = await connectStdio(config, 'v2-legacy');
    try {
      expect(await names(client)).toEqual([...META_NAMES, 'echo_echo', 'echo_add']);
      const active = await callTool(client, 'get-active-toolset');
      expect(active.structuredContent.equipped).toBe('reading');
    } finally {
      await client.close();
      await waitForRelease(store.dataDir);
    }
  });
});

describe('2025 and 2026 clients over HTTP on one gateway', () => {
  let store: E2eStore;
  let gateway: (GatewayProcess & { url: string }) | undefined;
  let modern: Client;
  let modernToo: Client;
  let legacy: Client;

  beforeAll(async () => {
    store = await e2eStore('pglite');
    const config = toolsetConfig(
      store,
      { echo: fixtureServer('echo') },
      { toolsets: { configurationMode: 'always' } },
    );
    await seed(config);
    gateway = await startHttpGateway(config);
    modern = (await connectHttp(gateway.url, 'v2-auto')) as Client;
    modernToo = (await connectHttp(gateway.url, 'v2-auto')) as Client;
    legacy = (await connectHttp(gateway.url, 'v2-legacy')) as Client;
  });

  afterAll(async () => {
    await modern.close();
    await modernToo.close();
    await legacy.close();
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
    await store.cleanup();
  });

  it('lets a 2026 client equip a toolset for its principal, and add notes, apart from 2025 sessions', async () => {
    expect(modern.getProtocolEra()).toBe('modern');
    expect(legacy.getProtocolEra()).toBe('legacy');
    const changes = countListChanged(modernToo);
    await modernToo.listen({ toolsListChanged: true });
    const before = changes();
    const equipped = await callTool(modern, 'equip-toolset', { name: 'reading' });
    expect(resultText(equipped)).toMatch(/Equipped toolset "reading"/);
    await nextChange(changes, before);
    // Stateless 2026 clients share what their principal (here: no auth) equipped.
    for (const client of [modern, modernToo]) {
      expect(await names(client)).toEqual([...META_NAMES, 'echo_echo', 'echo_add']);
    }
    // A 2025 session has its own: nothing equipped.
    expect(await names(legacy)).toContain('echo_delete_all_records');

    const noted = changes();
    await callTool(modern, 'add-tool-annotation', {
      toolRef: { namespacedName: 'echo.echo' },
      notes: [{ name: 'http-note', note: 'Seen by every client of the toolset.' }],
    });
    await nextChange(changes, noted);
    const echo: Wire = await listedTool(modernToo, 'echo_echo');
    expect(echo.description).toBe(
      'Returns the text it is given.\n\n### Additional Tool Notes\n\n• **http-note**: Seen by every client of the toolset.',
    );
    await callTool(legacy, 'equip-toolset', { name: 'reading' });
    expect((await listedTool(legacy, 'echo_echo')).description).toBe(echo.description);
  });
});

describe('two gateways on one PostgreSQL database', () => {
  let store: E2eStore;
  let first: Client;
  let second: Client;

  beforeAll(async () => {
    store = await e2eStore('postgres');
    const config = toolsetConfig(
      store,
      { echo: fixtureServer('echo') },
      { toolsets: { configurationMode: 'always', default: 'reading' } },
    );
    await seed(config);
    first = (await connectStdio(config, 'v2-legacy')).client;
    second = (await connectStdio(config, 'v2-auto')).client;
  });

  afterAll(async () => {
    await first.close();
    await second.close();
    await store.cleanup();
  });

  it('carries a note added on one replica to the clients of the other (LISTEN/NOTIFY)', async () => {
    const changes = countListChanged(second);
    if (second.getProtocolEra() === 'modern') await second.listen({ toolsListChanged: true });
    const before = changes();
    const added = await callTool(first, 'add-tool-annotation', {
      toolRef: { namespacedName: 'echo.add' },
      notes: [{ name: 'replicated', note: 'Written on the first gateway.' }],
    });
    expect(added.isError).toBeUndefined();
    await nextChange(changes, before);
    const add = await waitFor(
      () => listedTool(second, 'echo_add'),
      (tool: Wire) => String(tool.description).includes('replicated'),
      5_000,
      20,
    );
    expect(add.description).toBe(
      'Adds two numbers and returns the sum.\n\n### Additional Tool Notes\n\n• **replicated**: Written on the first gateway.',
    );
  });
});
