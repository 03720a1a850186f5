import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CALL_META_KEY } from '../../../src/gateway/call-results.js';
import { CONFIRM_INPUT_KEY } from '../../../src/gateway/confirm/question.js';
import { RequestStateSigner } from '../../../src/gateway/confirm/request-state.js';
import { compose } from '../../../src/gateway/pipeline/compose.js';
import { confirm } from '../../../src/gateway/pipeline/confirm.js';
import type { CallContext } from '../../../src/gateway/pipeline/context.js';
import { policy } from '../../../src/gateway/pipeline/policy.js';
import type { ToolSettingsTable } from '../../../src/gateway/tool-settings.js';
import type { ServerRequestRelay } from '../../../src/mcp/relay.js';
import type { JsonObject } from '../../../src/mcp/json-rpc.js';
import type { Store } from '../../../src/store/store.js';
import type { StoreKind } from '../../../src/store/types.js';
import type { TestStorage } from '../../helpers/store.js';
import { testStorage } from '../../helpers/store.js';
import type { ToolContextOptions } from './step-helpers.js';
import { OK, TOOLS, fakeNext, settingsOf, toolContext } from './step-helpers.js';

const LEGACY = {
  era: 'legacy' as const,
  clientInfo: { name: 'desk', version: '1' },
  clientCapabilities: { elicitation: {} },
};
const MODERN = {
  era: 'modern' as const,
  front: 'http' as const,
  id: 'http',
  principal: 'bearer',
  clientInfo: { name: 'agent', version: '2' },
  clientCapabilities: { elicitation: { form: {} } },
};
const HEADLESS = { era: 'modern' as const, clientCapabilities: {} };

/** `policy.waiting` as config fills it in, with progress every 50 ms. */
const WAITING = { progressMs: 50, approvalTimeoutMs: 50_000, keptAliveApprovalTimeoutMs: 300_000 };

/** policy then confirm then `next`: the way the gateway runs them. */
function pipeline(
  settings: ToolSettingsTable,
  next: ReturnType<typeof fakeNext>,
  store?: Store,
  signer = new RequestStateSigner(),
  log?: (line: string) => void,
) {
  return compose([
    policy(settings),
    confirm({ settings, store, signer, pollMs: 50, waiting: WAITING, ...(log ? { log } : {}) }),
    () => next(),
  ]);
}

/** A relay answering every elicitation with `answer`, recording what it was asked. */
function relayAnswering(answer: JsonObject | Error) {
  const asked: { method: string; params: JsonObject }[] = [];
  const relay: ServerRequestRelay = (request) => {
    asked.push(request);
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  };
  return { relay, asked };
}

const call = (tool: Record<string, unknown>, options: ToolContextOptions = {}): CallContext =>
  toolContext(tool, { args: { id: 7, token: 's3cret' }, ...options });

