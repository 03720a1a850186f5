import type { Client } from '@modelcontextprotocol/client';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { FrontKind, FrontSession } from '../helpers/fronts.js';
import { openFront } from '../helpers/fronts.js';
import type { ClientKind } from '../helpers/gateway.js';
import { rawCall, rawListTools } from '../helpers/gateway.js';
import { waitFor } from '../helpers/processes.js';
import type { Wire } from '../helpers/wire.js';

const MATRIX: [FrontKind, ClientKind][] = [
  ['stdio', 'v2-legacy'],
  ['stdio', 'v2-auto'],
  ['stdio', 'v1'],
  ['http', 'v2-legacy'],
  ['http', 'v2-auto'],
];

describe.each(MATRIX)('list_changed over %s to a %s client', (front, kind) => {
  const config = writeConfig(scratchDir(), {
    // Their tools change on purpose: new ones are recorded, not held for a person.
    old: fixtureServer('changing', [], { era: 'legacy', pinning: { mode: 'warn' } }),
    new: fixtureServer('changing', ['--modern-only'], { pinning: { mode: 'warn' } }),
  });
  let session: FrontSession;
  let client: Client;
  let changes = 0;

  beforeAll(async () => {
    session = await openFront(front, kind, config);
    client = session.client as Client;
    if (kind === 'v1') {
      (session.client as V1Client).setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changes++;
      });
    } else {
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changes++;
      });
      if (client.getProtocolEra() === 'modern') await client.listen({ toolsListChanged: true });
    }
    await waitFor(
      () => rawListTools(client),
      (tools) => tools.length === 4,
      10_000,
      100,
    );
  });

  afterAll(async () => {
    await session.close();
  });

  it.each([
    ['a 2025 server', 'old'],
    ['a 2026 server', 'new'],
  ])('passes on a change announced by %s, with the new tool annotated', async (_label, server) => {
    const before = changes;
    const grown = await rawCall(client, `${server}_grow`);
    const added = String((grown['content'] as Wire[])[0].text);
    await waitFor(
      () => changes,
      (count) => count > before,
      5000,
    );
    expect(changes).toBeGreaterThan(before);
    // A notification from the startup burst may have been the one counted: read until it shows.
    const tools = await waitFor(
      () => rawListTools(client),
      (list) => list.some((candidate) => candidate['name'] === `${server}_${added}`),
      5000,
      50,
    );
    const tool = tools.find((candidate) => candidate['name'] === `${server}_${added}`) as Wire;
    expect(tool).toBeDefined();
    expect(tool._meta['dev.hintgate/tool']).toMatchObject({ server, name: added });
    expect(tool.annotations.readOnlyHint).toBe(true);
    expect(tool._meta['dev.hintgate/tool'].sources.readOnlyHint).toBe('inferred');
    expect((await rawCall(client, `${server}_${added}`))['content']).toEqual([
      { type: 'text', text: `called ${added}` },
    ]);
  });
});
