import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpEndpoint } from '../../../src/front/http-endpoint.js';
import { AccessControl, PrincipalDirectory } from '../../../src/gateway/access.js';
import { accessSchema } from '../../../src/config/access-schema.js';
import { callApiRoutes } from '../../../src/http/api/routes.js';
import { createHttpApp } from '../../../src/http/app.js';
import type { NamedToken } from '../../../src/http/auth.js';
import { httpSecurity } from '../../../src/http/auth.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../helpers/store.js';

const AGENT = 'agent-token-0123456789';
const DANA = 'dana-token-0123456789';
const TOKENS: NamedToken[] = [
  { principal: { name: 'agent', groups: [] }, token: AGENT },
  { principal: { name: 'dana', groups: ['ops'] }, token: DANA },
];
const as = (token: string | undefined, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: {
    host: '127.0.0.1',
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  },
});
/** The /api routes do not reach the MCP endpoint. */
const NO_MCP: McpEndpoint = {
  fetch: () => Promise.reject(new Error('not used')),
  sessionCount: 0,
  expireIdle: () => Promise.resolve(0),
  close: () => Promise.resolve(),
};

const access = new AccessControl(
  accessSchema.parse({ approvers: ['group:ops'] }),
  new PrincipalDirectory(TOKENS.map((entry) => entry.principal)),
);
const securityWith = (authDisabled: boolean) =>
  httpSecurity({
    host: '127.0.0.1',
    token: undefined,
    tokens: TOKENS,
    authDisabled,
    allowedHosts: [],
    allowedOrigins: [],
  });
const SECURITY = securityWith(false);

/** The front's app with the call-path routes, auth on or off. */
function appWith(store: Store, authDisabled: boolean): Hono {
  return createHttpApp({
    endpoint: NO_MCP,
    security: securityWith(authDisabled),
    routes: callApiRoutes({ store, stats: () => ({ cache: { hits: 3 } }), approvers: access }),
  });
}

