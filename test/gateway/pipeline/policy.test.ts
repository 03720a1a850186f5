import { describe, expect, it } from 'vitest';
import { policy } from '../../../src/gateway/pipeline/policy.js';
import { CALL_META_KEY } from '../../../src/gateway/call-results.js';
import { TOOLS, fakeNext, settingsOf, toolContext } from './step-helpers.js';

describe('policy', () => {
  it('allows a read-only call and goes on', async () => {
    const next = fakeNext();
    const ctx = toolContext(TOOLS.read);
    await policy(settingsOf())(ctx, next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(ctx.decision).toMatchObject({ kind: 'allow' });
    expect(ctx.trace.decision).toBe('allow');
  });

  it('marks a destructive call for confirmation, naming the hint and its source, and goes on', async () => {
    const next = fakeNext();
    const ctx = toolContext(TOOLS.destructive);
    await policy(settingsOf())(ctx, next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(ctx.decision).toMatchObject({
      kind: 'confirm',
      channel: 'any',
      reason: expect.stringContaining('destructiveHint: true (declared)'),
    });
  });

  it('treats an unannotated tool as possibly destructive', async () => {
    const ctx = toolContext(TOOLS.unannotated);
    await policy(settingsOf())(ctx, fakeNext());
    expect(ctx.decision?.kind).toBe('confirm');
  });

  it('never calls next for a denied call and answers with the configured message', async () => {
    const next = fakeNext();
    const ctx = toolContext(TOOLS.destructive);
    const result = await policy(
      settingsOf({ tools: { 's.delete_*': { deny: true, message: 'No {tool} here.' } } }),
    )(ctx, next);
    expect(next).not.toHaveBeenCalled();
    expect(result).toEqual({
      content: [{ type: 'text', text: 'No s_delete_item here.' }],
      isError: true,
      _meta: { [CALL_META_KEY]: { decision: 'deny' } },
    });
    expect(ctx.trace).toMatchObject({ decision: 'deny', outcome: 'denied', stoppedBy: 'policy' });
  });

  it('layers global, server, pattern and exact-name rules, later winning', async () => {
    const table = settingsOf({
      confirm: 'never',
      servers: { s: { confirm: 'always', autoApproveReadOnly: false } },
      tools: { 's.get_*': { requireApprovalQueue: true }, 's.get_item': { timeoutMs: 1234 } },
    });
    const ctx = toolContext(TOOLS.read);
    await policy(table)(ctx, fakeNext());
    expect(ctx.decision).toMatchObject({ kind: 'confirm', channel: 'queue' });
    expect(ctx.timeoutMs).toBe(1234);
    const other = toolContext(TOOLS.destructive);
    await policy(table)(other, fakeNext());
    expect(other.decision).toMatchObject({ kind: 'confirm', channel: 'any' });
    expect(other.timeoutMs).toBeUndefined();
  });

  it('lets config turn confirmation off or on for every write', async () => {
    const never = toolContext(TOOLS.destructive);
    await policy(settingsOf({ confirm: 'never' }))(never, fakeNext());
    expect(never.decision?.kind).toBe('allow');
    const writes = toolContext(TOOLS.write);
    await policy(settingsOf({ confirm: 'writes' }))(writes, fakeNext());
    expect(writes.decision?.kind).toBe('confirm');
  });

  it('decides once per annotations object', async () => {
    const step = policy(settingsOf());
    const first = toolContext(TOOLS.destructive);
    await step(first, fakeNext());
    const second = toolContext(TOOLS.destructive);
    second.annotations = first.annotations;
    await step(second, fakeNext());
    expect(second.decision).toBe(first.decision);
  });
});
