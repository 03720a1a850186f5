import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/store/types.js';
import { cliJson } from '../helpers/cli.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import type { FrontKind, FrontSession } from '../helpers/fronts.js';
import { openFront } from '../helpers/fronts.js';
import type { ClientKind } from '../helpers/gateway.js';
import { LOOSE, expectNoOrphans, rawCall, rawListTools } from '../helpers/gateway.js';
import type { ProcessRow } from '../helpers/processes.js';
import { waitFor } from '../helpers/processes.js';
import type { Wire } from '../helpers/wire.js';

const META = 'dev.hintgate/tool';
const MATRIX: [FrontKind, ClientKind][] = [
  ['stdio', 'v2-legacy'],
  ['stdio', 'v2-auto'],
  ['stdio', 'v1'],
  ['http', 'v2-legacy'],
  ['http', 'v2-auto'],
  ['http', 'v1'],
];

type Tool = Record<string, unknown> & {
  name: string;
  annotations: Record<string, unknown>;
  _meta: Record<string, unknown>;
};
const hintgateMeta = (tool: Tool) => tool._meta[META] as Record<string, Wire>;

type OnMessage = (message: unknown, extra?: unknown) => void;

/**
 * Records the progress notifications `client`'s transport hands over, as it reads them (so
 * before the answer they came before), until `stop`.
 */
function hearProgress(client: { transport?: unknown }): {
  seen: { progressToken: unknown; progress: unknown }[];
  stop: () => void;
} {
  const transport = client.transport as { onmessage: OnMessage | undefined };
  const original = transport.onmessage;
  const seen: { progressToken: unknown; progress: unknown }[] = [];
  transport.onmessage = (message, extra) => {
    const { method, params } = message as { method?: string; params?: Record<string, unknown> };
    if (method === 'notifications/progress' && params !== undefined)
      seen.push({ progressToken: params['progressToken'], progress: params['progress'] });
    original?.(message, extra);
  };
  return { seen, stop: () => (transport.onmessage = original) };
}