describe('the /api routes of the call path', () => {
  let store: Store;
  let app: Hono;
  let open: Hono;
  beforeAll(async () => {
    store = await openTestStore();
    app = appWith(store, false);
    open = appWith(store, true);
  });
  afterAll(() => store?.close());

  const queue = (requestedBy: string | undefined = 'agent') =>
    store.createApproval({
      server: 's',
      tool: 's.delete_item',
      arguments: { id: 1 },
      reason: 'destructiveHint: true (declared)',
      timeoutMs: 60_000,
      ...(requestedBy === undefined ? {} : { requestedBy }),
    });
  const url = (path: string) => `http://127.0.0.1${path}`;

  it('lists approvals, filters by status, and checks its parameters', async () => {
    const pending = await queue();
    const listed = (await (
      await app.request(url('/api/approvals?status=pending'), as(AGENT))
    ).json()) as {
      approvals: { id: string; requestedBy?: string }[];
    };
    expect(listed.approvals.find((approval) => approval.id === pending.id)).toMatchObject({
      requestedBy: 'agent',
    });
    expect((await app.request(url('/api/approvals?status=maybe'), as(AGENT))).status).toBe(400);
    expect((await app.request(url('/api/approvals?limit=-1'), as(AGENT))).status).toBe(400);
    expect(
      await (await app.request(url(`/api/approvals/${pending.id}`), as(AGENT))).json(),
    ).toMatchObject({ id: pending.id, status: 'pending' });
    expect((await app.request(url('/api/approvals/ffffffffffff'), as(AGENT))).status).toBe(404);
    expect((await app.request(url('/api/approvals'), as(undefined))).status).toBe(401);
  });

  it('lets an approver decide, once; a second decision is a conflict', async () => {
    const first = await queue();
    const approved = await app.request(
      url(`/api/approvals/${first.id}/approve`),
      as(DANA, { method: 'POST', body: JSON.stringify({ note: 'ok', by: 'desk-2' }) }),
    );
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({
      status: 'approved',
      decidedBy: 'api:dana/desk-2',
      requestedBy: 'agent',
      note: 'ok',
    });
    const again = await app.request(
      url(`/api/approvals/${first.id}/deny`),
      as(DANA, { method: 'POST' }),
    );
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'CONFLICT' } });
    const second = await queue();
    const denied = await app.request(
      url(`/api/approvals/${second.id}/deny`),
      as(DANA, { method: 'POST' }),
    );
    expect(await denied.json()).toMatchObject({ status: 'denied', decidedBy: 'api:dana' });
    expect(
      (
        await app.request(
          url(`/api/approvals/${second.id}/deny`),
          as(DANA, { method: 'POST', body: '{oops' }),
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await app.request(
          url(`/api/approvals/${second.id}/deny`),
          as(DANA, { method: 'POST', body: JSON.stringify({ by: 'not a name!' }) }),
        )
      ).status,
    ).toBe(400);
  });

  it('refuses the caller approving its own call, and anyone without the approver role', async () => {
    const pending = await queue('agent');
    const itself = await app.request(
      url(`/api/approvals/${pending.id}/approve`),
      as(AGENT, { method: 'POST', body: JSON.stringify({ by: 'the-agent-itself' }) }),
    );
    expect(itself.status).toBe(403);
    expect(await itself.json()).toMatchObject({
      error: {
        code: 'FORBIDDEN',
        message: 'agent does not have the approver role (access.approvers in config)',
      },
    });
    // An approver that made the call may not approve it either.
    const own = await queue('dana');
    const dana = await app.request(
      url(`/api/approvals/${own.id}/approve`),
      as(DANA, { method: 'POST' }),
    );
    expect(dana.status).toBe(403);
    expect(await dana.json()).toMatchObject({
      error: { message: expect.stringContaining('dana made this call') },
    });
    expect((await store.getApproval(pending.id))?.status).toBe('pending');
    expect((await store.getApproval(own.id))?.status).toBe('pending');
  });

  it('without auth on the front, refuses anonymous decisions but takes an approver token', async () => {
    const pending = await queue(undefined);
    const anonymous = await open.request(
      url(`/api/approvals/${pending.id}/approve`),
      as(undefined, { method: 'POST' }),
    );
    expect(anonymous.status).toBe(403);
    expect(await anonymous.json()).toMatchObject({
      error: { message: expect.stringContaining("needs an approver's bearer token") },
    });
    // Reading needs no token on a loopback front with auth off; a wrong token is still refused.
    expect((await open.request(url('/api/approvals'), as(undefined))).status).toBe(200);
    expect((await open.request(url('/api/approvals'), as('wrong-token-0123456789'))).status).toBe(
      401,
    );
    const approved = await open.request(
      url(`/api/approvals/${pending.id}/approve`),
      as(DANA, { method: 'POST' }),
    );
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ decidedBy: 'api:dana' });
  });

  it('queries the audit log with filters', async () => {
    await store.appendAudit([
      { tool: 's_get', namespacedName: 's.get', server: 's', decision: 'allow', outcome: 'ok' },
      {
        tool: 's_del',
        namespacedName: 's.del',
        server: 's',
        decision: 'denied',
        outcome: 'denied',
      },
    ]);
    const all = (await (await app.request(url('/api/audit?server=s'), as(AGENT))).json()) as {
      records: { tool: string }[];
    };
    expect(all.records.map((record) => record.tool).sort()).toEqual(['s_del', 's_get']);
    const denied = (await (
      await app.request(url('/api/audit?decision=denied&limit=5'), as(AGENT))
    ).json()) as {
      records: { tool: string }[];
    };
    expect(denied.records.map((record) => record.tool)).toEqual(['s_del']);
    expect((await app.request(url('/api/audit?since=not-a-date'), as(AGENT))).status).toBe(400);
    expect((await app.request(url('/api/audit?limit=many'), as(AGENT))).status).toBe(400);
    expect((await app.request(url('/api/audit?limit=0'), as(AGENT))).status).toBe(400);
  });

  it('takes a time ago for since and until, as the CLI does', async () => {
    const recent = (await (
      await app.request(url('/api/audit?server=s&since=10m'), as(AGENT))
    ).json()) as {
      records: unknown[];
    };
    expect(recent.records.length).toBe(2);
    const older = (await (
      await app.request(url('/api/audit?server=s&until=10m'), as(AGENT))
    ).json()) as {
      records: unknown[];
    };
    expect(older.records).toEqual([]);
    const refused = await app.request(url('/api/audit?since=10 minutes'), as(AGENT));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('a time ago (30s, 10m, 2h, 7d)');
  });

  it('lists pending approvals by default, as the CLI does, and every one with status=all', async () => {
    const decided = await queue();
    await store.decideApproval(decided.id, { status: 'denied', by: 'test' });
    const pending = await queue();
    const ids = async (query: string) =>
      (
        (await (await app.request(url(`/api/approvals${query}`), as(AGENT))).json()) as {
          approvals: { id: string; status: string }[];
        }
      ).approvals;
    const byDefault = await ids('');
    expect(byDefault.map((approval) => approval.id)).toContain(pending.id);
    expect(byDefault.every((approval) => approval.status === 'pending')).toBe(true);
    const all = await ids('?status=all');
    expect(all.map((approval) => approval.id)).toEqual(
      expect.arrayContaining([pending.id, decided.id]),
    );
  });

  it('answers /health (liveness) and /health/ready (readiness) from the servers and the store', async () => {
    const states = [
      { name: 'a', state: 'up' },
      { name: 'b', state: 'down', reason: "stderr: Error: Cannot find module 'x'" },
    ];
    const health = new Hono();
    for (const mount of callApiRoutes({
      store,
      stats: () => ({}),
      approvers: access,
      servers: () => states,
    }))
      mount(health, SECURITY);
    const alive = await health.request('/health');
    expect(alive.status).toBe(200);
    expect(await alive.json()).toMatchObject({
      status: 'alive',
      ready: true,
      store: { ok: true },
      servers: {
        up: 1,
        total: 2,
        list: [{ name: 'a' }, { name: 'b', reason: expect.any(String) }],
      },
    });
    expect((await health.request('/health/ready')).status).toBe(200);
    states[0] = { name: 'a', state: 'starting' };
    const notReady = await health.request('/health/ready');
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ ready: false, servers: { up: 0 } });
    // A store that no longer answers: alive, not ready.
    const closed = await openTestStore();
    await closed.close();
    const withoutStore = new Hono();
    for (const mount of callApiRoutes({ store: closed, stats: () => ({}), approvers: access }))
      mount(withoutStore, SECURITY);
    expect((await withoutStore.request('/health')).status).toBe(200);
    const down = await withoutStore.request('/health/ready');
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ store: { ok: false, error: expect.any(String) } });
  });

  it('serves the stats it is given', async () => {
    expect(await (await app.request(url('/api/stats'), as(AGENT))).json()).toEqual({
      cache: { hits: 3 },
    });
  });
});
