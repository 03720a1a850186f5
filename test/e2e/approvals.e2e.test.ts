import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval, AuditRecord, StoreKind } from '../../src/store/types.js';
import {
  callTool,
  callsIn,
  connectGatewayHttp,
  connectGatewayStdio,
  counterServer,
  elicitingClient,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { cliJson, runCli } from '../helpers/cli.js';
import { scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { startHttpGateway } from '../helpers/gateway.js';
import type { TestStorage } from '../helpers/store.js';
import { storeSpec, testStorage } from '../helpers/store.js';

/** `hintgate <args> --config <config> --json`, parsed. */
/** The pending approval of a write with `value`, once the gateway has queued it. */
function pendingWrite(config: string, value: number): Promise<Approval> {
  return eventually(
    async () =>
      (await cliJson<Approval[]>(config, 'approvals', 'list')).find(
        (approval) =>
          approval.tool === 'counter.write_value' &&
          (approval.arguments as { value?: number }).value === value,
      ),
    20_000,
    `a pending approval of write_value ${value}`,
  );
}

describe.each<StoreKind>(['pglite', 'postgres'])(
  'the approval queue, decided from a second process (%s)',
  (kind) => {
    const dir = scratchDir();
    let storage: TestStorage;
    let config: string;
    let client: Client;
    let asked: unknown[] = [];

    beforeAll(async () => {
      storage = await testStorage(kind);
      config = writeConfig(
        dir,
        { counter: counterServer(dir) },
        {
          dataDir: storage.dataDir,
          store: storeSpec(storage),
          policy: {
            tools: {
              'counter.write_value': { requireApprovalQueue: true },
              'counter.add_entry': {
                waitForApproval: false,
                confirm: 'writes',
                requireApprovalQueue: true,
              },
            },
          },
        },
      );
      // The client could answer elicitation; config says only a person in the queue counts.
      const opened = elicitingClient('legacy', () => ({ action: 'accept' }));
      client = opened.client;
      asked = opened.asked;
      await connectGatewayStdio(client, config);
    });
    afterAll(async () => {
      await client?.close();
      await storage?.cleanup();
    });

    it('holds the call until `hintgate approvals approve` in another process, then runs it once', async () => {
      const call = callTool(client, 'counter_write_value', { key: 'q', value: 10, token: 'tk-1' });
      const approval = await pendingWrite(config, 10);
      expect(approval).toMatchObject({
        status: 'pending',
        server: 'counter',
        // `key` and `token` look secret (the fixture's `key` is a record key: redacted anyway).
        arguments: { key: '[redacted]', value: 10, token: '[redacted]' },
        client: 'elicit-legacy',
      });
      expect(callsIn(dir, 'counter', 'write_value')).toEqual([]);
      const approved = await runCli([
        'approvals',
        'approve',
        approval.id,
        '--config',
        config,
        '--by',
        'alice',
      ]);
      expect(approved.code).toBe(0);
      expect(approved.stderr).toContain(`approved ${approval.id}`);
      const result = await call;
      expect(result['isError']).toBeUndefined();
      expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
      expect(asked).toEqual([]);
    });

    it('refuses the call when denied from the CLI; it never reaches the server', async () => {
      const call = callTool(client, 'counter_write_value', { key: 'q', value: 11 });
      const approval = await pendingWrite(config, 11);
      const denied = await runCli([
        'approvals',
        'deny',
        approval.id,
        '--config',
        config,
        '--by',
        'bob',
        '--note',
        'not on Fridays',
      ]);
      expect(denied.code).toBe(0);
      const result = await call;
      expect(result['isError']).toBe(true);
      expect(textOf(result)).toContain(`denied by cli:bob (not on Fridays)`);
      expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
      const again = await runCli(['approvals', 'approve', approval.id, '--config', config]);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('already denied by cli:bob');
    });

    it('without waiting, tells the model a person must approve (not how); the same call then goes through', async () => {
      const first = await callTool(client, 'counter_add_entry', { key: 'e', entry: 'one' });
      expect(first['isError']).toBe(true);
      expect(textOf(first)).not.toContain('approvals approve');
      const id = /approval ([0-9a-f]{12})/.exec(textOf(first))?.[1];
      expect(id).toBeDefined();
      const run = await runCli(['approvals', 'approve', id ?? '', '--config', config]);
      expect(run.code).toBe(0);
      const second = await callTool(client, 'counter_add_entry', { key: 'e', entry: 'one' });
      expect(second['isError']).toBeUndefined();
      expect(callsIn(dir, 'counter', 'add_entry')).toHaveLength(1);
    });

    it('records every call in the audit log, queried with `hintgate audit`', async () => {
      const records = await eventually(async () => {
        const found = await cliJson<AuditRecord[]>(
          config,
          'audit',
          '--tool',
          'counter.write_value',
          '--since',
          '10m',
        );
        return found.length >= 2 ? found : undefined;
      });
      expect(records[0]).toMatchObject({
        tool: 'counter_write_value',
        namespacedName: 'counter.write_value',
        server: 'counter',
        decision: 'denied',
        approver: 'cli:bob',
        outcome: 'denied',
        client: 'elicit-legacy',
      });
      expect(records[1]).toMatchObject({
        decision: 'approved',
        approver: 'cli:alice',
        outcome: 'ok',
        arguments: { key: '[redacted]', value: 10, token: '[redacted]' },
        annotations: { destructiveHint: true, readOnlyHint: false },
        sources: { destructiveHint: 'declared' },
      });
      const denied = await cliJson<AuditRecord[]>(config, 'audit', '--decision', 'denied');
      expect(denied.every((record) => record.decision === 'denied')).toBe(true);
    });
  },
);

describe('the approval queue over the HTTP API', () => {
  // The agent's token makes the calls; carol, an approver, decides them.
  const TOKEN = 'test-token-0123456789abcdef';
  const CAROL = 'carol-token-0123456789abcdef';
  const dir = scratchDir();
  let gateway: GatewayProcess & { url: string };
  let client: Client;
  let api: string;
  const auth = { authorization: `Bearer ${TOKEN}` };
  const carol = { authorization: `Bearer ${CAROL}` };

  beforeAll(async () => {
    const config = await writeFastConfig(
      dir,
      { counter: counterServer(dir) },
      {
        policy: {
          tools: { 'counter.get_secret_report': { restrictedArguments: 'omit' } },
        },
        http: {
          tokens: [
            { name: 'agent', tokenEnv: 'AGENT_TOKEN' },
            { name: 'carol', tokenEnv: 'CAROL_TOKEN', groups: ['ops'] },
          ],
        },
        access: { approvers: ['group:ops'] },
      },
    );
    gateway = await startHttpGateway(config, [], { AGENT_TOKEN: TOKEN, CAROL_TOKEN: CAROL });
    api = gateway.url.replace(/\/mcp$/, '/api');
    // A client that cannot answer elicitation: confirmations go to the queue.
    client = elicitingClient('legacy', () => ({ action: 'decline' }), {
      elicitation: false,
    }).client;
    await connectGatewayHttp(client, gateway.url, auth);
  });
  afterAll(async () => {
    await client?.close();
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it('refuses requests without the bearer token', async () => {
    expect((await fetch(`${api}/approvals`)).status).toBe(401);
    expect((await fetch(`${api}/audit`)).status).toBe(401);
    expect((await fetch(`${api}/approvals/000000000000/approve`, { method: 'POST' })).status).toBe(
      401,
    );
  });

  it('lists the waiting call and approves it with POST /api/approvals/:id/approve', async () => {
    const call = callTool(client, 'counter_write_value', { key: 'h', value: 1 });
    const pending = await eventually(async () => {
      const response = await fetch(`${api}/approvals?status=pending`, { headers: auth });
      const body = (await response.json()) as { approvals: Approval[] };
      return body.approvals.find((approval) => approval.tool === 'counter.write_value');
    });
    expect(pending.requestedBy).toBe('agent');
    // The credential that made the call cannot approve it, whatever it says it is.
    const itself = await fetch(`${api}/approvals/${pending.id}/approve`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'the-agent-itself' }),
    });
    expect(itself.status).toBe(403);
    expect(await itself.json()).toMatchObject({
      error: { code: 'FORBIDDEN', message: expect.stringContaining('approver role') },
    });
    const response = await fetch(`${api}/approvals/${pending.id}/approve`, {
      method: 'POST',
      headers: { ...carol, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'looks fine' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: pending.id,
      status: 'approved',
      decidedBy: 'api:carol',
      requestedBy: 'agent',
      note: 'looks fine',
    });
    expect((await call)['isError']).toBeUndefined();
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
    const twice = await fetch(`${api}/approvals/${pending.id}/deny`, {
      method: 'POST',
      headers: carol,
    });
    expect(twice.status).toBe(409);
    expect(
      (await fetch(`${api}/approvals/ffffffffffff/approve`, { method: 'POST', headers: carol }))
        .status,
    ).toBe(404);
  });

  it('denies with POST /api/approvals/:id/deny; the call never arrives', async () => {
    const call = callTool(client, 'counter_write_value', { key: 'h', value: 2 });
    const pending = await eventually(async () => {
      const response = await fetch(`${api}/approvals?status=pending`, { headers: auth });
      return ((await response.json()) as { approvals: Approval[] }).approvals[0];
    });
    expect(
      (await fetch(`${api}/approvals/${pending.id}/deny`, { method: 'POST', headers: carol }))
        .status,
    ).toBe(200);
    const result = await call;
    expect(result['isError']).toBe(true);
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
  });

  it('serves the audit log with secrets redacted and restricted arguments left out, and stats', async () => {
    await callTool(client, 'counter_read_value', { key: 'h', password: 'hunter2' });
    // The same read again: answered from the cache.
    await callTool(client, 'counter_read_value', { password: 'hunter2', key: 'h' });
    await callTool(client, 'counter_get_secret_report', { employee: 'bob', apiKey: 'k-1' });
    const records = await eventually(async () => {
      const response = await fetch(`${api}/audit?server=counter&limit=50`, { headers: auth });
      const body = (await response.json()) as { records: AuditRecord[] };
      return body.records.some((record) => record.namespacedName === 'counter.get_secret_report')
        ? body.records
        : undefined;
    });
    const read = records.find((record) => record.namespacedName === 'counter.read_value');
    expect(read).toMatchObject({
      decision: 'allow',
      outcome: 'ok',
      arguments: { key: '[redacted]', password: '[redacted]' },
    });
    expect(JSON.stringify(records)).not.toContain('hunter2');
    expect(
      records.find((record) => record.namespacedName === 'counter.get_secret_report'),
    ).toMatchObject({
      arguments: '[redacted]',
    });
    const approved = records.find((record) => record.decision === 'approved');
    expect(approved).toMatchObject({
      approver: 'api:carol',
      principal: 'agent',
      namespacedName: 'counter.write_value',
    });
    const agents = await fetch(`${api}/audit?principal=agent&limit=50`, { headers: auth });
    // Every call was the agent's; the server's first sighting (pinned) is no one's.
    const calls = records.filter((record) => !record.decision.startsWith('pin:'));
    expect(calls.length).toBeGreaterThan(0);
    expect(((await agents.json()) as { records: AuditRecord[] }).records).toHaveLength(
      calls.length,
    );
    const bad = await fetch(`${api}/audit?since=yesterday-ish`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(
      records.filter((record) => record.namespacedName === 'counter.read_value' && record.cacheHit),
    ).toHaveLength(1);
    expect(callsIn(dir, 'counter', 'read_value')).toHaveLength(1);
    const stats = (await (await fetch(`${api}/stats`, { headers: auth })).json()) as {
      cache: { hits: number; misses: number; entries: number };
      audit: { enabled: boolean };
    };
    expect(stats.audit.enabled).toBe(true);
    expect(stats.cache).toMatchObject({ hits: 1, entries: 2 });
    expect(stats.cache.misses).toBeGreaterThanOrEqual(2);
  });
});
