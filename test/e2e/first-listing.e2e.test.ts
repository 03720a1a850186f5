import { describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { connectStdio, rawListTools } from '../helpers/gateway.js';

// The first tools/list a client sends is the one many agents plan from (and some clients
// never act on list_changed): with the default config it holds every tool of every server
// that comes up within the startup wait, however slowly each starts.
describe('the first listing', () => {
  it('holds all 1,000 tools of 10 servers that start at different speeds', async () => {
    const servers = Object.fromEntries(
      Array.from({ length: 10 }, (_, index) => [
        `s${index}`,
        fixtureServer(
          'generator',
          // Offsets keep names apart; the later servers wait up to 3.6 s before answering.
          ['--tools', '100', '--offset', String(index * 100), '--delay-start', String(index * 400)],
          { era: 'legacy' },
        ),
      ]),
    );
    // A server that cannot start is reported, and does not hold the listing back.
    servers['broken'] = { command: '/nonexistent/hintgate-test-server' };
    const config = writeConfig(scratchDir(), servers);
    const { client, stderr } = await connectStdio(config, 'v2-legacy');
    try {
      const tools = await rawListTools(client);
      expect(tools).toHaveLength(1000);
      const names = new Set(tools.map((tool) => tool['name']));
      for (let index = 0; index < 10; index++) {
        expect(names.has(`s${index}_t_get_user_${index * 100}`)).toBe(true);
      }
      expect(stderr()).toMatch(/server "broken" is down: /);
    } finally {
      await client.close();
    }
  }, 90_000);
});
