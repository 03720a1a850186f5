import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../../src/config/load.js';
import { parseConfig } from '../../../src/config/load.js';
import { hostKindOf } from '../../../src/downstream/openapi/annotations.js';
import {
  OpenApiDocumentError,
  loadOpenApiDocument,
} from '../../../src/downstream/openapi/document.js';
import {
  compilePattern,
  convertDocument,
  derivedName,
} from '../../../src/downstream/openapi/operations.js';
import { ROOT } from '../../helpers/paths.js';

const PETS = join(ROOT, 'test', 'fixtures', 'openapi', 'pets.openapi.yaml');
const STORE = join(ROOT, 'test', 'fixtures', 'openapi', 'store.openapi.json');

describe('convertDocument', () => {
  it('keeps the operations include names and drops those exclude names', async () => {
    const document = await loadOpenApiDocument(PETS, { timeoutMs: 5_000 });
    const names = (include?: string[], exclude?: string[]) =>
      convertDocument(document, { include, exclude }).map((tool) => tool.tool['name']);
    expect(names(['admin', 'getPet'])).toEqual(['getPet', 'resetStore']);
    expect(names(['GET /pets/*'])).toEqual(['getPet']);
    expect(names(['/pets/**'], ['pets'])).toEqual(['post_pets_by_petId_photos']);
  }, 30_000);

  it("takes the document's server URL unless one is configured", async () => {
    const document = await loadOpenApiDocument(STORE, { timeoutMs: 5_000 });
    expect(convertDocument(document)[0]?.plan.baseUrl).toBe('http://127.0.0.1:9/store');
    const configured = convertDocument(document, { baseUrl: 'https://shop.example.com/api' });
    expect(configured[0]?.plan.baseUrl).toBe('https://shop.example.com/api');
    expect(configured[0]?.tool['_meta']).toEqual({
      'dev.hintgate/openapi': {
        method: 'GET',
        path: '/orders/{orderId}',
        operationId: 'getOrder',
        host: 'external',
      },
    });
  }, 30_000);
});

describe('names and patterns', () => {
  it.each([
    ['get', '/pets/{petId}/photos', 'get_pets_by_petId_photos'],
    ['DELETE', '/', 'delete_root'],
    ['post', '/a/b-c/{x.y}', 'post_a_b-c_by_x.y'],
  ])('derives %s %s as %s', (method, path, name) => {
    expect(derivedName(method, path)).toBe(name);
  });

  it('matches path globs segment by segment, braces literal', () => {
    const what = (method: string, path: string) => ({
      method,
      path,
      operationId: undefined,
      tags: [],
    });
    expect(compilePattern('/pets/*')(what('GET', '/pets/{id}'))).toBe(true);
    expect(compilePattern('/pets/*')(what('GET', '/pets/{id}/photos'))).toBe(false);
    expect(compilePattern('/pets/{id}')(what('PUT', '/pets/{id}'))).toBe(true);
    expect(compilePattern('delete /pets/**')(what('GET', '/pets/1'))).toBe(false);
  });

  it.each([
    ['http://localhost:8080/api', 'loopback'],
    ['http://127.0.0.1:9', 'loopback'],
    ['http://[::1]:3000', 'loopback'],
    ['http://10.2.3.4', 'private'],
    ['https://billing.internal/v1', 'private'],
    ['https://api.github.com', 'external'],
    ['https://[2001:db8::1]/', 'external'],
  ])('counts %s as %s', (url, kind) => {
    expect(hostKindOf(url)).toBe(kind);
  });
});

describe('documents that cannot be used', () => {
  it('names a file it cannot read', async () => {
    const error = await loadOpenApiDocument(join(ROOT, 'test', 'fixtures', 'nope.yaml'), {
      timeoutMs: 1_000,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenApiDocumentError);
    expect((error as Error).message).toMatch(/nope\.yaml: .*no such file/i);
  });
});

describe('the openapi server kind in config', () => {
  const parse = (server: Record<string, unknown>) =>
    parseConfig(JSON.stringify({ mcpServers: { api: server } }), '/etc/hintgate/config.json', {
      env: { API_TOKEN: 't0k3n', API_HOST: 'https://api.example.com' },
    });

  it('reads a relative document path from the config directory and expands variables', () => {
    const { config } = parse({
      openapi: 'apis/pets.yaml',
      baseUrl: '${API_HOST}/v1',
      credentials: { bearerAuth: '${API_TOKEN}' },
    });
    expect(config.mcpServers['api']).toMatchObject({
      openapi: '/etc/hintgate/apis/pets.yaml',
      baseUrl: 'https://api.example.com/v1',
      credentials: { bearerAuth: 't0k3n' },
    });
    expect(
      parse({ openapi: 'https://x.example.com/openapi.json' }).config.mcpServers['api']?.openapi,
    ).toBe('https://x.example.com/openapi.json');
  });

  it('refuses an openapi server with a transport of another kind, and its keys elsewhere', () => {
    const issues = (server: Record<string, unknown>) => {
      try {
        parse(server);
        return [];
      } catch (error) {
        return (error as ConfigError).issues.map((issue) => `${issue.path}: ${issue.message}`);
      }
    };
    expect(issues({ openapi: 'a.yaml', command: 'node' })).toEqual([
      'mcpServers.api.command: has both "openapi" and "command"; keep one',
    ]);
    expect(issues({ command: 'node', include: ['x'] })).toEqual([
      'mcpServers.api.include: "include" needs "openapi"',
    ]);
  });
});
