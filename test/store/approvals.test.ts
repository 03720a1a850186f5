import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalInput } from '../../src/store/types.js';
import { STORE_KINDS, sharedStore } from './helpers/harness.js';

const CALL: ApprovalInput = {
  server: 'github',
  tool: 'github.delete_repo',
  sessionId: 'session-1',
  client: 'claude-desktop',
  arguments: { repo: 'acme/app', token: '[redacted]' },
  annotations: { destructiveHint: true, readOnlyHint: false },
  reason: 'destructive (declared by the server)',
  timeoutMs: 120_000,
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STORE_KINDS)('%s store: approvals', (kind) => {
  const shared = sharedStore(kind);
  beforeAll(shared.setup);
  afterAll(shared.teardown);

  it('queues a call with NUL in its arguments, kept escaped', async () => {
    const store = shared.store();
    const approval = await store.createApproval({
      ...CALL,
      arguments: { text: 'evil\u0000', path: '\udfff' },
      reason: 'why\u0000',
    });
    expect(approval.arguments).toEqual({ text: 'evil\\u0000', path: '\\udfff' });
    expect(approval.reason).toBe('why\\u0000');
    const decided = await store.decideApproval(approval.id, {
      status: 'approved',
      by: 'alice',
      note: 'n\u0000',
    });
    expect(decided.note).toBe('n\\u0000');
  });

  it('queues a call as pending with its details and expiry', async () => {
    const store = shared.store();
    const approval = await store.createApproval(CALL);
    expect(approval).toMatchObject({
      status: 'pending',
      server: 'github',
      tool: 'github.delete_repo',
      sessionId: 'session-1',
      client: 'claude-desktop',
      arguments: CALL.arguments,
      annotations: CALL.annotations,
      reason: CALL.reason,
    });
    expect(approval.id).toMatch(/^[0-9a-f]{12}$/);
    const wait = Date.parse(approval.expiresAt) - Date.parse(approval.createdAt);
    expect(wait).toBe(120_000);
    expect(approval.decidedAt).toBeUndefined();
    expect(await store.getApproval(approval.id)).toEqual(approval);
    expect(await store.getApproval('000000000000')).toBeUndefined();
  });

  it('approves once; a second decision fails with CONFLICT naming the status', async () => {
    const store = shared.store();
    const { id } = await store.createApproval(CALL);
    const approved = await store.decideApproval(id, {
      status: 'approved',
      by: 'alice',
      note: 'ok',
    });
    expect(approved).toMatchObject({ id, status: 'approved', decidedBy: 'alice', note: 'ok' });
    expect(approved.decidedAt).toBeDefined();
    await expect(store.decideApproval(id, { status: 'denied', by: 'bob' })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { id, status: 'approved' },
      message: expect.stringMatching(
        new RegExp(
          `^approval ${id} is already approved by alice \\(.+\\); it can no longer be denied$`,
        ),
      ),
    });
    expect((await store.getApproval(id))?.status).toBe('approved');
  });

  it('lets exactly one of two simultaneous deciders win', async () => {
    const store = shared.store();
    const { id } = await store.createApproval(CALL);
    const results = await Promise.allSettled([
      store.decideApproval(id, { status: 'approved', by: 'alice' }),
      store.decideApproval(id, { status: 'denied', by: 'bob' }),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((result) => result.status === 'rejected');
    expect(rejected?.reason).toMatchObject({ code: 'CONFLICT' });
  });

  it('expires an overdue approval: it reads as expired and cannot be decided', async () => {
    const store = shared.store();
    const { id } = await store.createApproval({ ...CALL, timeoutMs: 1 });
    await sleep(20);
    expect((await store.getApproval(id))?.status).toBe('expired');
    await expect(
      store.decideApproval(id, { status: 'approved', by: 'alice' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { status: 'expired' },
    });
    const stored = await store.getApproval(id);
    expect(stored?.decidedAt).toBeDefined();
    expect(stored?.decidedBy).toBeUndefined();
  });

  it('marks every overdue approval expired in one sweep', async () => {
    const store = shared.store();
    const overdue = await store.createApproval({ ...CALL, timeoutMs: 1 });
    const waiting = await store.createApproval(CALL);
    await sleep(20);
    const expired = await store.expireApprovals();
    expect(expired.map((approval) => approval.id)).toContain(overdue.id);
    expect(expired.every((approval) => approval.status === 'expired')).toBe(true);
    expect(expired.map((approval) => approval.id)).not.toContain(waiting.id);
    expect(await store.expireApprovals()).toEqual([]);
  });

  it('lists by status, newest first', async () => {
    const store = shared.store();
    const first = await store.createApproval(CALL);
    const second = await store.createApproval(CALL);
    const denied = await store.createApproval(CALL);
    await store.decideApproval(denied.id, { status: 'denied', by: 'carol' });
    const pending = (await store.listApprovals({ status: 'pending' })).map((a) => a.id);
    expect(pending.indexOf(second.id)).toBeLessThan(pending.indexOf(first.id));
    expect(pending).not.toContain(denied.id);
    const deniedList = await store.listApprovals({ status: 'denied' });
    expect(deniedList.map((a) => a.id)).toContain(denied.id);
    expect(deniedList.every((a) => a.status === 'denied')).toBe(true);
    expect(await store.listApprovals({ limit: 2 })).toHaveLength(2);
  });

  it('answers NOT_FOUND for an unknown id and INPUT_INVALID for bad input', async () => {
    const store = shared.store();
    await expect(
      store.decideApproval('ffffffffffff', { status: 'approved', by: 'alice' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'approval ffffffffffff does not exist' });
    await expect(store.createApproval({ ...CALL, timeoutMs: 0, server: '' })).rejects.toMatchObject(
      {
        code: 'INPUT_INVALID',
        details: { issues: [{ path: 'server' }, { path: 'timeoutMs' }] },
      },
    );
    await expect(
      store.decideApproval('ffffffffffff', { status: 'maybe' as never, by: '' }),
    ).rejects.toMatchObject({ code: 'INPUT_INVALID' });
  });
});
