import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { TOOL_META_KEY } from '../../src/gateway/catalog-entry.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { newClient, rawListTools } from '../helpers/gateway.js';
import { requireBuiltCli } from '../helpers/paths.js';

// Provenance weighs more than a small tool itself: it is served to the clients that ask.
describe("each tool's provenance in tools/list", () => {
  it('is served in full to a client declaring the capability, compact to others', async () => {
    const config = writeConfig(scratchDir(), {
      crm: fixtureServer('generator', ['--tools', '5'], { era: 'legacy' }),
    });
    const listFor = async (provenance: boolean) => {
      const client = newClient('v2-legacy', { provenance });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [requireBuiltCli(), 'serve', '--config', config],
          stderr: 'ignore',
        }),
      );
      try {
        return await rawListTools(client);
      } finally {
        await client.close();
      }
    };
    const full = await listFor(true);
    const compact = await listFor(false);
    expect(compact.map((tool) => tool['name'])).toEqual(full.map((tool) => tool['name']));
    expect(compact.map((tool) => tool['annotations'])).toEqual(
      full.map((tool) => tool['annotations']),
    );
    expect(full[0]?.['_meta']).toMatchObject({
      [TOOL_META_KEY]: { server: 'crm', name: 't_get_user_0', namespacedName: 'crm.t_get_user_0' },
    });
    // The generator declares no extension: hintgate has nothing to add but what it inferred.
    expect(compact.every((tool) => tool['_meta'] === undefined)).toBe(true);
    expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(full).length / 2);
  }, 60_000);
});
