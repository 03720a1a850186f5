import { describe, expect, it, vi } from 'vitest';
import { AuditLog } from '../../../src/gateway/audit-log.js';
import { auditRecordOf } from '../../../src/gateway/audit-record.js';
import type { FinishedCall } from '../../../src/gateway/pipeline/audit.js';
import { audit, summaryOf } from '../../../src/gateway/pipeline/audit.js';
import type { CallToolResult } from '../../../src/gateway/pipeline/context.js';
import { DownstreamError } from '../../../src/mcp/rpc-errors.js';
import type { AuditRecordInput, AuditWriter } from '../../../src/store/store.js';
import { OK, TOOLS, fakeNext, toolContext } from './step-helpers.js';

function recorder() {
  const calls: FinishedCall[] = [];
  return { calls, record: (call: FinishedCall) => void calls.push(call) };
}

function fakeWriter(): AuditWriter & { records: AuditRecordInput[] } {
  const records: AuditRecordInput[] = [];
  return {
    records,
    write: (record) => void records.push(record),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
    dropped: 0,
  };
}

const omit = () => 'omit' as const;

describe('audit', () => {
  it('records answered, refused and failed calls, passing results and errors through', async () => {
    const sink = recorder();
    const step = audit(sink, () => 5_000);
    const ctx = toolContext(TOOLS.read);
    expect(await step(ctx, fakeNext())).toEqual(OK);
    const failure = new DownstreamError('DOWNSTREAM_TIMEOUT', 's', 'too slow');
    await expect(step(toolContext(TOOLS.read), () => Promise.reject(failure))).rejects.toBe(
      failure,
    );
    expect(sink.calls).toHaveLength(2);
    // The result is not kept with the call, only what its record needs.
    expect(sink.calls[0]).toEqual({
      ctx,
      endedAt: 5_000,
      result: { isError: false, inputRequired: false },
      error: undefined,
    });
    expect(sink.calls[1]).toMatchObject({ result: undefined, error: failure });
  });
});

describe('auditRecordOf', () => {
  it('keeps who, what, the annotations with their sources, the decision and the outcome', () => {
    const ctx = toolContext(TOOLS.destructive, {
      args: { id: 7, auth: { password: 'p', user: 'u' }, list: [{ apiKey: 'k', keyword: 'w' }] },
      session: { clientInfo: { name: 'desk', version: '1' } },
    });
    Object.assign(ctx.trace, {
      decision: 'approved',
      approver: 'cli:alice',
      replica: 's#0',
      retries: 0,
      outcome: 'ok',
    });
    const record = auditRecordOf(
      { ctx, endedAt: ctx.trace.startedAt + 42, result: summaryOf(ctx, OK), error: undefined },
      omit,
    );
    expect(record).toMatchObject({
      sessionId: 'session-1',
      client: 'desk',
      tool: 's_delete_item',
      namespacedName: 's.delete_item',
      server: 's',
      replica: 's#0',
      decision: 'approved',
      approver: 'cli:alice',
      durationMs: 42,
      outcome: 'ok',
      retries: 0,
      cacheHit: false,
      dynamic: false,
      annotations: { destructiveHint: true, readOnlyHint: false },
      sources: { destructiveHint: 'declared', idempotentHint: 'inferred' },
      arguments: { id: 7, auth: '[redacted]', list: [{ apiKey: '[redacted]', keyword: 'w' }] },
    });
    expect(record.time).toEqual(new Date(ctx.trace.startedAt));
  });

  it('keeps the arguments of restricted tools only as config says', () => {
    const restricted = {
      name: 'get_salary',
      annotations: { readOnlyHint: true, securityLevel: 'restricted' },
    };
    const call = (): FinishedCall => {
      const ctx = toolContext(restricted, { args: { employee: 'bob', token: 't' } });
      return { ctx, endedAt: Date.now(), result: summaryOf(ctx, OK), error: undefined };
    };
    expect(auditRecordOf(call(), omit).arguments).toBe('[redacted]');
    expect(auditRecordOf(call(), () => 'redacted').arguments).toEqual({
      employee: 'bob',
      token: '[redacted]',
    });
    expect(auditRecordOf(call(), () => 'full').arguments).toEqual({ employee: 'bob', token: 't' });
    const required = { name: 'get_x', annotations: { readOnlyHint: true, auditRequired: true } };
    expect(
      auditRecordOf({ ...call(), ctx: toolContext(required, { args: { a: 1 } }) }, omit).arguments,
    ).toBe('[redacted]');
  });

  it('names how a call ended', () => {
    const ended = (
      ending: { result?: CallToolResult; error?: unknown },
      trace: Record<string, unknown> = {},
    ) => {
      const ctx = toolContext(TOOLS.read);
      Object.assign(ctx.trace, trace);
      const result = ending.error === undefined ? summaryOf(ctx, ending.result ?? OK) : undefined;
      return auditRecordOf({ ctx, endedAt: Date.now(), result, error: ending.error }, omit);
    };
    expect(ended({ error: new DownstreamError('DOWNSTREAM_TIMEOUT', 's', 'slow') })).toMatchObject({
      outcome: 'timeout',
      error: 'slow',
    });
    expect(ended({ error: new Error('boom') }).outcome).toBe('error');
    expect(ended({ result: { content: [], isError: true } }).outcome).toBe('tool-error');
    expect(ended({ result: { resultType: 'input_required', inputRequests: {} } }).outcome).toBe(
      'input-required',
    );
    // A tool's own error text is not a refusal of hintgate's: it is not kept.
    expect(
      ended({ result: { content: [{ type: 'text', text: 'no such row' }], isError: true } }).error,
    ).toBeUndefined();
    expect(
      ended(
        { result: { content: [{ type: 'text', text: 'Rate limit: …' }], isError: true } },
        { stoppedBy: 'rate-limit', outcome: 'denied' },
      ),
    ).toMatchObject({ outcome: 'rate-limited', error: 'Rate limit: …' });
    expect(ended({}, { cacheHit: true, outcome: 'ok' })).toMatchObject({
      cacheHit: true,
      outcome: 'ok',
    });
    const controller = new AbortController();
    controller.abort();
    const cancelled = toolContext(TOOLS.read, { signal: controller.signal });
    expect(
      auditRecordOf({ ctx: cancelled, endedAt: 0, result: undefined, error: new Error('x') }, omit)
        .outcome,
    ).toBe('cancelled');
  });
});

describe('AuditLog', () => {
  it('builds and writes records later, never while the call is answered', async () => {
    vi.useFakeTimers();
    try {
      const writer = fakeWriter();
      const log = new AuditLog(writer, { restrictedArguments: omit, delayMs: 50 });
      const step = audit(log);
      await step(toolContext(TOOLS.read, { args: { password: 'p' } }), fakeNext());
      expect(writer.records).toHaveLength(0);
      vi.advanceTimersByTime(60);
      expect(writer.records).toHaveLength(1);
      expect(writer.records[0]).toMatchObject({
        outcome: 'ok',
        arguments: { password: '[redacted]' },
      });
      await step(toolContext(TOOLS.read), fakeNext());
      await log.flush();
      expect(writer.records).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
