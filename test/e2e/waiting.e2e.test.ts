import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval, AuditRecord } from '../../src/store/types.js';
import {
  callsIn,
  connectGatewayHttp,
  connectGatewayStdio,
  counterServer,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { cliJson, runCli } from '../helpers/cli.js';
import { scratchDir } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { LOOSE, startHttpGateway } from '../helpers/gateway.js';

/**
 * Calls that wait (for a person, for a server that says nothing) while the client's own
 * request timeout runs: a client that sent a progress token and restarts its timeout on
 * progress waits as long as the call does; one that did not is never sent progress, and
 * gives up: its approval is then withdrawn, not denied. The SDK client's real timeout
 * (2 s) is used; approvals are decided only after the client heard progress for longer.
 */

const ALICE = 'alice-token-0123456789abcdef';
const PROGRESS_MS = 300;
/** Progress notifications heard before deciding: well past the client's 2 s timeout. */
const HEARD_BEFORE_DECIDING = 10;

/** A v2 client without elicitation (so a confirmation goes to the approval queue). */
function queueClient(name: string): Client {
  return new Client({ name, version: '1.0.0' }, { capabilities: {} });
}

/** Records every progress notification the client's connection receives, whatever its token. */
function progressOnConnection(client: Client): unknown[] {
  const seen: unknown[] = [];
  const transport = client.transport;
  const deliver = transport?.onmessage;
  if (transport === undefined || deliver === undefined) throw new Error('client not connected');
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/progress') seen.push(message);
    deliver(message, extra);
  };
  return seen;
}

/** Resolves once `count` progress messages arrived (heard through `onprogress`). */
function heard(messages: string[], count: number): Promise<string[]> {
  return eventually(() => (messages.length >= count ? messages : undefined), 60_000, 'progress');
}

function policyFor(): Record<string, unknown> {
  return {
    confirm: 'never',
    waiting: { progressMs: PROGRESS_MS },
    tools: { 'counter.write_value': { confirm: 'always', requireApprovalQueue: true } },
  };
}