describe('confirm: asking a 2025 client (elicitation)', () => {
  it('goes straight on when no confirmation is needed, asking nobody', async () => {
    const next = fakeNext();
    const { relay, asked } = relayAnswering({ action: 'decline' });
    await pipeline(settingsOf(), next)(call(TOOLS.read, { session: LEGACY, relay }));
    expect(next).toHaveBeenCalledTimes(1);
    expect(asked).toEqual([]);
  });

  it('asks with the tool, the arguments (secrets redacted) and why, and runs the call when accepted', async () => {
    const next = fakeNext();
    const { relay, asked } = relayAnswering({ action: 'accept', content: {} });
    const ctx = call(TOOLS.destructive, { session: LEGACY, relay });
    expect(await pipeline(settingsOf(), next)(ctx)).toEqual(OK);
    expect(next).toHaveBeenCalledTimes(1);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.method).toBe('elicitation/create');
    const message = String(asked[0]?.params['message']);
    expect(message).toContain('Tool: s.delete_item');
    expect(message).toContain('"id":7');
    expect(message).toContain('"token":"[redacted]"');
    expect(message).not.toContain('s3cret');
    expect(message).toContain('destructiveHint: true (declared)');
    expect(asked[0]?.params).toMatchObject({ requestedSchema: { type: 'object' } });
    expect(ctx.trace).toMatchObject({ decision: 'approved', approver: 'elicitation:desk' });
  });

  it.each([
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
    [
      'accept with approve unchecked',
      { action: 'accept', content: { approve: false } },
      'declined',
    ],
  ])('never runs the call on %s', async (_label, answer, decision) => {
    const next = fakeNext();
    const ctx = call(TOOLS.destructive, { session: LEGACY, ...relayAnswering(answer) });
    const result = await pipeline(settingsOf(), next)(ctx);
    expect(next).not.toHaveBeenCalled();
    expect(result).toMatchObject({ isError: true, _meta: { [CALL_META_KEY]: { decision } } });
    expect(ctx.trace).toMatchObject({ decision, outcome: 'denied', stoppedBy: 'confirm' });
  });

  it('uses the configured message for a refusal', async () => {
    const next = fakeNext();
    const ctx = call(TOOLS.destructive, {
      session: LEGACY,
      ...relayAnswering({ action: 'decline' }),
    });
    const result = await pipeline(
      settingsOf({ servers: { s: { message: 'Ask Ops before touching {tool}.' } } }),
      next,
    )(ctx);
    expect(result['content']).toEqual([
      { type: 'text', text: 'Ask Ops before touching s_delete_item.' },
    ]);
  });

  it('refuses when the client cannot be asked and there is no queue', async () => {
    const next = fakeNext();
    for (const ctx of [
      call(TOOLS.destructive, { session: { ...LEGACY, clientCapabilities: {} } }),
      call(TOOLS.destructive, { session: LEGACY, ...relayAnswering(new Error('no handler')) }),
      call(TOOLS.destructive, { session: HEADLESS }),
    ]) {
      const result = await pipeline(settingsOf(), next)(ctx);
      expect(result).toMatchObject({
        isError: true,
        _meta: { [CALL_META_KEY]: { decision: 'unavailable' } },
      });
      expect(JSON.stringify(result['content'])).toContain('needs a person');
    }
    expect(next).not.toHaveBeenCalled();
  });

  it('does not ask the client when config turns elicitation off', async () => {
    const { relay, asked } = relayAnswering({ action: 'accept' });
    const next = fakeNext();
    await pipeline(
      settingsOf({ elicitation: false }),
      next,
    )(call(TOOLS.destructive, { session: LEGACY, relay }));
    expect(asked).toEqual([]);
    expect(next).not.toHaveBeenCalled();
  });
});

