import { describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { connectStdio, rawCall } from '../helpers/gateway.js';

// A server still starting (npx fetching it, a slow machine) has no tools listed yet; a call
// of one of its tools says so, rather than "not available".
describe('a call to a server that is still starting', () => {
  it('says the server is still starting and when to call again', async () => {
    const config = writeConfig(
      scratchDir(),
      {
        slow: fixtureServer('hang', ['--mode', 'silent'], {
          timeouts: { connectMs: 60_000, closeGraceMs: 300 },
        }),
      },
      { gateway: { startupWaitMs: 0 } },
    );
    const { client } = await connectStdio(config, 'v2-legacy');
    try {
      const failure = await rawCall(client, 'slow_anything').catch((error: unknown) => error);
      expect(failure).toMatchObject({
        message: expect.stringContaining(
          'server "slow" is still starting; call again once it is up (clients are told with tools/list_changed)',
        ),
      });
    } finally {
      await client.close();
    }
  }, 60_000);
});
