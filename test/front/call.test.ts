import { describe, expect, it } from 'vitest';
import type { ClientLink } from '../../src/front/call.js';
import { HandedOver, frontCall } from '../../src/front/call.js';
import { emptySession } from '../../src/front/session.js';
import type { JsonObject } from '../../src/mcp/json-rpc.js';

/** A link recording what it would send to the client. */
function recordingLink(): { link: ClientLink; sent: { method: string; params: JsonObject }[] } {
  const sent: { method: string; params: JsonObject }[] = [];
  return {
    sent,
    link: {
      notify: (method, params) => sent.push({ method, params }),
      request: undefined,
      logLevel: () => undefined,
    },
  };
}

function callWith(token: unknown, link: ClientLink, signal = new AbortController().signal) {
  return frontCall({
    params: { name: 't', ...(token === undefined ? {} : { _meta: { progressToken: token } }) },
    session: emptySession('s', 'stdio'),
    signal,
    link,
  });
}

describe('frontCall: the log level the server is asked for', () => {
  it("is a 2025 client's logging/setLevel, else debug (every message of its own calls)", () => {
    const { link } = recordingLink();
    expect(callWith(undefined, link).logLevel).toBe('debug');
    const set = { ...link, logLevel: () => 'warning' };
    expect(callWith(undefined, set).logLevel).toBe('warning');
  });

  it("is a 2026 client's envelope level, and none when it asked for none", () => {
    const { link } = recordingLink();
    const session = { ...emptySession('s', 'http'), era: 'modern' as const };
    const modern = (meta: Record<string, unknown>) =>
      frontCall({
        params: { name: 't', _meta: meta },
        session,
        signal: new AbortController().signal,
        link,
      });
    expect(modern({ 'io.modelcontextprotocol/logLevel': 'info' }).logLevel).toBe('info');
    expect(modern({}).logLevel).toBeUndefined();
  });
});

describe('frontCall: the progress channel', () => {
  it('passes the server progress on with the client token, values only ever increasing', () => {
    const { link, sent } = recordingLink();
    const call = callWith('tok', link);
    call.keepAlive?.('waiting for approval');
    call.keepAlive?.('waiting for approval');
    call.progress?.({ progress: 0, total: 10, message: 'first step' });
    call.progress?.({ progress: 5, total: 10 });
    call.progress?.({ progress: 5, total: 10 });
    call.keepAlive?.('waiting for server "s" to answer');
    call.progress?.({ progress: 10, total: 10 });
    expect(sent.every((message) => message.method === 'notifications/progress')).toBe(true);
    expect(sent.every((message) => message.params['progressToken'] === 'tok')).toBe(true);
    const values = sent.map((message) => message.params['progress'] as number);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] ?? 0);
    // Only the values that would not have increased are moved, and only just.
    expect(values[0]).toBe(0);
    expect(values[2]).toBeCloseTo(0, 9);
    expect(values[3]).toBe(5);
    expect(values[4]).toBeCloseTo(5, 9);
    expect(values[6]).toBe(10);
    expect(sent[2]?.params).toMatchObject({ total: 10, message: 'first step' });
    expect(sent[5]?.params['message']).toBe('waiting for server "s" to answer');
  });

  it('has no progress channel, and no keep-alive, without a progress token', () => {
    const { link, sent } = recordingLink();
    const call = callWith(undefined, link);
    expect(call.progress).toBeUndefined();
    expect(call.keepAlive).toBeUndefined();
    expect(sent).toEqual([]);
  });

  it('sends nothing once the call is cancelled', () => {
    const { link, sent } = recordingLink();
    const controller = new AbortController();
    const call = callWith(7, link, controller.signal);
    call.keepAlive?.('waiting');
    controller.abort();
    call.keepAlive?.('waiting');
    call.progress?.({ progress: 3 });
    expect(sent).toHaveLength(1);
  });
});

describe('HandedOver: first-round results for the SDK handler', () => {
  const params = { name: 'new_confirm', arguments: { n: 1 } };
  const result = { resultType: 'input_required', inputRequests: {} };

  it('gives a result once, to the request with its id and the same tool and arguments', () => {
    const handed = new HandedOver();
    handed.put(3, params, result);
    expect(handed.take(3, { ...params, _meta: { progressToken: 1 } })).toBe(result);
    expect(handed.take(3, params)).toBeUndefined();
  });

  it('never gives it to another request reusing the id, and forgets it', () => {
    const handed = new HandedOver();
    handed.put('a', params, result);
    expect(handed.take('a', { name: 'new_confirm', arguments: { n: 2 } })).toBeUndefined();
    expect(handed.take('a', params)).toBeUndefined();
    handed.put('b', { name: 'x' }, result);
    expect(handed.take('b', { name: 'x', arguments: {} })).toBe(result);
    handed.put('c', params, result);
    handed.drop('c');
    expect(handed.take('c', params)).toBeUndefined();
  });

  it('forgets a result when a response to its request goes out, not for a request or notification', () => {
    const handed = new HandedOver();
    handed.put(5, params, result);
    handed.answered({ jsonrpc: '2.0', id: 5, method: 'elicitation/create', params: {} });
    handed.answered({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
    expect(handed.take(5, params)).toBe(result);
    handed.put(6, params, result);
    handed.answered({ jsonrpc: '2.0', id: 6, result: {} });
    expect(handed.take(6, params)).toBeUndefined();
    handed.put(7, params, result);
    handed.answered({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'refused' } });
    expect(handed.take(7, params)).toBeUndefined();
  });
});
