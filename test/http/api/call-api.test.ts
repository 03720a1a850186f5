import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApiRoutes } from '../../../src/http/api/routes.js';
import type { HttpSecurity } from '../../../src/http/auth.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../helpers/store.js';

const SECURITY: HttpSecurity = {
  token: 'x'.repeat(20),
  allowedHosts: undefined,
  tokens: {},
  allowedOrigins: [],
};

describe('the /api routes of the call path', () => {
  let store: Store;
  let app: Hono;
  beforeAll(async () => {
    store = await openTestStore();
    app = new Hono();
    for (const mount of callApiRoutes({ store, stats: () => ({ cache: { hits: 3 } }) }))
      mount(app, SECURITY);
  });
  afterAll(() => store?.close());

  const queue = () =>
    store.createApproval({
      server: 's',
      tool: 's.delete_item',
      arguments: { id: 1 },
      reason: 'destructiveHint: true (declared)',
      timeoutMs: 60_000,
    });

  it('lists approvals, filters by status, and checks its parameters', async () => {
    const pending = await queue();
    const listed = (await (await app.request('/api/approvals?status=pending')).json()) as {
      approvals: { id: string }[];
    };
    expect(listed.approvals.map((approval) => approval.id)).toContain(pending.id);
    expect((await app.request('/api/approvals?status=maybe')).status).toBe(400);
    const all = (await (await app.request('/api/approvals?status=all')).json()) as {
      approvals: { id: string }[];
    };
    expect(all.approvals.map((approval) => approval.id)).toContain(pending.id);
    expect((await app.request('/api/approvals?limit=-1')).status).toBe(400);
    expect(await (await app.request(`/api/approvals/${pending.id}`)).json()).toMatchObject({
      id: pending.id,
      status: 'pending',
    });
    expect((await app.request('/api/approvals/ffffffffffff')).status).toBe(404);
  });

  it('approves and denies as the bearer, once; a second decision is a conflict', async () => {
    const first = await queue();
    const approved = await app.request(`/api/approvals/${first.id}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${String(SECURITY.token)}` },
      body: JSON.stringify({ note: 'ok', by: 'dana' }),
    });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({
      status: 'approved',
      decidedBy: 'api:bearer/dana',
      note: 'ok',
    });
    const again = await app.request(`/api/approvals/${first.id}/deny`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'CONFLICT' } });
    const second = await queue();
    const denied = await app.request(`/api/approvals/${second.id}/deny`, {
      method: 'POST',
      headers: { authorization: `Bearer ${String(SECURITY.token)}` },
    });
    expect(await denied.json()).toMatchObject({ status: 'denied', decidedBy: 'api:bearer' });
    expect(
      (await app.request(`/api/approvals/${second.id}/deny`, { method: 'POST', body: '{oops' }))
        .status,
    ).toBe(400);
    expect(
      (
        await app.request(`/api/approvals/${second.id}/deny`, {
          method: 'POST',
          body: JSON.stringify({ by: 'not a name!' }),
        })
      ).status,
    ).toBe(400);
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
    const all = (await (await app.request('/api/audit?server=s')).json()) as {
      records: { tool: string }[];
    };
    expect(all.records.map((record) => record.tool).sort()).toEqual(['s_del', 's_get']);
    const denied = (await (await app.request('/api/audit?decision=denied&limit=5')).json()) as {
      records: { tool: string }[];
    };
    expect(denied.records.map((record) => record.tool)).toEqual(['s_del']);
    expect((await app.request('/api/audit?since=not-a-date')).status).toBe(400);
    expect((await app.request('/api/audit?limit=many')).status).toBe(400);
  });

  it('serves the stats it is given', async () => {
    expect(await (await app.request('/api/stats')).json()).toEqual({ cache: { hits: 3 } });
  });
});
