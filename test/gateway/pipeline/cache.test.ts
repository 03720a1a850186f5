import { describe, expect, it, vi } from 'vitest';
import type { Next } from '../../../src/gateway/pipeline/compose.js';
import { canonicalJson } from '../../../src/core/util/canonical-json.js';
import { CACHE_META_KEY, argumentsKey, cache } from '../../../src/gateway/pipeline/cache.js';
import type { CallContext, CallToolResult } from '../../../src/gateway/pipeline/context.js';
import { ADMISSION_WINDOW, ResultCache } from '../../../src/gateway/result-cache.js';
import type { ToolSettingsTable } from '../../../src/gateway/tool-settings.js';
import { OK, TOOLS, fakeNext, settingsOf, toolContext } from './step-helpers.js';

const TTLS = { readOnlyTtlMs: 300_000, idempotentTtlMs: 30_000 };

function setup(settings: ToolSettingsTable = settingsOf(), bounds = {}) {
  const results = new ResultCache({
    maxEntries: 100,
    maxBytes: 1_000_000,
    maxEntryBytes: 100_000,
    ...bounds,
  });
  return { results, step: cache(results, settings, TTLS) };
}

const run = (step: ReturnType<typeof cache>, ctx: CallContext, next = fakeNext()) =>
  step(ctx, next);