describe('a call waiting for approval over stdio', () => {
  const dir = scratchDir();
  let config: string;
  let client: Client;
  let progressSeen: unknown[];
  let stderr: () => string;

  beforeAll(async () => {
    config = await writeFastConfig(dir, { counter: counterServer(dir) }, { policy: policyFor() });
    client = queueClient('waiter');
    ({ stderr } = await connectGatewayStdio(client, config));
    progressSeen = progressOnConnection(client);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('keeps a client with resetTimeoutOnProgress waiting past its 2 s timeout, until approved', async () => {
    const messages: string[] = [];
    const values: number[] = [];
    const call = client.request(
      {
        method: 'tools/call',
        params: { name: 'counter_write_value', arguments: { key: 'w', value: 1 } },
      },
      LOOSE,
      {
        timeout: 2_000,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => {
          messages.push(progress.message ?? '');
          values.push(progress.progress);
        },
      },
    );
    await heard(messages, HEARD_BEFORE_DECIDING);
    // What the connection received is seen (the next test counts on it).
    expect(progressSeen.length).toBeGreaterThanOrEqual(HEARD_BEFORE_DECIDING);
    const [pending] = await cliJson<Approval[]>(config, 'approvals', 'list');
    expect(pending?.tool).toBe('counter.write_value');
    const id = pending?.id ?? '';
    expect(messages[0]).toBe(
      `waiting for a person to approve counter.write_value (approval ${id})`,
    );
    // Values only ever increase, as MCP asks of progress.
    expect(values.every((value, index) => index === 0 || value > (values[index - 1] ?? 0))).toBe(
      true,
    );
    // The gateway's terminal says the call waits and where a person decides it.
    expect(stderr()).toContain(
      `approval ${id}: counter.write_value called by client waiter waits for a person until`,
    );
    expect(stderr()).toContain(
      `approve or deny it with "hintgate approvals approve ${id} --config`,
    );
    const approved = await runCli(['approvals', 'approve', id, '--config', config]);
    expect(approved.code).toBe(0);
    const result = await call;
    expect(result['isError']).toBeUndefined();
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
    await eventually(() =>
      stderr().includes(`approval ${id}: approved by cli:`) ? true : undefined,
    );
  });

  it('sends nothing to a client without a progress token; its timeout withdraws the approval', async () => {
    const before = progressSeen.length;
    const call = client.request(
      {
        method: 'tools/call',
        params: { name: 'counter_write_value', arguments: { key: 'w', value: 2 } },
      },
      LOOSE,
      { timeout: 2_000 },
    );
    await expect(call).rejects.toThrow(/timed out/i);
    const withdrawn = await eventually(async () => {
      const list = await cliJson<Approval[]>(config, 'approvals', 'list', '--status', 'withdrawn');
      return list.find((approval) => (approval.arguments as { value?: number }).value === 2);
    }, 20_000);
    expect(withdrawn).toMatchObject({ status: 'withdrawn', decidedBy: 'client' });
    expect(withdrawn.note).toMatch(/^the client gave up on the call \(.+\)$/);
    // Nobody can keep it waiting, so it would have waited at most 50 s: under the usual 60 s.
    expect(Date.parse(withdrawn.expiresAt) - Date.parse(withdrawn.createdAt)).toBeLessThanOrEqual(
      50_000 + 1_000,
    );
    expect(progressSeen.length).toBe(before);
    const records = await eventually(async () => {
      const audit = await cliJson<AuditRecord[]>(config, 'audit', '--decision', 'withdrawn');
      return audit.length > 0 ? audit : undefined;
    }, 20_000);
    expect(records[0]).toMatchObject({
      namespacedName: 'counter.write_value',
      decision: 'withdrawn',
      outcome: 'cancelled',
    });
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
  });

  it('keeps the client waiting on a server that says nothing for longer than its timeout', async () => {
    const messages: string[] = [];
    const result = await client.request(
      { method: 'tools/call', params: { name: 'counter_slow_read', arguments: { ms: 3_500 } } },
      LOOSE,
      {
        timeout: 2_000,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => messages.push(progress.message ?? ''),
      },
    );
    expect(result['isError']).toBeUndefined();
    expect(messages.length).toBeGreaterThan(0);
    expect(new Set(messages)).toEqual(new Set(['waiting for server "counter" to answer']));
  });
});

describe('a call waiting for approval over HTTP, two principals', () => {
  const dir = scratchDir();
  let gateway: GatewayProcess & { url: string };
  const clients: Client[] = [];

  beforeAll(async () => {
    const config = await writeFastConfig(
      dir,
      { counter: counterServer(dir) },
      {
        policy: policyFor(),
        http: { tokens: [{ name: 'alice', tokenEnv: 'ALICE_TOKEN' }] },
        access: { approvers: ['bearer'] },
      },
    );
    gateway = await startHttpGateway(config, ['--token', 'bob-token-0123456789abcdef01'], {
      ALICE_TOKEN: ALICE,
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it('says on stderr who waits and where to approve, never a token, and an approver decides', async () => {
    const client = queueClient('http-waiter');
    clients.push(client);
    await connectGatewayHttp(client, gateway.url, { authorization: `Bearer ${ALICE}` });
    const messages: string[] = [];
    const call = client.request(
      {
        method: 'tools/call',
        params: { name: 'counter_write_value', arguments: { key: 'h', value: 3 } },
      },
      LOOSE,
      {
        timeout: 2_000,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => messages.push(progress.message ?? ''),
      },
    );
    await heard(messages, HEARD_BEFORE_DECIDING);
    const line = await gateway.waitForStderr(
      /approval ([0-9a-f]{12}): counter\.write_value called by alice waits for a person until .*$/m,
    );
    const id = line[1] as string;
    const dashboard = gateway.url.replace(/\/mcp$/, '/ui');
    expect(line[0]).toContain(`approve or deny it in the dashboard at ${dashboard}/approvals or`);
    const decided = await fetch(gateway.url.replace(/\/mcp$/, `/api/approvals/${id}/approve`), {
      method: 'POST',
      headers: { authorization: 'Bearer bob-token-0123456789abcdef01' },
    });
    expect(decided.status).toBe(200);
    expect(textOf(await call)).not.toContain('denied');
    expect(gateway.stderr()).not.toContain(ALICE);
    expect(gateway.stderr()).not.toContain('bob-token-0123456789abcdef01');
  });
});
