import { describe, expect, it } from 'vitest';
import { InflightCalls } from '../../src/downstream/inflight.js';
import type { JsonObject } from '../../src/mcp/json-rpc.js';

const signal = new AbortController().signal;

describe('InflightCalls', () => {
  it("routes a server's message to the latest call while one caller has calls in flight", async () => {
    const calls = new InflightCalls();
    const logs: string[] = [];
    const endFirst = calls.add({
      caller: 'a',
      relay: () => Promise.resolve({ from: 'first' }),
      onLog: () => logs.push('first'),
    });
    calls.add({
      caller: 'a',
      relay: () => Promise.resolve({ from: 'second' }),
      onLog: () => logs.push('second'),
    });
    expect(calls.routeLog({ data: 'x' })).toBe('call');
    expect(logs).toEqual(['second']);
    const relay = calls.relayHandler('s', 'elicitation/create');
    expect(await relay({ params: {} }, { mcpReq: { signal } })).toEqual({ from: 'second' });
    endFirst();
  });

  it('delivers to nobody, and asks nobody, while calls of several callers are in flight', async () => {
    const calls = new InflightCalls();
    const logs: JsonObject[] = [];
    const endA = calls.add({ caller: 'a', relay: undefined, onLog: (p) => logs.push(p) });
    const endB = calls.add({
      caller: 'b',
      relay: () => Promise.resolve({}),
      onLog: (p) => logs.push(p),
    });
    expect(calls.routeLog({ data: 'x' })).toBe('ambiguous');
    // Only one of them can answer requests: that one is asked.
    const relay = calls.relayHandler('s', 'elicitation/create');
    await expect(relay({ params: {} }, { mcpReq: { signal } })).resolves.toEqual({});
    calls.add({ caller: 'c', relay: () => Promise.resolve({}), onLog: undefined });
    await expect(relay({ params: {} }, { mcpReq: { signal } })).rejects.toThrow(
      'calls of several clients of server "s" are in flight',
    );
    expect(logs).toEqual([]);
    endA();
    endB();
  });

  it("calls a message with no call in flight the server's own", () => {
    expect(new InflightCalls().routeLog({ data: 'x' })).toBe('server');
  });
});