describe('confirm: input_required for a 2026 client', () => {
  const ask = async (signer: RequestStateSigner, next = fakeNext()) => {
    const ctx = call(TOOLS.destructive, { session: MODERN });
    const result = await pipeline(settingsOf(), next, undefined, signer)(ctx);
    return { ctx, result, next };
  };
  const retry = (
    state: unknown,
    answer: JsonObject | undefined,
    args: Record<string, unknown> = { id: 7, token: 's3cret' },
    extra: JsonObject = {},
  ) =>
    toolContext(TOOLS.destructive, {
      args,
      session: MODERN,
      extra: {
        requestState: state,
        ...(answer === undefined
          ? {}
          : { inputResponses: { [CONFIRM_INPUT_KEY]: answer, ...extra } }),
      },
    });

  it('answers input_required with the question and a signed state, without running the call', async () => {
    const { ctx, result, next } = await ask(new RequestStateSigner());
    expect(next).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        [CONFIRM_INPUT_KEY]: {
          method: 'elicitation/create',
          params: { mode: 'form', message: expect.stringContaining('s.delete_item') },
        },
      },
      requestState: expect.stringMatching(/^hg\.v1\./),
    });
    expect(ctx.trace).toMatchObject({ decision: 'input-required', outcome: 'input-required' });
  });

  it('runs the call on the retry that accepts, without its own retry fields', async () => {
    const signer = new RequestStateSigner();
    const { result } = await ask(signer);
    const next = fakeNext();
    const ctx = retry(result['requestState'], { action: 'accept', content: {} }, undefined, {
      server_key: { action: 'accept' },
    });
    await pipeline(settingsOf(), next, undefined, signer)(ctx);
    expect(next).toHaveBeenCalledTimes(1);
    expect(ctx.params['requestState']).toBeUndefined();
    expect(ctx.params['inputResponses']).toEqual({ server_key: { action: 'accept' } });
    expect(ctx.trace).toMatchObject({ decision: 'approved', approver: 'elicitation:agent' });
  });

  it('never runs the call on a retry that declines', async () => {
    const signer = new RequestStateSigner();
    const { result } = await ask(signer);
    const next = fakeNext();
    const answer = await pipeline(
      settingsOf(),
      next,
      undefined,
      signer,
    )(retry(result['requestState'], { action: 'decline' }));
    expect(next).not.toHaveBeenCalled();
    expect(answer).toMatchObject({ isError: true });
  });

  it('refuses a forged, replayed, foreign or misapplied state with -32602', async () => {
    const signer = new RequestStateSigner();
    const { result } = await ask(signer);
    const state = String(result['requestState']);
    const next = fakeNext();
    const run = (ctx: CallContext) => pipeline(settingsOf(), next, undefined, signer)(ctx);
    const accept = { action: 'accept', content: {} };
    // Another signer (another gateway, or an attacker's key) signed it.
    const { result: other } = await ask(new RequestStateSigner());
    await expect(run(retry(other['requestState'], accept))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: expect.stringContaining('signature does not match'),
    });
    // The payload altered: a flipped character in the body.
    const body = state.split('.');
    body[2] = Buffer.from(
      Buffer.from(body[2] ?? '', 'base64url')
        .toString('utf8')
        .replace('"k":"ask"', '"k":"approved"'),
    ).toString('base64url');
    await expect(run(retry(body.join('.'), accept))).rejects.toMatchObject({
      message: expect.stringContaining('signature does not match'),
    });
    await expect(run(retry('v1.abc.def', accept))).rejects.toMatchObject({
      message: expect.stringContaining('not issued by this gateway'),
    });
    await expect(run(retry(state, accept, { id: 8, token: 's3cret' }))).rejects.toMatchObject({
      message: expect.stringContaining('issued for another call'),
    });
    await run(retry(state, accept));
    expect(next).toHaveBeenCalledTimes(1);
    await expect(run(retry(state, accept))).rejects.toMatchObject({
      message: expect.stringContaining('already used'),
    });
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('refuses an expired state', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const signer = new RequestStateSigner();
      const { result } = await ask(signer);
      // A 2026 client answers in a request of its own: the state lives the longer timeout.
      vi.setSystemTime(Date.now() + 305_000);
      await expect(
        pipeline(
          settingsOf(),
          fakeNext(),
          undefined,
          signer,
        )(retry(result['requestState'], { action: 'accept' })),
      ).rejects.toMatchObject({ message: expect.stringContaining('has expired') });
    } finally {
      vi.useRealTimers();
    }
  });

  it("carries the server's own input request state inside its own, asking nothing again", async () => {
    const signer = new RequestStateSigner();
    const { result } = await ask(signer);
    const asking = fakeNext({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Sure?' } } },
      requestState: 'server-round-1',
    });
    const second = await pipeline(
      settingsOf(),
      asking,
      undefined,
      signer,
    )(retry(result['requestState'], { action: 'accept' }));
    expect(second).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create' } },
      requestState: expect.stringMatching(/^hg\./),
    });
    const last = fakeNext();
    const ctx = toolContext(TOOLS.destructive, {
      args: { id: 7, token: 's3cret' },
      session: MODERN,
      extra: {
        requestState: second['requestState'],
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      },
    });
    await pipeline(settingsOf(), last, undefined, signer)(ctx);
    expect(last).toHaveBeenCalledTimes(1);
    expect(ctx.params['requestState']).toBe('server-round-1');
    expect(ctx.params['inputResponses']).toEqual({
      confirm: { action: 'accept', content: { ok: true } },
    });
  });
});

