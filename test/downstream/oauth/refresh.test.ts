import type { AuthProvider } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionAuthOptions } from '../../../src/downstream/oauth/connection-auth.js';
import { connectionAuth } from '../../../src/downstream/oauth/connection-auth.js';
import { loginToServer } from '../../../src/downstream/oauth/login.js';
import { StoredOAuthProvider } from '../../../src/downstream/oauth/provider.js';
import { Sealer } from '../../../src/downstream/oauth/seal.js';
import { CredentialVault } from '../../../src/downstream/oauth/vault.js';
import type { OAuthFixture } from '../../helpers/oauth.js';
import { browse, startOAuthFixture } from '../../helpers/oauth.js';
import { sharedStore, uniqueName } from '../../store/helpers/harness.js';

/**
 * The gateway's side of a downstream OAuth login against a real authorization server
 * (oidc-provider, which rotates the refresh token of a public client at every refresh and
 * revokes the whole grant when a spent one is used again) and a PostgreSQL store.
 */

const ACCESS_TTL = 2;
const sealer = Sealer.fromSecret('a test secret of more than sixteen characters');
const store = sharedStore('postgres');
let fixture: OAuthFixture;

beforeAll(async () => {
  await store.setup();
  fixture = await startOAuthFixture(ACCESS_TTL);
}, 30_000);

afterAll(async () => {
  await fixture?.stop();
  await store.teardown();
});

async function loggedIn(server: string): Promise<CredentialVault> {
  const vault = new CredentialVault(store.store(), sealer);
  let page: Promise<unknown> | undefined;
  await loginToServer({
    server,
    url: fixture.mcp,
    principal: '',
    vault,
    settings: undefined,
    timeoutMs: 20_000,
    showUrl: (url) => {
      page = browse(url);
    },
  });
  await page;
  return vault;
}

/** Whether the MCP server accepts an access token (initialize answers 200). */
async function accepted(token: string | undefined): Promise<boolean> {
  const response = await fetch(fixture.mcp, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${String(token)}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    }),
  });
  await response.body?.cancel();
  return response.status === 200;
}

/** The auth of one gateway connection to the fixture's MCP server, over `vault`'s login. */
const authOver = (
  server: string,
  vault: CredentialVault,
  more: Partial<ConnectionAuthOptions> = {},
) =>
  connectionAuth({ server, url: fixture.mcp, principal: '', vault, settings: undefined, ...more });

const expire = () => new Promise((resolve) => setTimeout(resolve, ACCESS_TTL * 1000 + 300));

describe('downstream OAuth refresh in the gateway', () => {
  it('connections refreshing the same login at once spend the refresh token once; the login survives', async () => {
    const server = uniqueName('srv');
    const vault = await loggedIn(server);
    const lost: Error[] = [];
    const connect = (): AuthProvider =>
      authOver(server, vault, { onLoginRequired: (error) => lost.push(error) });
    const connections = [connect(), connect(), connect()];
    // Loaded while the token is fresh, as running connections are.
    const first = await Promise.all(connections.map((c) => c.token()));
    expect(new Set(first).size).toBe(1);
    for (let round = 1; round <= 2; round++) {
      const before = (await fixture.stats()).refresh_token;
      await expire();
      const tokens = await Promise.all(connections.map((c) => c.token()));
      expect(new Set(tokens).size).toBe(1);
      expect(tokens[0]).not.toBe(first[0]);
      expect((await fixture.stats()).refresh_token).toBe(before + 1);
      expect(await accepted(tokens[0])).toBe(true);
      expect((await vault.load(server, ''))?.tokens?.access_token).toBe(tokens[0]);
    }
    expect(lost).toEqual([]);
  }, 30_000);

  it('two processes (two store clients) refreshing one login at once spend its refresh token once; the login survives', async () => {
    const server = uniqueName('srv');
    const vault = await loggedIn(server);
    // A second client of the same database, as another gateway has: its own pool, its own
    // vault, its own provider (nothing shared in memory with the first).
    const second = await store.harness().open();
    try {
      const lost: Error[] = [];
      const connect = (each: CredentialVault): AuthProvider =>
        authOver(server, each, { onLoginRequired: (error) => lost.push(error) });
      const gateways = [connect(vault), connect(new CredentialVault(second, sealer))];
      const first = await Promise.all(gateways.map((g) => g.token()));
      expect(new Set(first).size).toBe(1);
      for (let round = 1; round <= 2; round++) {
        const before = (await fixture.stats()).refresh_token;
        await expire();
        const tokens = await Promise.all(gateways.map((g) => g.token()));
        expect(new Set(tokens).size).toBe(1);
        expect(tokens[0]).not.toBe(first[0]);
        expect((await fixture.stats()).refresh_token).toBe(before + 1);
        expect(await accepted(tokens[0])).toBe(true);
      }
      expect(lost).toEqual([]);
    } finally {
      await second.close();
    }
  }, 30_000);

  it('a 401 is judged against the login stored now: a newer login is used, without a refresh', async () => {
    const server = uniqueName('srv');
    const vault = await loggedIn(server);
    const lost: Error[] = [];
    const auth = authOver(server, vault, {
      refreshAheadMs: 0,
      onLoginRequired: (error) => lost.push(error),
    });
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(fixture.mcp), { authProvider: auth }),
    );
    try {
      const first = await auth.token();
      // Another process logs in anew; the old grant is gone (its refresh token too).
      await fixture.revokeAll();
      await loggedIn(server);
      const refreshes = (await fixture.stats()).refresh_token;
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'you are alice' }]);
      const now = await auth.token();
      expect(now).not.toBe(first);
      expect((await vault.load(server, ''))?.tokens?.access_token).toBe(now);
      expect((await fixture.stats()).refresh_token).toBe(refreshes);
      expect(lost).toEqual([]);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('a refused refresh does not overwrite newer tokens another gateway stored', async () => {
    const server = uniqueName('srv');
    const vault = await loggedIn(server);
    // Two gateways on one store: each its own vault and provider.
    const other = new CredentialVault(store.store(), sealer);
    const provider = new StoredOAuthProvider({
      server,
      principal: '',
      vault: other,
      settings: undefined,
      redirectUrl: 'http://127.0.0.1/unused',
    });
    const held = await provider.load();
    await expire();
    expect(await authOver(server, vault).token()).not.toBe(held.tokens?.access_token);
    const newer = await vault.load(server, '');
    // What the SDK does when its refresh token was refused (invalid_grant).
    await provider.invalidateCredentials('tokens');
    expect(await vault.load(server, '')).toEqual(newer);
    expect(provider.tokens()).toEqual(newer?.tokens);
  }, 30_000);

  it('an authorization server that cannot be reached fails the refresh naming it, and keeps the login', async () => {
    const server = uniqueName('srv');
    const vault = await loggedIn(server);
    const lost: Error[] = [];
    const auth = authOver(server, vault, { onLoginRequired: (error) => lost.push(error) });
    await auth.token();
    const stored = await vault.load(server, '');
    await fixture.stop();
    await expire();
    const failure = await auth.token().then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(
      new RegExp(
        `could not refresh the OAuth token of server "${server}": http://127\\.0\\.0\\.1:\\d+/token cannot be reached`,
      ),
    );
    expect(failure?.message).not.toContain('auth login');
    expect(lost).toEqual([]);
    expect(await vault.load(server, '')).toEqual(stored);
  }, 30_000);
});