describe.each(MATRIX)('gateway over %s, %s client', (front, kind) => {
  const dir = scratchDir();
  const config = writeConfig(dir, {
    echo: fixtureServer('echo'),
    echo25: fixtureServer('echo', [], { era: 'legacy' }),
    modern: fixtureServer('modern'),
    missing: { command: join(dir, 'no-such-binary') },
  });
  let session: FrontSession;
  let client: Client;
  let tools: Tool[];
  let spawned: ProcessRow[];

  beforeAll(async () => {
    session = await openFront(front, kind, config);
    client = session.client as Client;
    tools = (await rawListTools(client)) as Tool[];
    spawned = session.children();
  });

  afterAll(async () => {
    await session.close();
    expect(await expectNoOrphans(spawned)).toEqual([]);
  });

  const tool = (name: string): Tool => {
    const found = tools.find((candidate) => candidate.name === name);
    if (found === undefined)
      throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
    return found;
  };

  it('negotiates the era the client asked for, with the servers capabilities and instructions', () => {
    if (kind === 'v1') return;
    expect(client.getProtocolEra()).toBe(kind === 'v2-auto' ? 'modern' : 'legacy');
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      experimental: { 'vendor.test/feature': { on: true } },
    });
    expect(client.getInstructions()).toContain('## echo\n\nUse echo to test things.');
  });

  it('relays a server log message to a 2025 client, and resource subscriptions to the server', async () => {
    // 2026 clients subscribe on their listen stream; resources/subscribe is a 2025 request.
    if (kind === 'v2-auto') return;
    for (const uri of ['echo://readme', 'echo://items/1']) {
      expect(
        await client.request({ method: 'resources/subscribe', params: { uri } }, LOOSE),
      ).toEqual({});
    }
    if (kind !== 'v2-legacy') return;
    const messages: unknown[] = [];
    client.setNotificationHandler(
      'notifications/message',
      (notification) => void messages.push(notification.params),
    );
    await rawCall(client, 'echo25_log', { text: 'hello log' });
    const seen = await waitFor(
      () => messages,
      (list) => list.length > 0,
      3000,
    );
    expect(seen[0]).toMatchObject({ level: 'info', logger: 'echo25/echo', data: 'hello log' });
  });

  it('lists the tools of every server that is up under flattened names, and none of the missing one', () => {
    const names = tools.map((candidate) => candidate.name);
    expect(names).toEqual(
      expect.arrayContaining(['echo_echo', 'echo25_echo', 'modern_lookup', 'modern_confirm']),
    );
    expect(names.some((name) => name.startsWith('missing_'))).toBe(false);
    expect(hintgateMeta(tool('echo25_add'))).toMatchObject({
      server: 'echo25',
      name: 'add',
      namespacedName: 'echo25.add',
    });
    expect(hintgateMeta(tool('echo25_add'))['refId']).toMatch(/^[0-9a-f]{16}$/);
  });

  it('reports the server whose binary is missing as down, with the reason', async () => {
    const stderr = await waitFor(
      () => session.stderr(),
      (text) => /server "missing" is down: command not found/.test(text),
      5000,
    );
    expect(stderr).toMatch(/server "missing" is down: command not found: ".*no-such-binary"/);
  });

  it('passes declared annotations through unchanged and says so in _meta', () => {
    const echo = tool('echo_echo');
    expect(echo.annotations).toMatchObject({
      title: 'Echo text',
      readOnlyHint: true,
      openWorldHint: false,
    });
    const meta = hintgateMeta(echo);
    expect(meta['sources']).toMatchObject({
      title: 'declared',
      readOnlyHint: 'declared',
      openWorldHint: 'declared',
    });
    // Not declared: completed by inference or by what read-only implies, never marked declared.
    expect(echo.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(['inferred', 'spec-default']).toContain(meta['sources']['destructiveHint']);
    expect(['inferred', 'spec-default']).toContain(meta['sources']['idempotentHint']);
    // No conflicts: the key is left out of the listing.
    expect(meta['conflicts']).toBeUndefined();
  });

  it('infers the hints a tool does not declare, with sources (reasons stay out of the listing)', () => {
    const add = tool('echo_add');
    const meta = hintgateMeta(add);
    for (const field of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      expect(typeof add.annotations[field]).toBe('boolean');
      expect(['inferred', 'spec-default']).toContain(meta['sources'][field]);
    }
    expect(add.annotations['readOnlyHint']).toBe(false);
    expect(Object.values(meta['sources'])).toContain('inferred');
    expect(meta['reasons']).toBeUndefined();
    expect(add['outputSchema']).toEqual({
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    });
  });

  it('flags a conflict when an untrusted server declares a destructive tool read-only', () => {
    const risky = tool('echo_delete_all_records');
    expect(risky.annotations['readOnlyHint']).toBe(false);
    expect(hintgateMeta(risky)['conflicts']).toEqual([
      expect.objectContaining({ field: 'readOnlyHint', declared: true, resolved: false }),
    ]);
  });

  it('keeps unknown tool fields, unknown annotation keys and the server _meta', () => {
    const weird = tool('echo_weird');
    expect(weird['vendorField']).toEqual({ kept: true });
    // The marker is hintgate's to set: echo does not resolve its tools, so none is dynamic.
    expect(weird['dynamicAnnotations']).toBeUndefined();
    expect(weird['icons']).toEqual([
      { src: 'https://example.test/icon.png', mimeType: 'image/png' },
    ]);
    expect(weird.annotations).toMatchObject({
      destructiveHint: false,
      customKey: 'kept',
      'x-vendor': { nested: [1, 2] },
    });
    expect(weird._meta).toMatchObject({ 'vendor.test/origin': 'fixture', 'vendor.test/n': 1 });
    const lookup = tool('modern_lookup');
    expect(lookup.annotations).toMatchObject({ readOnlyHint: true, futureHint: 'kept' });
    expect(lookup._meta).toMatchObject({ 'vendor.test/era': 2026 });
  });

  it('calls tools on 2025 and 2026 servers', async () => {
    expect((await rawCall(client, 'echo_echo', { text: 'hi' }))['content']).toEqual([
      { type: 'text', text: 'hi' },
    ]);
    expect((await rawCall(client, 'echo25_echo', { text: 'old' }))['content']).toEqual([
      { type: 'text', text: 'old' },
    ]);
    const lookup = await rawCall(client, 'modern_lookup', { word: 'gateway' });
    expect(lookup['structuredContent']).toEqual({ word: 'gateway' });
  });

  it('relays every content type, structured content and unknown result fields', async () => {
    const contents = await rawCall(client, 'echo25_content_types');
    expect((contents['content'] as unknown[]).map((block: Wire): unknown => block.type)).toEqual([
      'text',
      'image',
      'audio',
      'resource',
      'resource_link',
    ]);
    expect((contents['content'] as Wire[])[0]).toEqual({
      type: 'text',
      text: 'hello',
      annotations: { audience: ['user'], priority: 0.5 },
    });
    const sum = await rawCall(client, 'echo_add', { a: 2, b: 3 });
    expect(sum['structuredContent']).toEqual({ sum: 5 });
    const weird = await rawCall(client, 'echo25_weird');
    expect(weird['extraTop']).toBe('kept');
    expect(weird['_meta']).toMatchObject({ 'vendor.test/result': true });
  });

  it('relays isError results and the server JSON-RPC errors unchanged', async () => {
    const failed = await rawCall(client, 'echo_fail', { why: 'testing' });
    expect(failed).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'failed: testing' }],
    });
    await expect(rawCall(client, 'echo25_raise', { code: -32099 })).rejects.toMatchObject({
      code: -32099,
      message: expect.stringContaining('raised on purpose'),
      data: { fixture: 'echo' },
    });
  });

  it('answers an unknown tool with -32602 naming it, and keeps serving', async () => {
    await expect(rawCall(client, 'no_such_tool')).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('no_such_tool'),
    });
    expect((await rawCall(client, 'echo_echo', { text: 'still here' }))['content']).toEqual([
      { type: 'text', text: 'still here' },
    ]);
  });

  it('relays progress notifications with the client token, before the answer', async () => {
    for (const name of ['echo_slow', 'echo25_slow']) {
      // Heard on the client's transport: the SDK hands notifications to their handlers a turn
      // after it reads them, so those read together with the answer (on a busy machine, all of
      // them) find their call's progress handler gone and are dropped.
      const heard = hearProgress(client);
      const progressToken = `progress-${name}`;
      try {
        const result = await client.request(
          {
            method: 'tools/call',
            params: { name, arguments: { steps: 3, delay: 20 }, _meta: { progressToken } },
          },
          LOOSE,
        );
        expect(result['content']).toEqual([{ type: 'text', text: 'counted 3' }]);
        expect(heard.seen).toEqual([1, 2, 3].map((progress) => ({ progressToken, progress })));
      } finally {
        heard.stop();
      }
    }
  });

  it('passes a cancellation on to the server', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('enough')), 300);
    await expect(
      client.request(
        {
          method: 'tools/call',
          params: { name: 'echo25_slow', arguments: { steps: 200, delay: 20 } },
        },
        LOOSE,
        { signal: controller.signal },
      ),
    ).rejects.toThrow();
    const log = join(dir, 'data', 'logs', 'echo25.log');
    const text = await waitFor(
      () => readFileSync(log, 'utf8'),
      (content) => /slow cancelled at step/.test(content),
      5000,
    );
    expect(text).toMatch(/slow cancelled at step \d+/);
    expect((await rawCall(client, 'echo25_echo', { text: 'after' }))['content']).toEqual([
      { type: 'text', text: 'after' },
    ]);
  });

  it('relays requests for input from 2025 and 2026 servers to the client', async () => {
    expect((await rawCall(client, 'echo_ask'))['content']).toEqual([
      { type: 'text', text: 'confirmed ok=true' },
    ]);
    expect((await rawCall(client, 'modern_confirm'))['content']).toEqual([
      { type: 'text', text: 'sure=true' },
    ]);
    // Each round made once (on stdio, a 2025 client's first round is handed from the fast path
    // to the SDK's shim with its result, not made again); a 2026 client has one more, the
    // gateway's own confirmation of the destructive call. Records are written in call order, so once the
    // answered round's is there, the others are too.
    const records = await waitFor(
      () => cliJson<AuditRecord[]>(config, 'audit', '--tool', 'modern_confirm'),
      (found) => found.some((record) => record.outcome === 'ok'),
      15_000,
      200,
    );
    const rounds =
      kind === 'v2-auto' ? ['input-required', 'input-required', 'ok'] : ['input-required', 'ok'];
    expect(records.map((record) => record.outcome).sort()).toEqual(rounds);
  });

  it('passes prompts, resources and completions through, namespaced', async () => {
    const prompts = (await client.request({ method: 'prompts/list', params: {} }, LOOSE))[
      'prompts'
    ] as Wire[];
    expect(prompts.map((prompt): unknown => prompt.name)).toEqual(['echo_greet', 'echo25_greet']);
    expect(prompts[1]).toMatchObject({
      extraPromptField: 1,
      _meta: { 'dev.hintgate/prompt': { server: 'echo25', name: 'greet' } },
    });
    const greeting = await client.request(
      { method: 'prompts/get', params: { name: 'echo_greet', arguments: { who: 'Ada' } } },
      LOOSE,
    );
    expect(greeting['messages']).toEqual([
      { role: 'user', content: { type: 'text', text: 'Hello, Ada!' } },
    ]);
    const resources = (await client.request({ method: 'resources/list', params: {} }, LOOSE))[
      'resources'
    ] as Wire[];
    expect(resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          uri: 'echo://readme',
          name: 'echo25_readme',
          extraResourceField: true,
        }),
      ]),
    );
    const templates = (
      await client.request({ method: 'resources/templates/list', params: {} }, LOOSE)
    )['resourceTemplates'] as Wire[];
    expect(templates.map((template): unknown => template.uriTemplate)).toContain(
      'echo://items/{id}',
    );
    const read = await client.request(
      { method: 'resources/read', params: { uri: 'echo://items/42' } },
      LOOSE,
    );
    expect(read['contents']).toEqual([
      { uri: 'echo://items/42', mimeType: 'text/plain', text: 'content of echo://items/42' },
    ]);
    const completion = await client.request(
      {
        method: 'completion/complete',
        params: {
          ref: { type: 'ref/prompt', name: 'echo_greet' },
          argument: { name: 'who', value: 'Ad' },
        },
      },
      LOOSE,
    );
    expect(completion['completion']).toMatchObject({ values: ['Ad-completed'] });
  });
});
