import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureServer } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { connectHttp, rawListTools, startHttpGateway } from '../helpers/gateway.js';
import type { E2eStore } from '../helpers/toolsets.js';
import {
  callTool,
  countListChanged,
  e2eStore,
  nextChange,
  toolsetConfig,
  waitForRelease,
} from '../helpers/toolsets.js';
import { STORE_KINDS } from '../store/helpers/harness.js';

/** The servers a client's listing shows tools of (meta tools left out). */
const serversListed = async (client: Client): Promise<string[]> => {
  const names = (await rawListTools(client)).map((tool) => String(tool['name']));
  return [...new Set(names.filter((name) => name.includes('_')).map((n) => n.split('_')[0]))]
    .filter((server): server is string => server !== undefined)
    .sort();
};

// `hintgate toolset equip` chooses the default toolset in the store: a running gateway's
// sessions without a choice of their own get it (and list_changed), sessions that chose keep
// theirs, and it holds after a restart, winning over the config's `toolsets.default`.
describe.each(STORE_KINDS)('hintgate toolset equip (%s store)', (kind) => {
  let store: E2eStore;
  let config: string;
  let gateway: (GatewayProcess & { url: string }) | undefined;
  const clients: Client[] = [];

  const cli = (...args: string[]) => runCli([...args, '--config', config]);
  const connect = async (url: string): Promise<Client> => {
    const client = (await connectHttp(url, 'v2-legacy')) as Client;
    clients.push(client);
    return client;
  };
  const stop = async (): Promise<void> => {
    for (const client of clients.splice(0)) await client.close();
    if (gateway === undefined) return;
    gateway.child.kill('SIGTERM');
    await gateway.exited;
    gateway = undefined;
    await waitForRelease(store.dataDir);
  };

  beforeAll(async () => {
    store = await e2eStore(kind);
    config = toolsetConfig(
      store,
      { echo: fixtureServer('echo'), counter: fixtureServer('counter') },
      { toolsets: { default: 'counter-only', configurationMode: 'always' } },
    );
    for (const [name, ...servers] of [
      ['echo-only', 'echo'],
      ['counter-only', 'counter'],
      ['both', 'echo', 'counter'],
    ] as const) {
      const run = await cli(
        'toolset',
        'create',
        name,
        ...servers.flatMap((server) => ['--server', server]),
      );
      expect(run.code, run.stderr).toBe(0);
    }
  }, 180_000);

  afterAll(async () => {
    await stop();
    await store.cleanup();
  });

  it('reaches the sessions of a running gateway that have not chosen a toolset', async () => {
    gateway = await startHttpGateway(config);
    const free = await connect(gateway.url);
    const chooser = await connect(gateway.url);
    await callTool(chooser, 'equip-toolset', { name: 'both' });
    expect(await serversListed(free)).toEqual(['counter']);
    expect(await serversListed(chooser)).toEqual(['counter', 'echo']);
    const changes = countListChanged(free);

    const before = changes();
    const run = await cli('toolset', 'equip', 'echo-only', '--by', 'tester');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`default toolset: "echo-only", chosen by cli:tester at `);
    expect(run.stderr).toContain(`it wins over the config's toolsets.default "counter-only"`);
    await nextChange(changes, before, 10_000);
    expect(await serversListed(free)).toEqual(['echo']);
    expect(await serversListed(chooser)).toEqual(['counter', 'echo']);

    const list = await cli('toolset', 'list');
    expect(list.stdout).toContain('default toolset: "echo-only", chosen by cli:tester');
  }, 180_000);

  it('holds after a restart, and --reset goes back to the config default', async () => {
    await stop();
    gateway = await startHttpGateway(config);
    await gateway.waitForStderr(/toolsets\.default: "counter-only" in the config is overruled/);
    const client = await connect(gateway.url);
    expect(await serversListed(client)).toEqual(['echo']);
    const changes = countListChanged(client);

    const before = changes();
    const reset = await cli('toolset', 'equip', '--reset', '--json');
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toEqual({
      default: 'counter-only',
      chosen: null,
      configured: 'counter-only',
    });
    await nextChange(changes, before, 10_000);
    expect(await serversListed(client)).toEqual(['counter']);

    const none = await cli('toolset', 'equip', '--none');
    expect(none.code, none.stderr).toBe(0);
    await nextChange(changes, before + 1, 10_000);
    expect(await serversListed(client)).toEqual(['counter', 'echo']);
  }, 180_000);

  it('refuses a toolset that does not exist, naming those there are, and changes nothing', async () => {
    const run = await cli('toolset', 'equip', 'nosuch');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /toolset "nosuch" does not exist; toolsets: both, counter-only, echo-only/,
    );
    const both = await cli('toolset', 'equip', 'both', '--none');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give one of: a toolset name, --none');
    const list = await cli('toolset', 'list');
    expect(list.stdout).toContain('default toolset: none (every tool), chosen by cli:');
  }, 180_000);
});