describe('cache', () => {
  it('answers a repeated read-only call from the cache, never calling next for a hit', async () => {
    const { step, results } = setup();
    const next = fakeNext({ content: [{ type: 'text', text: 'item 7' }] });
    const first = toolContext(TOOLS.read, { args: { id: 7, opts: { b: 1, a: 2 } } });
    expect(await step(first, next)).toEqual({ content: [{ type: 'text', text: 'item 7' }] });
    expect(first.trace.cacheHit).toBe(false);
    // The same arguments in another key order are the same call.
    const second = toolContext(TOOLS.read, { args: { opts: { a: 2, b: 1 }, id: 7 } });
    expect(await step(second, next)).toMatchObject({
      content: [{ type: 'text', text: 'item 7' }],
    });
    expect(next).toHaveBeenCalledTimes(1);
    expect(second.trace).toMatchObject({ cacheHit: true, stoppedBy: 'cache', outcome: 'ok' });
    expect(results.stats()).toMatchObject({ hits: 1, misses: 1, stores: 1, entries: 1 });
    await step(toolContext(TOOLS.read, { args: { id: 8 } }), next);
    expect(next).toHaveBeenCalledTimes(2);
  });

  it('hands out copies: changing a served result changes nothing cached', async () => {
    const { step } = setup();
    const next = fakeNext({
      content: [{ type: 'text', text: 'original' }],
      structuredContent: { n: 1 },
    });
    const served = await step(toolContext(TOOLS.read), next);
    (served['structuredContent'] as { n: number }).n = 99;
    const hit = await step(toolContext(TOOLS.read), next);
    (hit['content'] as { text: string }[])[0]!.text = 'changed';
    const { _meta: _served, ...again } = await step(toolContext(TOOLS.read), next);
    expect(again).toEqual({
      content: [{ type: 'text', text: 'original' }],
      structuredContent: { n: 1 },
    });
  });

  it('makes every cached result of a server stale on a call that may change it', async () => {
    const { step } = setup();
    const next = fakeNext();
    await step(toolContext(TOOLS.read), next);
    await step(toolContext(TOOLS.read), next);
    expect(next).toHaveBeenCalledTimes(1);
    await step(toolContext(TOOLS.write), next);
    expect(next).toHaveBeenCalledTimes(2);
    await step(toolContext(TOOLS.read), next);
    expect(next).toHaveBeenCalledTimes(3);
    // A failing write invalidates too: it may have done part of its work.
    const failing = fakeNext();
    failing.mockRejectedValueOnce(new Error('broken'));
    await expect(step(toolContext(TOOLS.destructive), failing)).rejects.toThrow('broken');
    await step(toolContext(TOOLS.read), next);
    expect(next).toHaveBeenCalledTimes(4);
  });

  it('never keeps a result of a read that overlapped a write', async () => {
    const { step } = setup();
    let release!: (result: CallToolResult) => void;
    const slowRead = fakeNext();
    slowRead.mockImplementationOnce(
      () => new Promise<CallToolResult>((resolve) => (release = resolve)),
    );
    const reading = step(toolContext(TOOLS.read), slowRead);
    await step(toolContext(TOOLS.write), fakeNext());
    release({ content: [{ type: 'text', text: 'before the write' }] });
    await reading;
    const next = fakeNext();
    await step(toolContext(TOOLS.read), next);
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('never caches destructive, unannotated, isError or input_required results', async () => {
    const { step } = setup();
    for (const tool of [TOOLS.destructive, TOOLS.unannotated, TOOLS.write]) {
      const next = fakeNext();
      await step(toolContext(tool), next);
      await step(toolContext(tool), next);
      expect(next).toHaveBeenCalledTimes(2);
    }
    for (const answer of [
      { content: [], isError: true },
      { resultType: 'input_required', inputRequests: {} },
    ]) {
      const next = fakeNext(answer);
      await step(toolContext(TOOLS.read), next);
      await step(toolContext(TOOLS.read), next);
      expect(next).toHaveBeenCalledTimes(2);
    }
  });

  it('leaves rounds of a multi-round call alone', async () => {
    const { step } = setup();
    const next = fakeNext();
    const round = () =>
      toolContext(TOOLS.read, { extra: { requestState: 'r1', inputResponses: {} } });
    await step(round(), next);
    await step(round(), next);
    expect(next).toHaveBeenCalledTimes(2);
  });

  it('keeps idempotent results briefly and read-only ones longer, as configured', async () => {
    const { step } = setup(settingsOf({ tools: { 's.tag_item': { cacheTtlMs: 40 } } }));
    const next = fakeNext();
    // Contexts made first: building one runs inference, which takes longer than the TTL.
    const [first, second, third] = [1, 2, 3].map(() => toolContext(TOOLS.idempotent));
    await step(first!, next);
    await step(second!, next);
    expect(next).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await step(third!, next);
    expect(next).toHaveBeenCalledTimes(2);
  });

  it('can be turned off per tool', async () => {
    const { step } = setup(settingsOf({ tools: { 's.get_*': { cache: false } } }));
    const next = fakeNext();
    await step(toolContext(TOOLS.read), next);
    await step(toolContext(TOOLS.read), next);
    expect(next).toHaveBeenCalledTimes(2);
  });

  it('evicts the least recently used entries beyond its bounds', async () => {
    const { step, results } = setup(undefined, { maxEntries: 2 });
    const next = fakeNext();
    for (const id of [1, 2, 1, 3]) await run(step, toolContext(TOOLS.read, { args: { id } }), next);
    expect(next).toHaveBeenCalledTimes(3);
    await run(step, toolContext(TOOLS.read, { args: { id: 1 } }), next);
    expect(next).toHaveBeenCalledTimes(3);
    await run(step, toolContext(TOOLS.read, { args: { id: 2 } }), next);
    expect(next).toHaveBeenCalledTimes(4);
    expect(results.stats().entries).toBe(2);
    const small = setup(undefined, { maxBytes: 300, maxEntryBytes: 200 });
    const big = fakeNext({ content: [{ type: 'text', text: 'x'.repeat(250) }] });
    await run(small.step, toolContext(TOOLS.read), big);
    await run(small.step, toolContext(TOOLS.read), big);
    expect(big).toHaveBeenCalledTimes(2);
    expect(small.results.stats().bytes).toBe(0);
    expect(OK).toEqual({ content: [{ type: 'text', text: 'ok' }] });
  });

  it('keeps a result of a tool whose calls rarely repeat only at its second sighting, per tool', async () => {
    const { step, results } = setup(undefined, { maxEntries: 5_000 });
    const next = fakeNext();
    const call = (tool: (typeof TOOLS)['read' | 'idempotent'], id: number | string) =>
      run(step, toolContext(tool, { args: { id } }), next);
    // A window of one-off calls: every result kept, none ever asked for again.
    for (let id = 1; id < ADMISSION_WINDOW; id++) await call(TOOLS.read, id);
    expect(results.stats()).toMatchObject({ stores: ADMISSION_WINDOW - 1, unadmitted: 0 });
    // The lookup that ends the window makes the tool sparse: a new call is not kept; the
    // same call again is, and served the third time.
    await call(TOOLS.read, 'again');
    expect(results.stats()).toMatchObject({ stores: ADMISSION_WINDOW - 1, unadmitted: 1 });
    await call(TOOLS.read, 'again');
    expect(results.stats().stores).toBe(ADMISSION_WINDOW);
    const calls = next.mock.calls.length;
    await call(TOOLS.read, 'again');
    expect(next).toHaveBeenCalledTimes(calls);
    // Another tool is weighed on its own: its first call is kept.
    await call(TOOLS.idempotent, 'other');
    expect(results.stats()).toMatchObject({ stores: ADMISSION_WINDOW + 1, unadmitted: 1 });
    // A window with hits again (each call made three times: kept at the second, served at
    // the third) makes the tool keep at the first sighting again.
    for (let id = 0; id < ADMISSION_WINDOW / 2; id++) {
      for (let time = 0; time < 3; time++) await call(TOOLS.read, `thrice-${id}`);
    }
    const stores = results.stats().stores;
    await call(TOOLS.read, 'fresh');
    expect(results.stats().stores).toBe(stores + 1);
    const before = next.mock.calls.length;
    await call(TOOLS.read, 'fresh');
    expect(next).toHaveBeenCalledTimes(before);
  });

  it("keeps callers apart while a tool is sparse: one caller's sighting admits no other's result", async () => {
    const { step, results } = setup(undefined, { maxEntries: 5_000 });
    const alice = { principal: 'alice', front: 'http' as const, id: 'a' };
    const bob = { principal: 'bob', front: 'http' as const, id: 'b' };
    // The server answers each caller with their own text.
    const call = (session: typeof alice, id: number | string) =>
      step(
        toolContext(TOOLS.read, { session, args: { id } }),
        fakeNext({ content: [{ type: 'text', text: `for ${session.principal}` }] }),
      );
    for (let id = 0; id < ADMISSION_WINDOW; id++) await call(id % 2 === 0 ? alice : bob, id);
    // Sparse now. Alice's call is seen once and not kept, and so is Bob's same call: hers
    // admits nothing of his, and he is not served hers.
    const { stores, unadmitted } = results.stats();
    await call(alice, 'shared');
    expect(await call(bob, 'shared')).toEqual({ content: [{ type: 'text', text: 'for bob' }] });
    expect(results.stats()).toMatchObject({ stores, unadmitted: unadmitted + 2 });
    // Each one's second sighting keeps their own result, and each is served their own.
    await call(alice, 'shared');
    await call(bob, 'shared');
    expect(results.stats().stores).toBe(stores + 2);
    for (const session of [alice, bob]) {
      expect(await call(session, 'shared')).toMatchObject({
        content: [{ type: 'text', text: `for ${session.principal}` }],
        _meta: { [CACHE_META_KEY]: { hit: true } },
      });
    }
  });

  it('keys arguments by their canonical JSON, flat and sorted or not', () => {
    for (const args of [
      { a: 1, b: 'x', c: null, d: true },
      { b: 1, a: 2 },
      { a: { d: 1, c: 2 }, b: [{ f: 1, e: 2 }] },
      { '10': 1, '9': 2, x: 3 },
      { a: undefined, b: 1 },
      {},
      [3, { b: 1, a: 2 }],
      'text',
    ]) {
      expect(argumentsKey(args)).toBe(canonicalJson(args));
    }
    expect(argumentsKey(undefined)).toBe('{}');
  });

  it('says in _meta that a result came from the cache, and how old it is', async () => {
    const { step } = setup();
    const next = fakeNext({ content: [], _meta: { server: 'own' } });
    const fresh = await step(toolContext(TOOLS.read), next);
    expect(fresh['_meta']).toEqual({ server: 'own' });
    const hit = await step(toolContext(TOOLS.read), next);
    const meta = hit['_meta'] as Record<string, { hit: boolean; ageMs: number; storedAt: string }>;
    expect(meta['server']).toBe('own');
    expect(meta[CACHE_META_KEY]).toMatchObject({ hit: true });
    expect(meta[CACHE_META_KEY]!.ageMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(meta[CACHE_META_KEY]!.storedAt)).toBeLessThanOrEqual(Date.now());
  });

  it('never shares a result between principals, connections or client contexts', async () => {
    const { step } = setup();
    const next = fakeNext();
    const callers = [
      { principal: 'alice', front: 'http' as const, id: 'x' },
      { principal: 'bob', front: 'http' as const, id: 'x' },
      { id: 'stdio-1' },
      { id: 'stdio-2' },
      { id: 'stdio-2', clientCapabilities: { elicitation: {} } },
      { id: 'stdio-2', protocolVersion: '2025-06-18' },
    ];
    for (const session of callers) await step(toolContext(TOOLS.read, { session }), next);
    expect(next).toHaveBeenCalledTimes(callers.length);
    // The same principal on another request (2026 HTTP ids change) is the same caller.
    await step(toolContext(TOOLS.read, { session: { ...callers[0], id: 'y' } }), next);
    expect(next).toHaveBeenCalledTimes(callers.length);
    // `_meta` the server can see is part of the key; a progress token is not.
    await step(toolContext(TOOLS.read, { extra: { _meta: { trace: 't1' } } }), next);
    expect(next).toHaveBeenCalledTimes(callers.length + 1);
    await step(toolContext(TOOLS.read), next);
    expect(next).toHaveBeenCalledTimes(callers.length + 2);
    await step(toolContext(TOOLS.read, { extra: { _meta: { progressToken: 9 } } }), next);
    expect(next).toHaveBeenCalledTimes(callers.length + 2);
  });

  it('serves a 2026 client from the cache across requests, each bringing its own session', async () => {
    const { step } = setup();
    const next = fakeNext();
    const modern = (capabilities: Record<string, unknown>) => ({
      era: 'modern' as const,
      front: 'http' as const,
      id: 'http',
      protocolVersion: '2026-07-28',
      clientInfo: { name: 'client', version: '1' },
      clientCapabilities: capabilities,
    });
    await step(toolContext(TOOLS.read, { session: modern({ sampling: {} }) }), next);
    await step(toolContext(TOOLS.read, { session: modern({ sampling: {} }) }), next);
    expect(next).toHaveBeenCalledTimes(1);
    await step(toolContext(TOOLS.read, { session: modern({ elicitation: {} }) }), next);
    expect(next).toHaveBeenCalledTimes(2);
  });

  it('keeps no result of a call during which the server sent the client anything', async () => {
    const { step, results } = setup();
    const talking = (kind: 'progress' | 'relay' | 'log') =>
      vi.fn<Next>(() => {
        if (kind === 'log') results.noteActivity('s');
        return Promise.resolve(OK);
      });
    for (const kind of ['progress', 'relay', 'log'] as const) {
      const next = talking(kind);
      const ctx = () => {
        const context = toolContext(TOOLS.read, {
          args: { kind },
          relay: () => Promise.resolve({ action: 'accept' }),
        });
        context.progress = () => undefined;
        return context;
      };
      for (let i = 0; i < 2; i += 1) {
        const context = ctx();
        if (kind !== 'log') {
          next.mockImplementationOnce(async () => {
            if (kind === 'progress') context.progress?.({ progress: 1 });
            else
              await context.relay?.({ method: 'elicitation/create', params: {} }, context.signal);
            return OK;
          });
        }
        await step(context, next);
      }
      expect(next, kind).toHaveBeenCalledTimes(2);
    }
    // A quiet call is kept.
    const quiet = fakeNext();
    await step(toolContext(TOOLS.read, { args: { kind: 'quiet' } }), quiet);
    await step(toolContext(TOOLS.read, { args: { kind: 'quiet' } }), quiet);
    expect(quiet).toHaveBeenCalledTimes(1);
  });

  it('keeps results of tools whose hints are only inferred only when config says so', async () => {
    // Inferred read-only from its name: no annotations declared.
    const inferred = { name: 'list_items', description: 'Lists the items.' };
    expect(toolContext(inferred).annotations?.provenance['readOnlyHint']?.source).toBe('inferred');
    const off = setup();
    const next = fakeNext();
    await off.step(toolContext(inferred), next);
    await off.step(toolContext(inferred), next);
    expect(next).toHaveBeenCalledTimes(2);
    const results = new ResultCache({ maxEntries: 10, maxBytes: 100_000, maxEntryBytes: 10_000 });
    const on = cache(results, settingsOf(), { ...TTLS, inferred: true });
    await on(toolContext(inferred), next);
    await on(toolContext(inferred), next);
    expect(next).toHaveBeenCalledTimes(3);
  });
});
