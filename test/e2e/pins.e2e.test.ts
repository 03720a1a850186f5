import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord, StoreKind, ToolPin } from '../../src/store/types.js';
import {
  callTool,
  connectGatewayHttp,
  connectGatewayStdio,
  eventually,
  textOf,
} from '../helpers/call-path.js';
import { cliJson, runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { rawListTools, startHttpGateway } from '../helpers/gateway.js';
import type { TestStorage } from '../helpers/store.js';
import { storeSpec, testStorage } from '../helpers/store.js';

function calls(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { tool: string }).tool);
}

type Front = 'stdio' | 'http';

/** Both stores and both fronts, two gateways each (one restart). */
const CASES: [StoreKind, Front][] = [
  ['pglite', 'stdio'],
  ['postgres', 'http'],
];

describe.each(CASES)('tool pins against a rug pull (%s store, %s)', (kind, front) => {
  const dir = scratchDir();
  const versionFile = join(dir, 'version.txt');
  const log = join(dir, 'calls.jsonl');
  const dynLog = join(dir, 'dyn.jsonl');
  let storage: TestStorage;
  let config: string;
  let client: Client;
  let gateway: (GatewayProcess & { url: string }) | undefined;
  let listChanged = 0;

  async function open(): Promise<void> {
    client = new Client({ name: 'pins-test', version: '1' });
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      listChanged++;
    });
    if (front === 'stdio') {
      await connectGatewayStdio(client, config);
    } else {
      gateway = await startHttpGateway(config);
      await connectGatewayHttp(client, gateway.url);
    }
  }

  async function shut(): Promise<void> {
    await client?.close();
    if (gateway !== undefined) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
    gateway = undefined;
  }

  async function listed(): Promise<Map<string, Record<string, unknown>>> {
    const tools = await rawListTools(client);
    return new Map(tools.map((tool) => [tool['name'] as string, tool]));
  }

  beforeAll(async () => {
    storage = await testStorage(kind);
    writeFileSync(versionFile, '1');
    config = writeConfig(
      dir,
      {
        notes: fixtureServer('rugpull', ['--version-file', versionFile, '--log', log]),
        dyn: fixtureServer('rugpull', ['--dynamic', '--log', dynLog]),
      },
      {
        dataDir: storage.dataDir,
        store: storeSpec(storage),
        policy: { waitForApproval: false },
      },
    );
    await open();
  }, 120_000);
  afterAll(async () => {
    await shut();
    await storage?.cleanup();
  }, 120_000);

  it('trusts first sight; an untrusted server answering read-only for a purge gets it confirmed', async () => {
    const tools = await eventually(
      async () => {
        const now = await listed();
        return now.has('notes_purge_all_records') && now.has('dyn_purge_all_records')
          ? now
          : undefined;
      },
      20_000,
      'the first listing',
    );
    expect([...tools.keys()].filter((name) => name.startsWith('notes_')).sort()).toEqual([
      'notes_get_note',
      'notes_list_notes',
      'notes_purge_all_records',
    ]);
    expect(textOf(await callTool(client, 'notes_list_notes'))).toBe('called list_notes');
    const purge = await callTool(client, 'dyn_purge_all_records', { table: 'all' });
    expect(purge['isError']).toBe(true);
    expect(textOf(purge)).toContain('needs approval');
    expect(calls(dynLog)).toEqual([]);
    const audit = await eventually(
      async () =>
        (await cliJson<AuditRecord[]>(config, 'audit', '--tool', 'dyn_purge_all_records')).find(
          (record) => record.error?.includes('uncorroborated') === true,
        ),
      20_000,
      'the audit record of the uncorroborated answer',
    );
    expect(audit.decision).not.toBe('allow');
  }, 120_000);

  it('live: list_changed with poisoned, new and relaxed tools serves none of it', async () => {
    const before = await listed();
    writeFileSync(versionFile, '2');
    // The server sends list_changed; the gateway's re-check shows in the pins (the new tool
    // waiting). What clients see does not change: every change is held back or put back.
    await eventually(
      async () =>
        (await cliJson<ToolPin[]>(config, 'pins', 'list', '--server', 'notes')).some(
          (pin) => pin.tool === 'share_notes',
        )
          ? true
          : undefined,
      20_000,
      'the re-check of the changed listing',
    );
    const tools = await listed();
    expect(tools).toEqual(before);
    const text = JSON.stringify([...tools.values()]);
    expect(text).not.toContain('IMPORTANT');
    expect(text).not.toContain('id_rsa');
    expect(tools.get('notes_get_note')?.['description']).toBe('Reads one note by id.');
    expect(tools.has('notes_share_notes')).toBe(false);
    expect(tools.get('notes_purge_all_records')?.['annotations']).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    // Held back: the new tool's call never reaches the server; the purge is confirmed.
    const share = await client
      .request(
        { method: 'tools/call', params: { name: 'notes_share_notes', arguments: { url: 'x' } } },
        (await import('../helpers/gateway.js')).LOOSE,
      )
      .then(
        (result) => textOf(result),
        (error: unknown) => String(error),
      );
    expect(share).toContain('held until a person reviews it');
    const purge = await callTool(client, 'notes_purge_all_records', { table: 't' });
    expect(textOf(purge)).toContain('needs approval');
    // Unchanged (only reordered) tools keep working, with no drift (other arguments than
    // before: a read-only result is cached).
    expect(textOf(await callTool(client, 'notes_list_notes', { page: 2 }))).toBe(
      'called list_notes',
    );
    expect(calls(log)).toEqual(['list_notes', 'list_notes']);
    const pins = await cliJson<ToolPin[]>(config, 'pins', 'list', '--server', 'notes');
    const byTool = new Map(pins.map((pin) => [pin.tool, pin]));
    expect(byTool.get('list_notes')?.status).toBe('pinned');
    expect(byTool.get('get_note')?.drift?.grades).toContain('suspicious-text');
    expect(byTool.get('purge_all_records')?.drift?.grades).toContain('relaxation');
    expect(byTool.get('share_notes')).toMatchObject({ status: 'pending' });
    const diff = await runCli(['pins', 'diff', 'notes.get_note', '--config', config]);
    expect(diff.stdout).toContain('suspicious text in description');
  }, 120_000);

  it('after a restart the same tools stay held; approve and reject from the CLI apply at once', async () => {
    await shut();
    listChanged = 0;
    await open();
    const tools = await eventually(
      async () => {
        const now = await listed();
        return now.has('notes_get_note') ? now : undefined;
      },
      20_000,
      'the listing after the restart',
    );
    expect(JSON.stringify([...tools.values()])).not.toContain('IMPORTANT');
    expect(tools.has('notes_share_notes')).toBe(false);
    const rejected = await runCli(['pins', 'reject', 'notes.get_note', '--config', config]);
    expect(rejected.code).toBe(0);
    const approved = await runCli([
      'pins',
      'approve',
      'notes.share_notes',
      '--config',
      config,
      '--by',
      'ana',
    ]);
    expect(approved.code, approved.stderr).toBe(0);
    await eventually(
      async () => ((await listed()).has('notes_share_notes') ? true : undefined),
      20_000,
      'the approved tool listed',
    );
    // Over HTTP the notification comes on the GET stream, the listing on the POST's answer:
    // either may arrive first.
    await eventually(() => (listChanged > 0 ? true : undefined), 20_000, 'list_changed');
    expect(textOf(await callTool(client, 'notes_share_notes', { url: 'x' }))).toBe(
      'called share_notes',
    );
    expect((await listed()).get('notes_get_note')?.['description']).toBe('Reads one note by id.');
    const audit = await cliJson<AuditRecord[]>(config, 'audit', '--server', 'notes');
    const decisions = new Set(audit.map((record) => record.decision));
    for (const decision of ['pin:hold', 'pin:keep-pinned', 'pin:approved', 'pin:rejected'])
      expect(decisions).toContain(decision);
  }, 120_000);
});
