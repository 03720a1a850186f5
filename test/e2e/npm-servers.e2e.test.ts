import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/config.js';
import { connectStdio, expectNoOrphans, rawCall, rawListTools } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';
import type { ProcessRow } from '../helpers/processes.js';
import { descendants, waitFor } from '../helpers/processes.js';
import type { Wire } from '../helpers/wire.js';

// The shipped example config, unchanged, started from another working directory (as a
// desktop client does), with the servers installed from npm as dev dependencies (npx finds
// them: nothing downloaded).
describe('the example config fronting published npm servers', () => {
  let client: Client;
  let spawned: ProcessRow[];
  let tools: Record<string, Wire>[];
  let dataDir: string;

  beforeAll(async () => {
    // A data directory of its own: a gateway started with `npm start` may hold the example's.
    const dir = scratchDir();
    dataDir = join(dir, 'data');
    const config = join(ROOT, 'examples', 'hintgate.config.yaml');
    const connected = await connectStdio(config, 'v2-auto', ['--data-dir', dataDir], dir);
    client = connected.client;
    tools = await waitFor(
      () => rawListTools(client),
      // The servers' tools (flattened `server_tool`), not counting the meta tools.
      (list) => list.filter((listed) => String(listed['name']).includes('_')).length >= 38,
      // npx starts each server: seconds on an idle machine, more on a busy one.
      100_000,
      200,
    );
    spawned = descendants(connected.transport.pid as number);
  }, 120_000);

  afterAll(async () => {
    await client.close();
    expect(await expectNoOrphans(spawned)).toEqual([]);
  });

  const tool = (name: string) => {
    const found = tools.find((candidate) => candidate['name'] === name);
    if (found === undefined) throw new Error(`no ${name}`);
    return found;
  };

  it('lists the tools of server-everything, -filesystem and -memory with complete annotations', () => {
    for (const name of [
      'everything_echo',
      'files_read_text_file',
      'files_write_file',
      'memory_create_entities',
      'memory_delete_entities',
    ]) {
      const annotations = tool(name)['annotations'];
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        expect(typeof annotations[hint]).toBe('boolean');
      }
    }
    // Declared by the filesystem server (trusted in the example): passed through.
    const read = tool('files_read_text_file');
    expect(read['annotations']['readOnlyHint']).toBe(true);
    expect(read['_meta']['dev.hintgate/tool'].sources.readOnlyHint).toBe('declared');
    // The memory server's defaults from config, for what it does not declare itself.
    const memory = tool('memory_create_entities')['_meta']['dev.hintgate/tool'];
    expect(memory.extensions).toMatchObject({ tags: ['knowledge-graph'], auditRequired: true });
    expect(memory.sources).toMatchObject({
      tags: 'server-default',
      auditRequired: 'server-default',
      openWorldHint: 'declared',
    });
  });

  it('shows the meta tools (the example sets configurationMode: always)', () => {
    const names = tools.map((listed): unknown => listed['name']);
    expect(names).toEqual(
      expect.arrayContaining(['list-available-tools', 'build-toolset', 'add-tool-annotation']),
    );
  });

  it('calls each server through the gateway', async () => {
    const echo = await rawCall(client, 'everything_echo', { message: 'through hintgate' });
    expect(JSON.stringify(echo['content'])).toContain('through hintgate');
    const notes = await rawCall(client, 'files_read_text_file', {
      path: join(ROOT, 'examples', 'demo', 'notes.txt'),
    });
    expect(JSON.stringify(notes['content'])).toContain('coffee beans');
    const graph = await rawCall(client, 'memory_read_graph');
    expect(graph['isError']).not.toBe(true);
    // The memory server writes its graph into the data directory, wherever it is installed.
    const created = await rawCall(client, 'memory_create_entities', {
      entities: [{ name: 'hintgate', entityType: 'project', observations: ['a gateway'] }],
    });
    expect(created['isError']).not.toBe(true);
    expect(readFileSync(join(dataDir, 'memory.jsonl'), 'utf8')).toContain('"hintgate"');
  });

  it("applies the example's policy: a deletion from memory waits for a person in the queue", async () => {
    const deleted = await rawCall(client, 'memory_delete_entities', {
      entityNames: ['nobody-by-this-name'],
    });
    expect(deleted['isError']).toBe(true);
    expect(JSON.stringify(deleted['content'])).toMatch(
      /needs approval: this call waits for a person in the gateway's approval queue \(approval [0-9a-f]{12}\)/,
    );
    // The model is told the name it calls, not the namespaced one it cannot.
    expect(JSON.stringify(deleted['content'])).toContain(
      'call memory_delete_entities again with the same arguments',
    );
    expect(JSON.stringify(deleted['content'])).not.toContain('memory.delete_entities');
  });
});
