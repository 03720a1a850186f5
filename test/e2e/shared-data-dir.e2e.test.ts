import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { connectStdio, rawCall, rawListTools } from '../helpers/gateway.js';
import { waitFor } from '../helpers/processes.js';

// Two desktop clients on one config: each starts its own stdio gateway on the same data
// directory. The second works through the first one's embedded store instead of exiting.
describe('a second gateway on the same data directory', () => {
  let first: Awaited<ReturnType<typeof connectStdio>>;
  let second: Awaited<ReturnType<typeof connectStdio>>;
  let config: string;

  beforeAll(async () => {
    config = writeConfig(scratchDir(), { echo: fixtureServer('echo') });
    first = await connectStdio(config, 'v2-auto');
    await waitFor(
      () => rawListTools(first.client),
      (tools) => tools.some((tool) => tool['name'] === 'echo_echo'),
      60_000,
    );
    second = await connectStdio(config, 'v2-auto');
  }, 120_000);

  afterAll(async () => {
    await second?.client.close();
    await first?.client.close();
  });

  const echo = (client: Client, message: string) =>
    rawCall(client, 'echo_echo', { text: message }).then((result) =>
      JSON.stringify(result['content']),
    );

  it("serves its client, through the first one's store", async () => {
    const tools = await waitFor(
      () => rawListTools(second.client),
      (list) => list.some((tool) => tool['name'] === 'echo_echo'),
      60_000,
    );
    expect(tools.length).toBeGreaterThan(0);
    expect(await echo(second.client, 'from the second')).toContain('from the second');
    expect(second.stderr()).toMatch(/store: .* \(through the gateway, pid \d+\)/);
  });

  it('records its calls in the shared audit log, which the CLI reads', async () => {
    const run = await waitFor(
      () => runCli(['audit', '--config', config, '--json']),
      (result) => result.stdout.includes('echo_echo'),
      60_000,
      250,
    );
    expect(run.code).toBe(0);
  });
});
