import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, connectGatewayStdio, writeFastConfig } from '../helpers/call-path.js';
import type { ServerEntry } from '../helpers/config.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import { ROOT } from '../helpers/paths.js';

const REGISTER = pathToFileURL(join(ROOT, 'test', 'fixtures', 'module-log', 'register.mjs'));
const OPENAPI = join(ROOT, 'test', 'fixtures', 'openapi');

/** Starts a gateway in front of `servers`, makes one call, and returns what it loaded. */
async function modulesLoaded(
  client: Client,
  servers: Record<string, ServerEntry>,
  tool: string,
): Promise<string[]> {
  const dir = scratchDir();
  for (const file of ['pets.openapi.yaml', 'pets-schemas.yaml'])
    copyFileSync(join(OPENAPI, file), join(dir, file));
  const log = join(dir, 'modules.log');
  const config = await writeFastConfig(dir, servers);
  // From its modules: what the loader hook sees (the bundle, src/cli/code-cache.ts, is one
  // file whose modules run on first use just the same).
  await connectGatewayStdio(client, config, [], {
    HINTGATE_BUNDLE: 'off',
    NODE_OPTIONS: `--import=${REGISTER.href}`,
    HINTGATE_TEST_MODULE_LOG: log,
  });
  const result = await callTool(client, tool, { text: 'hi' });
  expect(result['isError']).not.toBe(true);
  return readFileSync(log, 'utf8').split('\n');
}

const OPENAPI_MODULES =
  /@readme\/openapi-parser|dist\/downstream\/openapi\/(server|document|check)\.js/;

describe('modules a gateway loads', () => {
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('leaves the OpenAPI parser unloaded when no server is an OpenAPI one', async () => {
    client = new Client({ name: 'test', version: '1' });
    const loaded = await modulesLoaded(client, { echo: fixtureServer('echo') }, 'echo_echo');
    expect(loaded.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
    expect(loaded.filter((url) => OPENAPI_MODULES.test(url))).toEqual([]);
  });

  it('loads it for an OpenAPI server', async () => {
    client = new Client({ name: 'test', version: '1' });
    const loaded = await modulesLoaded(
      client,
      {
        echo: fixtureServer('echo'),
        pets: { openapi: 'pets.openapi.yaml', baseUrl: 'http://127.0.0.1:9/v1' },
      },
      'echo_echo',
    );
    expect(loaded.some((url) => url.includes('@readme/openapi-parser'))).toBe(true);
  });
});
