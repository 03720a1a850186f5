import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JWK } from 'jose';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createMcpEndpoint } from '../../src/front/http-endpoint.js';
import { PrincipalDirectory } from '../../src/gateway/access.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { callApiRoutes } from '../../src/http/api/routes.js';
import { createHttpApp } from '../../src/http/app.js';
import { httpSecurity } from '../../src/http/auth.js';
import type { HttpListener } from '../../src/http/listen.js';
import { listen } from '../../src/http/listen.js';
import { oauthResource } from '../../src/http/oauth-resource.js';
import type { AuditRecord } from '../../src/store/types.js';
import { eventually } from '../helpers/call-path.js';
import { scratchDir } from '../helpers/config.js';
import { fixture } from '../helpers/paths.js';
import { openTestStore } from '../helpers/store.js';

const AUDIENCE = 'https://gateway.example/mcp';
const STATIC = 'static-token-0123456789ab';

/**
 * A small authorization server on loopback: its metadata (RFC 8414) and its keys (JWKS)
 * over real HTTP, and tokens signed with its private key. Counts the JWKS fetches.
 */
async function startIssuer() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
  let jwksFetches = 0;
  const server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url === '/.well-known/oauth-authorization-server') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }));
    } else if (request.url === '/jwks') {
      jwksFetches += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [jwk] }));
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const other = await generateKeyPair('ES256');
  const sign = (
    claims: Record<string, unknown>,
    options: {
      aud?: string;
      exp?: number;
      iss?: string;
      key?: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
      kid?: string;
    } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'key-1' })
      .setIssuer(options.iss ?? issuer)
      .setAudience(options.aud ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 300)
      .sign(options.key ?? privateKey);
  return {
    issuer,
    sign,
    otherKey: other.privateKey,
    jwksFetches: () => jwksFetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the HTTP front as an OAuth resource server', () => {
  let issuer: Awaited<ReturnType<typeof startIssuer>>;
  let listener: HttpListener;
  let close: () => Promise<void>;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    issuer = await startIssuer();
    const store = await openTestStore();
    const config = configSchema.parse({
      mcpServers: { echo: { command: process.execPath, args: [fixture('echo')], era: 'legacy' } },
      http: { oauth: { issuer: issuer.issuer, audience: AUDIENCE, clockToleranceSec: 30 } },
      access: { rules: [{ who: ['group:readers'], effect: 'deny', tools: ['echo.*'] }] },
    });
    const principals = new PrincipalDirectory();
    const gateway = createGateway({
      store,
      config,
      dataDir: scratchDir(),
      identity: { name: 'hintgate', version: 'test' },
      baseEnv: process.env,
      principals,
    });
    await gateway.start();
    const resource = oauthResource(config.http.oauth!);
    const endpoint = createMcpEndpoint({ backend: gateway.backend, hub: gateway.hub });
    listener = await listen(
      createHttpApp({
        endpoint,
        security: httpSecurity({
          host: '127.0.0.1',
          token: STATIC,
          verifier: resource.verify,
          challenge: resource.challenge,
          authDisabled: false,
          allowedHosts: [],
          allowedOrigins: [],
        }),
        routes: [
          ...callApiRoutes({ store, stats: () => ({}), approvers: gateway.access }),
          (app) => resource.mount(app),
        ],
        onPrincipal: (principal) => principals.remember(principal),
      }),
      '127.0.0.1',
      0,
    );
    close = async () => {
      await endpoint.close();
      await listener.close();
      await gateway.close();
      await store.close();
    };
  });
  afterAll(async () => {
    await close?.();
    await issuer?.close();
  });

  const stats = (token: string | undefined) =>
    fetch(listener.url.replace(/\/mcp$/, '/api/stats'), {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  /** An SDK client of the gateway sending `token`. */
  const connectWith = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'oauth-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listener.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };

  it('serves a client with a valid access token, its subject the principal', async () => {
    const token = await issuer.sign({ sub: 'alice@example', groups: ['staff'] });
    const client = await connectWith(token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo_echo');
    const result = await client.callTool({ name: 'echo_echo', arguments: { text: 'hi' } });
    expect(result.isError).toBeFalsy();
    await client.close();
    const records = await eventually(async () => {
      const response = await fetch(
        listener.url.replace(/\/mcp$/, '/api/audit?principal=alice@example'),
        { headers: { authorization: `Bearer ${STATIC}` } },
      );
      const body = (await response.json()) as { records: AuditRecord[] };
      return body.records.length > 0 ? body.records : undefined;
    });
    expect(records[0]).toMatchObject({ principal: 'alice@example', namespacedName: 'echo.echo' });
    // The keys were fetched once and kept.
    expect(issuer.jwksFetches()).toBe(1);
  });

  it('applies access rules to the groups the token carries', async () => {
    const token = await issuer.sign({ sub: 'rita', groups: ['readers'] });
    const client = await connectWith(token);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('echo_echo');
    await client.close();
  });

  it.each([
    ['for another audience', () => issuer.sign({ sub: 'a' }, { aud: 'https://other.example' })],
    ['from another issuer', () => issuer.sign({ sub: 'a' }, { iss: 'https://evil.example' })],
    ['expired beyond the clock tolerance', () => issuer.sign({ sub: 'a' }, { exp: now() - 120 })],
    ['signed with another key', () => issuer.sign({ sub: 'a' }, { key: issuer.otherKey })],
    ['without a subject', () => issuer.sign({})],
    ['that is no JWT at all', () => Promise.resolve('not-a-jwt-0123456789')],
  ])('refuses a token %s with 401 and the metadata URL', async (_what, token) => {
    const response = await stats(await token());
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${new URL(listener.url).origin}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`,
    );
  });

  it('accepts a token just expired within the clock tolerance, and the static token beside', async () => {
    expect((await stats(await issuer.sign({ sub: 'a' }, { exp: now() - 5 }))).status).toBe(200);
    expect((await stats(STATIC)).status).toBe(200);
    const missing = await stats(undefined);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="/);
  });

  it('serves the protected-resource metadata document without auth', async () => {
    const origin = new URL(listener.url).origin;
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: `${origin}/mcp`,
        authorization_servers: [issuer.issuer],
        bearer_methods_supported: ['header'],
        resource_name: 'hintgate',
      });
    }
  });
});
