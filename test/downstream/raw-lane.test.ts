import { describe, expect, it } from 'vitest';
import { DownstreamError } from '../../src/mcp/rpc-errors.js';
import type { JsonObject } from '../../src/mcp/json-rpc.js';
import { RawLane } from '../../src/downstream/raw-lane.js';
import type { Wire } from '../helpers/wire.js';

/** Captures what the lane writes. */
function sink() {
  const sent: JsonObject[] = [];
  return { sent, sendRaw: (line: string) => void sent.push(JSON.parse(line) as JsonObject) };
}

describe('RawLane', () => {
  it('sends with its own id, replacing the client progress token, and matches the answer back', async () => {
    const out = sink();
    const lane = new RawLane('s', out);
    const progress: JsonObject[] = [];
    const call = lane.request(
      'tools/call',
      { name: 't', _meta: { progressToken: 'client-token', other: 1 } },
      { timeoutMs: 1000, onProgress: (p) => progress.push(p) },
    );
    const sent = out.sent[0] as Wire;
    expect(sent).toMatchObject({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 't', _meta: { other: 1 } },
    });
    expect(sent.id).toMatch(/^hg\d+$/);
    expect(sent.params._meta.progressToken).toBe(sent.id);
    expect(
      lane.accept({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: sent.id, progress: 1, total: 2 },
      }),
    ).toBe(true);
    expect(
      lane.accept({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 7, progress: 1 },
      }),
    ).toBe(false);
    expect(lane.accept({ jsonrpc: '2.0', id: 3, result: {} })).toBe(false);
    expect(lane.accept({ jsonrpc: '2.0', id: sent.id, result: { content: [] } })).toBe(true);
    expect(await call).toEqual({ content: [] });
    expect(progress).toEqual([{ progress: 1, total: 2 }]);
    expect(lane.size).toBe(0);
  });

  it('drops the progress token when no progress is wanted, and adds the 2026 envelope', () => {
    const out = sink();
    void new RawLane('s', out).request(
      'tools/call',
      { name: 't', _meta: { progressToken: 1 } },
      { timeoutMs: 1000, envelope: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    );
    expect((out.sent[0] as Wire).params._meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    });
  });

  it('splices a serialized _meta into params that carry none, and merges as before otherwise', () => {
    const out = sink();
    const lane = new RawLane('s', out);
    const metaJson = JSON.stringify({ level: 'debug', caps: { elicitation: {} } });
    const options = { timeoutMs: 1000, envelope: { 'x/version': '1' }, metaJson };
    void lane.request('tools/call', { name: 't', arguments: { a: [1, '}'] } }, options);
    void lane.request('tools/call', {}, options);
    // Params with a `_meta` of their own, or a call that wants progress: merged with the envelope.
    void lane.request('tools/call', { name: 't', _meta: { own: 1 } }, options);
    void lane.request('tools/call', { name: 't' }, { ...options, onProgress: () => undefined });
    const sent = out.sent.map((message) => (message as Wire).params as JsonObject);
    expect(sent[0]).toEqual({
      name: 't',
      arguments: { a: [1, '}'] },
      _meta: { level: 'debug', caps: { elicitation: {} } },
    });
    expect(sent[1]).toEqual({ _meta: { level: 'debug', caps: { elicitation: {} } } });
    expect(sent[2]).toEqual({ name: 't', _meta: { own: 1, 'x/version': '1' } });
    expect(sent[3]).toEqual({
      name: 't',
      _meta: { 'x/version': '1', progressToken: (out.sent[3] as Wire).id },
    });
  });

  it('rejects with the server error kept for relaying', async () => {
    const out = sink();
    const lane = new RawLane('s', out);
    const call = lane.request('tools/call', { name: 't' }, { timeoutMs: 1000 });
    lane.accept({
      jsonrpc: '2.0',
      id: (out.sent[0] as Wire).id,
      error: { code: -32602, message: 'bad args', data: { x: 1 } },
    });
    await expect(call).rejects.toMatchObject({
      rpc: { code: -32602, message: 'bad args', data: { x: 1 } },
    });
  });

  it('times out, telling the server to stop', async () => {
    const out = sink();
    const call = new RawLane('slow', out).request('tools/call', { name: 't' }, { timeoutMs: 20 });
    await expect(call).rejects.toMatchObject({
      code: 'DOWNSTREAM_TIMEOUT',
      message: 'server "slow" did not answer tools/call within 20 ms',
    });
    expect(out.sent[1]).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: (out.sent[0] as Wire).id },
    });
  });

  it('restarts the timeout on progress', async () => {
    const out = sink();
    const lane = new RawLane('s', out);
    const call = lane.request(
      'tools/call',
      { name: 't' },
      { timeoutMs: 60, resetTimeoutOnProgress: true, onProgress: () => undefined },
    );
    const id = (out.sent[0] as Wire).id;
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      lane.accept({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: id, progress: i },
      });
    }
    lane.accept({ jsonrpc: '2.0', id, result: { ok: true } });
    expect(await call).toEqual({ ok: true });
  });

  it('times each request out on its own deadline, however they were started', async () => {
    const out = sink();
    const lane = new RawLane('s', out);
    const started = performance.now();
    // A long request first, then a short one: the short one must not wait for the long one.
    const long = lane.request('long', {}, { timeoutMs: 2_000 });
    const short = lane.request('short', {}, { timeoutMs: 40 });
    await expect(short).rejects.toMatchObject({ code: 'DOWNSTREAM_TIMEOUT' });
    const shortTook = performance.now() - started;
    expect(shortTook).toBeGreaterThanOrEqual(38);
    expect(shortTook).toBeLessThan(1_500);
    expect(lane.size).toBe(1);
    // A request kept alive by progress past the timer set for it (four notifications 40 ms
    // apart, 160 ms in all, against a 120 ms timeout) still times out once they stop.
    const kept = lane.request(
      'kept',
      {},
      { timeoutMs: 120, resetTimeoutOnProgress: true, onProgress: () => undefined },
    );
    const keptId = (out.sent.at(-1) as Wire).id;
    const keptStarted = performance.now();
    let keptSettled = false;
    const keptResult = kept.then(
      () => 'answered',
      (error: unknown) => (error instanceof DownstreamError ? error.code : String(error)),
    );
    void keptResult.then(() => (keptSettled = true));
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 40));
      lane.accept({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: keptId, progress: i },
      });
    }
    expect(keptSettled).toBe(false);
    const lastProgress = performance.now();
    expect(await keptResult).toBe('DOWNSTREAM_TIMEOUT');
    expect(performance.now() - lastProgress).toBeGreaterThanOrEqual(115);
    expect(performance.now() - keptStarted).toBeGreaterThanOrEqual(270);
    // The long one was never timed out by the others' timers.
    const longId = (out.sent[0] as Wire).id;
    expect(lane.accept({ jsonrpc: '2.0', id: longId, result: { ok: true } })).toBe(true);
    expect(await long).toEqual({ ok: true });
    expect(lane.size).toBe(0);
  });

  it('passes a cancellation on and rejects with its reason', async () => {
    const out = sink();
    const controller = new AbortController();
    const call = new RawLane('s', out).request(
      'tools/call',
      { name: 't' },
      { timeoutMs: 1000, signal: controller.signal },
    );
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    expect(out.sent[1]).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: (out.sent[0] as Wire).id, reason: 'cancelled by the client' },
    });
  });

  it('fails everything in flight when the connection goes', async () => {
    const lane = new RawLane('s', sink());
    const calls = [
      lane.request('a', {}, { timeoutMs: 1000 }),
      lane.request('b', {}, { timeoutMs: 1000 }),
    ];
    lane.failAll(new DownstreamError('DOWNSTREAM_CRASHED', 's', 'gone'));
    for (const call of calls)
      await expect(call).rejects.toMatchObject({ code: 'DOWNSTREAM_CRASHED' });
  });
});
