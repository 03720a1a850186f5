import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitAnswer } from '../helpers/call-path.js';
import {
  callTool,
  connectGatewayStdio,
  elicitingClient,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { scratchDir } from '../helpers/config.js';
import { rawListTools, spawnGateway } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';
import type { PetsApi } from '../fixtures/openapi/pets-api.js';
import { startPetsApi } from '../fixtures/openapi/pets-api.js';

// Tool `_meta` and schemas, read loosely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Meta = Record<string, any>;

const FIXTURES = join(ROOT, 'test', 'fixtures', 'openapi');
const TOKEN = 'pets-token-0123456789';
const API_KEY = 'store-key-42';

/** The documents copied beside the config, named relatively (as users write them). */
function copyDocuments(dir: string): void {
  for (const file of ['pets.openapi.yaml', 'pets-schemas.yaml', 'store.openapi.json'])
    copyFileSync(join(FIXTURES, file), join(dir, file));
}

describe('OpenAPI servers through the gateway', () => {
  let api: PetsApi;
  let client: Client;
  let answer: ElicitAnswer = { action: 'decline' };
  let asked: Record<string, unknown>[];
  let tools: Record<string, unknown>[];
  const byName = (name: string) => tools.find((tool) => tool['name'] === name) ?? {};

  beforeAll(async () => {
    api = await startPetsApi(TOKEN, API_KEY);
    const dir = scratchDir();
    copyDocuments(dir);
    const config = await writeFastConfig(
      dir,
      {
        pets: {
          openapi: 'pets.openapi.yaml',
          baseUrl: '${PETS_API}/v1',
          credentials: { bearerAuth: '${PETS_TOKEN}' },
        },
        store: {
          openapi: 'store.openapi.json',
          baseUrl: '${PETS_API}/store',
          credentials: { apiKey: API_KEY },
          trust: 'trusted',
        },
      },
      {
        policy: {
          retry: { initialDelayMs: 1, maxDelayMs: 5 },
          tools: { 'pets.slow*': { timeoutMs: 300 } },
        },
      },
    );
    const eliciting = elicitingClient('legacy', () => answer);
    client = eliciting.client;
    asked = eliciting.asked;
    await connectGatewayStdio(client, config, [], { PETS_API: api.url, PETS_TOKEN: TOKEN });
    tools = await rawListTools(client);
  }, 120_000);

  afterAll(async () => {
    await client.close();
    await api.close();
  });

  it('lists one tool per operation, named by operationId or by method and path', () => {
    const names = tools.map((tool) => tool['name']).sort();
    expect(names).toEqual(
      [
        'pets_createPet',
        'pets_delete_pets_by_petId',
        'pets_getPet',
        'pets_listPets',
        'pets_post_pets_by_petId_photos',
        'pets_replacePet',
        'pets_resetStore',
        'pets_scheduleCheckup',
        'pets_slowRead',
        'pets_slowWrite',
        'pets_updatePet',
        'store_cancelOrder',
        'store_countOrders',
        'store_getOrder',
      ].sort(),
    );
  });

  it('annotates each tool from its HTTP method, as inferred, with the method as the reason', () => {
    const hints = (name: string) => {
      const annotations = byName(name)['annotations'] as Record<string, unknown>;
      return [
        annotations['readOnlyHint'],
        annotations['destructiveHint'],
        annotations['idempotentHint'],
        annotations['openWorldHint'],
      ];
    };
    // [readOnly, destructive, idempotent, openWorld]; the API is on loopback: a closed world.
    expect(hints('pets_listPets')).toEqual([true, false, true, false]);
    expect(hints('pets_getPet')).toEqual([true, false, true, false]);
    expect(hints('pets_replacePet')).toEqual([false, true, true, false]);
    expect(hints('pets_updatePet')).toEqual([false, true, false, false]);
    expect(hints('pets_delete_pets_by_petId')).toEqual([false, true, true, false]);
    expect(hints('pets_createPet')).toEqual([false, false, false, false]);
    expect(hints('store_countOrders')).toEqual([true, false, true, false]);
    // A POST whose words say it destroys is destructive.
    expect(hints('pets_resetStore')).toEqual([false, true, false, false]);
    const meta = (byName('pets_delete_pets_by_petId')['_meta'] as Meta)['dev.hintgate/tool'];
    expect(meta.sources).toMatchObject({
      readOnlyHint: 'inferred',
      destructiveHint: 'inferred',
      idempotentHint: 'inferred',
      openWorldHint: 'inferred',
    });
    expect((byName('pets_delete_pets_by_petId')['_meta'] as Meta)['dev.hintgate/openapi']).toEqual({
      method: 'DELETE',
      path: '/pets/{petId}',
      host: 'loopback',
    });
  });

  it('takes x-mcp-annotations as the operation declares them', () => {
    const tool = byName('pets_scheduleCheckup');
    expect(tool['annotations']).toMatchObject({ title: 'Book a checkup', idempotentHint: true });
    const meta = (tool['_meta'] as Meta)['dev.hintgate/tool'];
    expect(meta.sources.idempotentHint).toBe('declared');
    expect(meta.sources.destructiveHint).toBe('inferred');
  });

  it('builds input schemas from path-level and operation parameters and the request body', () => {
    expect(byName('pets_replacePet')['inputSchema']).toMatchObject({
      type: 'object',
      properties: {
        petId: { type: 'integer', description: "The pet's id." },
        name: { type: 'string' },
        tag: { type: ['string', 'null'] },
      },
      required: ['petId', 'name'],
    });
    // An optional body stays under `body` (its required fields are required only with it).
    const update = byName('pets_updatePet')['inputSchema'] as Meta;
    expect(Object.keys(update['properties'])).toEqual(['petId', 'X-Request-Note', 'body']);
    expect(byName('pets_getPet')['outputSchema']).toMatchObject({
      type: 'object',
      required: ['id', 'name'],
    });
    expect(byName('pets_listPets')['outputSchema']).toMatchObject({
      properties: { result: { type: 'array' } },
    });
  });

  it('places arguments in the path, query, headers and body, with the bearer token', async () => {
    const listed = await callTool(client, 'pets_listPets', { species: 'dog', limit: 5 });
    expect(listed['isError']).toBeUndefined();
    expect(listed['structuredContent']).toEqual({
      result: [{ id: 2, name: 'Rex', species: 'dog', tag: 'good' }],
    });
    const [list] = api.hits('GET', '/v1/pets');
    expect(list?.query).toEqual({ species: 'dog', limit: '5' });
    expect(list?.headers.authorization).toBe(`Bearer ${TOKEN}`);

    const created = await callTool(client, 'pets_createPet', { name: 'Kiwi', species: 'bird' });
    expect(created['structuredContent']).toEqual({ id: 3, name: 'Kiwi', species: 'bird' });
    expect(api.hits('POST', '/v1/pets')[0]?.body).toEqual({ name: 'Kiwi', species: 'bird' });

    answer = { action: 'accept', content: { ok: true } };
    const patched = await callTool(client, 'pets_updatePet', {
      petId: 3,
      'X-Request-Note': 'renamed',
      body: { name: 'Kiwi II' },
    });
    expect(patched['structuredContent']).toMatchObject({ id: 3, name: 'Kiwi II' });
    const [patch] = api.hits('PATCH', '/v1/pets/3');
    expect(patch?.headers['x-request-note']).toBe('renamed');
    expect(patch?.body).toEqual({ name: 'Kiwi II' });

    const photo = await callTool(client, 'pets_post_pets_by_petId_photos', {
      petId: 3,
      url: 'https://example.com/kiwi.png',
    });
    expect(photo['isError']).toBeUndefined();
    expect(api.hits('POST', '/v1/pets/3/photos')[0]?.body).toEqual({
      url: 'https://example.com/kiwi.png',
    });
  });

  it('sends an API key in the header its scheme names (OpenAPI 3.1, JSON)', async () => {
    const order = await callTool(client, 'store_getOrder', { orderId: 'o-7' });
    expect(order['structuredContent']).toEqual({ id: 'o-7', status: 'open', note: null });
    expect(api.hits('GET', '/store/orders/o-7')[0]?.headers['x-api-key']).toBe(API_KEY);
  });

  it('answers a non-2xx status with isError, the status and the API message', async () => {
    const missing = await callTool(client, 'pets_getPet', { petId: 99 });
    expect(missing['isError']).toBe(true);
    expect(textOf(missing)).toBe('GET /pets/{petId} answered HTTP 404 Not Found: no pet 99');
  });

  it('never sends a declined DELETE; sends an accepted one once', async () => {
    answer = { action: 'decline' };
    const before = asked.length;
    const declined = await callTool(client, 'pets_delete_pets_by_petId', { petId: 1 });
    expect(declined['isError']).toBe(true);
    expect(asked.length).toBe(before + 1);
    expect(api.hits('DELETE', '/v1/pets/1')).toEqual([]);

    answer = { action: 'accept', content: { ok: true } };
    const accepted = await callTool(client, 'pets_delete_pets_by_petId', { petId: 1 });
    expect(accepted['isError']).toBeUndefined();
    expect(api.hits('DELETE', '/v1/pets/1')).toHaveLength(1);
  });

  it('retries neither a GET nor a POST that timed out (a timeout is not a transport failure)', async () => {
    // Only a tool declared idempotent is retried after a timeout, and only when config says so;
    // an operation's hints are inferred from its method.
    await expect(callTool(client, 'pets_slowRead')).rejects.toThrow(/in time/);
    expect(api.hits('GET', '/v1/slow')).toHaveLength(1);
    await expect(callTool(client, 'pets_slowWrite')).rejects.toThrow(/in time/);
    expect(api.hits('POST', '/v1/slow')).toHaveLength(1);
  });
});

describe('a document that cannot be used', () => {
  it('stops the start with the server key and where in the document the problem is', async () => {
    const dir = scratchDir();
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      [
        'openapi: 3.0.3',
        'info: { title: bad, version: "1" }',
        'paths:',
        '  /pets:',
        '    get:',
        '      responses:',
        "        '200': { descriptio: typo }",
      ].join('\n'),
    );
    const config = await writeFastConfig(dir, { broken: { openapi: 'bad.yaml' } });
    const gateway = spawnGateway(['serve', '--config', config], {}, 'ignore');
    const code = await gateway.exited;
    expect(code).not.toBe(0);
    expect(gateway.stderr()).toContain(
      `mcpServers.broken.openapi: ${bad}: paths./pets.get.responses.200: must have required property 'description'`,
    );
  });
});