describe.each<StoreKind>(['pglite', 'postgres'])('confirm: the approval queue (%s)', (kind) => {
  let storage: TestStorage;
  let store: Store;
  beforeAll(async () => {
    storage = await testStorage(kind);
    store = await storage.open();
  });
  afterAll(async () => {
    await store?.close();
    await storage?.cleanup();
  });

  /** Resolves with the pending approval of the tool (and arguments), once it appears. */
  const pendingApproval = async (tool: string, args?: Record<string, unknown>) => {
    for (;;) {
      const found = (await store.listApprovals({ status: 'pending' })).find(
        (approval) =>
          approval.tool === tool &&
          (args === undefined || JSON.stringify(approval.arguments) === JSON.stringify(args)),
      );
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('queues a call the client cannot confirm and runs it once approved', async () => {
    const next = fakeNext();
    const ctx = call(TOOLS.destructive, { session: HEADLESS });
    const running = pipeline(settingsOf(), next, store)(ctx);
    const approval = await pendingApproval('s.delete_item');
    expect(approval).toMatchObject({
      server: 's',
      arguments: { id: 7, token: '[redacted]' },
      reason: expect.stringContaining('destructiveHint'),
    });
    expect(next).not.toHaveBeenCalled();
    await store.decideApproval(approval.id, { status: 'approved', by: 'cli:alice' });
    expect(await running).toEqual(OK);
    expect(next).toHaveBeenCalledTimes(1);
    expect(ctx.trace).toMatchObject({
      decision: 'approved',
      approver: 'cli:alice',
      approvalId: approval.id,
    });
  });

  it('never runs a denied call, and says who denied it', async () => {
    const next = fakeNext();
    const writes = settingsOf({ confirm: 'writes' });
    const queued = pipeline(writes, next, store)(call(TOOLS.write, { session: HEADLESS }));
    const approval = await pendingApproval('s.add_item');
    await store.decideApproval(approval.id, { status: 'denied', by: 'cli:bob', note: 'not now' });
    const result = await queued;
    expect(next).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      isError: true,
      _meta: { [CALL_META_KEY]: { decision: 'denied', approvalId: approval.id } },
    });
    expect(JSON.stringify(result['content'])).toContain('denied by cli:bob (not now)');
  });

  it('expires a call nobody decides, without running it', async () => {
    const next = fakeNext();
    const ctx = call(TOOLS.destructive, { session: HEADLESS });
    const result = await pipeline(settingsOf({ approvalTimeoutMs: 300 }), next, store)(ctx);
    expect(next).not.toHaveBeenCalled();
    expect(result).toMatchObject({ _meta: { [CALL_META_KEY]: { decision: 'expired' } } });
    expect(JSON.stringify(result['content'])).toContain(
      `needs approval: nobody approved s_delete_item in time (approval ${ctx.trace.approvalId ?? ''} expired)`,
    );
    // Where a person approves, never a command the model could run to approve itself.
    expect(JSON.stringify(result['content'])).toContain('approval queue');
    expect(JSON.stringify(result['content'])).not.toMatch(/approvals approve|\/api\/approvals/);
    expect((await store.getApproval(ctx.trace.approvalId ?? ''))?.status).toBe('expired');
  });

  it('sends to the queue what config says only a person may approve, even if the client could answer', async () => {
    const next = fakeNext();
    const { relay, asked } = relayAnswering({ action: 'accept' });
    const settings = settingsOf({ tools: { 's.delete_item': { requireApprovalQueue: true } } });
    const running = pipeline(
      settings,
      next,
      store,
    )(call(TOOLS.destructive, { session: LEGACY, relay, args: { q: 2 } }));
    const approval = await pendingApproval('s.delete_item', { q: 2 });
    expect(asked).toEqual([]);
    await store.decideApproval(approval.id, { status: 'approved', by: 'api:bearer' });
    await running;
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('without waiting, says where a person approves, and runs the same call once approved', async () => {
    const next = fakeNext();
    const step = pipeline(settingsOf({ waitForApproval: false }), next, store);
    const first = await step(call(TOOLS.destructive, { session: HEADLESS }));
    const id = (first['_meta'] as Record<string, { approvalId: string }>)[CALL_META_KEY]
      ?.approvalId;
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(first['content']).toEqual([
      {
        type: 'text',
        text: `needs approval: this call waits for a person in the gateway's approval queue (approval ${id}); it was not run. Tell the user: an approver decides it in the dashboard or with the hintgate CLI on the gateway's host. Once approved, call s_delete_item again with the same arguments.`,
      },
    ]);
    const again = await step(call(TOOLS.destructive, { session: HEADLESS }));
    expect(JSON.stringify(again['content'])).toContain(
      `Still waiting for a person to approve this call (approval ${id}`,
    );
    expect(JSON.stringify(again['content'])).not.toContain('approvals approve');
    await store.decideApproval(id ?? '', { status: 'approved', by: 'cli:alice' });
    expect(
      await step(call(TOOLS.destructive, { session: HEADLESS, args: { id: 8, token: 'x' } })),
    ).toMatchObject({ _meta: { [CALL_META_KEY]: { decision: 'needs-approval' } } });
    expect(next).not.toHaveBeenCalled();
    expect(await step(call(TOOLS.destructive, { session: HEADLESS }))).toEqual(OK);
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('accepts a signed state once across gateways sharing the store and the secret', async () => {
    // PostgreSQL: a second connection pool, as another gateway would have.
    const other = kind === 'postgres' ? await storage.open() : store;
    try {
      const secret = 'one-secret-behind-the-load-balancer!';
      const gateway = (on: Store) =>
        new RequestStateSigner({
          secret,
          nonces: { claim: (nonce, ttlMs) => on.claimNonce(nonce, ttlMs) },
        });
      const [first, second] = [gateway(store), gateway(other)];
      const asked = await pipeline(
        settingsOf(),
        fakeNext(),
        undefined,
        first,
      )(call(TOOLS.destructive, { session: MODERN }));
      const answered = () =>
        call(TOOLS.destructive, {
          session: MODERN,
          extra: {
            requestState: asked['requestState'],
            inputResponses: { [CONFIRM_INPUT_KEY]: { action: 'accept', content: {} } },
          },
        });
      const next = fakeNext();
      expect(await pipeline(settingsOf(), next, undefined, second)(answered())).toEqual(OK);
      await expect(
        pipeline(settingsOf(), next, undefined, first)(answered()),
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENTS',
        message: expect.stringContaining('already used'),
      });
      expect(next).toHaveBeenCalledTimes(1);
    } finally {
      if (other !== store) await other.close();
    }
  });

  it('withdraws the approval of a call the client gave up on while waiting (nobody denied it)', async () => {
    const controller = new AbortController();
    const next = fakeNext();
    const lines: string[] = [];
    const ctx = call(TOOLS.destructive, {
      session: HEADLESS,
      signal: controller.signal,
      args: { n: 1 },
    });
    const running = pipeline(settingsOf(), next, store, undefined, (line) => lines.push(line))(ctx);
    const approval = await pendingApproval('s.delete_item', { n: 1 });
    controller.abort(new Error('client went away'));
    await expect(running).rejects.toThrow('client went away');
    await vi.waitFor(async () =>
      expect(await store.getApproval(approval.id)).toMatchObject({
        status: 'withdrawn',
        decidedBy: 'client',
        note: 'the client gave up on the call (client went away)',
      }),
    );
    expect(ctx.trace.decision).toBe('withdrawn');
    expect(lines.at(-1)).toBe(
      `approval ${approval.id}: withdrawn, the client gave up on the call (client went away)`,
    );
    expect((await store.listApprovals({ status: 'withdrawn' })).map((a) => a.id)).toContain(
      approval.id,
    );
    expect(next).not.toHaveBeenCalled();
  });

  it("keeps the log line one line, whatever the client's name holds", async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    const running = pipeline(settingsOf(), fakeNext(), store, undefined, (line) =>
      lines.push(line),
    )(
      call(TOOLS.destructive, {
        session: { ...HEADLESS, clientInfo: { name: 'evil\nhintgate: approval 1 approved' } },
        signal: controller.signal,
        args: { forged: 1 },
      }),
    );
    await pendingApproval('s.delete_item', { forged: 1 });
    controller.abort(new Error('done'));
    await running.catch(() => undefined);
    expect(lines[0]).toContain('called by client evil?hintgate: approval 1 approved waits');
    expect(lines.every((line) => !line.includes('\n'))).toBe(true);
  });

  it('waits 50 s for a client that cannot be kept waiting, 5 min for one that can or need not wait', async () => {
    const lifetime = async (options: Parameters<typeof call>[1], policyInput = {}) => {
      const controller = new AbortController();
      const args = { life: Math.random() };
      const running = pipeline(
        settingsOf(policyInput),
        fakeNext(),
        store,
      )(
        call(TOOLS.destructive, { session: HEADLESS, signal: controller.signal, args, ...options }),
      );
      const approval = await pendingApproval('s.delete_item', args);
      controller.abort(new Error('done looking'));
      await running.catch(() => undefined);
      return Date.parse(approval.expiresAt) - Date.parse(approval.createdAt);
    };
    /** Within a second of `ms` (the store's clock sets both times). */
    const near = (actual: number, ms: number) => expect(Math.abs(actual - ms)).toBeLessThan(1_000);
    near(await lifetime({}), 50_000);
    near(await lifetime({ keepAlive: () => undefined }), 300_000);
    // Config says how long: for every client.
    near(await lifetime({ keepAlive: () => undefined }, { approvalTimeoutMs: 20_000 }), 20_000);
    const deferred = await pipeline(
      settingsOf({ waitForApproval: false }),
      fakeNext(),
      store,
    )(call(TOOLS.destructive, { session: HEADLESS, args: { deferred: 1 } }));
    const id = (deferred['_meta'] as Record<string, { approvalId: string }>)[CALL_META_KEY]
      ?.approvalId;
    const approval = await store.getApproval(id ?? '');
    near(Date.parse(approval?.expiresAt ?? '') - Date.parse(approval?.createdAt ?? ''), 300_000);
  });

  it('keeps a client with a progress token hearing while the call waits, and logs where to approve', async () => {
    const heard: string[] = [];
    const lines: string[] = [];
    const next = fakeNext();
    const ctx = call(TOOLS.destructive, {
      session: { ...HEADLESS, principal: 'alice' },
      args: { heard: 1 },
      keepAlive: (message) => heard.push(message),
    });
    const running = pipeline(settingsOf(), next, store, undefined, (line) => lines.push(line))(ctx);
    const approval = await pendingApproval('s.delete_item', { heard: 1 });
    await vi.waitFor(() => expect(heard.length).toBeGreaterThanOrEqual(3));
    expect(heard[0]).toBe(
      `waiting for a person to approve s.delete_item (approval ${approval.id})`,
    );
    expect(lines[0]).toMatch(
      new RegExp(
        `^approval ${approval.id}: s\\.delete_item called by alice waits for a person until \\d\\d:\\d\\d:\\d\\d UTC; approve or deny it with "hintgate approvals approve ${approval.id}" \\(or deny\\) on the gateway's host$`,
      ),
    );
    await store.decideApproval(approval.id, { status: 'approved', by: 'cli:bob' });
    expect(await running).toEqual(OK);
    expect(lines[1]).toBe(`approval ${approval.id}: approved by cli:bob`);
    const count = heard.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toHaveLength(count);
  });
});
