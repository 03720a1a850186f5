import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { revokeLogin } from '../../../src/downstream/oauth/revoke.js';
import type { CredentialDocument } from '../../../src/downstream/oauth/vault.js';

interface Seen {
  readonly authorization: string | undefined;
  readonly body: URLSearchParams;
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** A revocation endpoint on loopback that records each request and answers 200. */
async function endpoint(): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ authorization: request.headers.authorization, body: new URLSearchParams(body) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/revoke`, seen };
}

function login(
  revocation: string,
  supported?: string[],
  registered: Record<string, unknown> = {},
): CredentialDocument {
  return {
    version: 1,
    tokens: { access_token: 'access-1', refresh_token: 'refresh-1', token_type: 'Bearer' },
    client: { client_id: 'registered', client_secret: 'shh', redirect_uris: [], ...registered },
    discovery: {
      authorizationServerUrl: 'http://127.0.0.1/',
      authorizationServerMetadata: {
        issuer: 'http://127.0.0.1/',
        authorization_endpoint: 'http://127.0.0.1/authorize',
        token_endpoint: 'http://127.0.0.1/token',
        response_types_supported: ['code'],
        revocation_endpoint: revocation,
        ...(supported === undefined
          ? {}
          : { revocation_endpoint_auth_methods_supported: supported }),
      },
    },
  };
}

describe('revokeLogin', () => {
  it('revokes the refresh token, then the access token, with the method the server supports', async () => {
    const { url, seen } = await endpoint();
    expect(await revokeLogin(login(url, ['client_secret_post']), undefined)).toEqual({
      kind: 'revoked',
    });
    expect(seen.map((each) => each.body.get('token'))).toEqual(['refresh-1', 'access-1']);
    expect(seen.map((each) => each.body.get('token_type_hint'))).toEqual([
      'refresh_token',
      'access_token',
    ]);
    // client_secret_post: the secret in the body, no Basic header.
    expect(seen[0]?.authorization).toBeUndefined();
    expect(seen[0]?.body.get('client_secret')).toBe('shh');
  });

  it('uses Basic where the server supports it, and a configured client over a registered one', async () => {
    const { url, seen } = await endpoint();
    const settings = { clientId: 'configured', clientSecret: 'configured-secret' };
    expect(await revokeLogin(login(url), settings as never)).toEqual({ kind: 'revoked' });
    const basic = Buffer.from(seen[0]?.authorization?.replace(/^Basic /, '') ?? '', 'base64');
    // RFC 6749 2.3.1: id and secret form-encoded, then Basic.
    expect(decodeURIComponent(basic.toString())).toBe('configured:configured-secret');
    expect(seen[0]?.body.get('client_secret')).toBeNull();
  });

  it("uses a registered client's own method when the server lists none", async () => {
    const { url, seen } = await endpoint();
    const document = login(url, undefined, { token_endpoint_auth_method: 'client_secret_post' });
    expect(await revokeLogin(document, undefined)).toEqual({ kind: 'revoked' });
    expect(seen[0]?.authorization).toBeUndefined();
    expect(seen[0]?.body.get('client_secret')).toBe('shh');
  });

  it('sends no token to a plain-HTTP endpoint off this machine, nor to no URL', async () => {
    expect(await revokeLogin(login('not a url'), undefined)).toEqual({
      kind: 'failed',
      reason: 'its revocation endpoint "not a url" is not a URL',
    });
    const result = await revokeLogin(login('http://auth.example.com/revoke'), undefined);
    expect(result).toEqual({
      kind: 'failed',
      reason: 'its revocation endpoint http://auth.example.com/revoke is not HTTPS',
    });
  });

  it('says when the server offers no revocation, or nothing is held', async () => {
    const offered = login('http://127.0.0.1:1/revoke');
    const metadata = { ...offered.discovery?.authorizationServerMetadata } as Record<
      string,
      unknown
    >;
    delete metadata['revocation_endpoint'];
    const without = {
      ...offered,
      discovery: { ...offered.discovery, authorizationServerMetadata: metadata },
    } as CredentialDocument;
    expect(await revokeLogin(without, undefined)).toEqual({ kind: 'not-offered' });
    expect(await revokeLogin({ version: 1 }, undefined)).toEqual({ kind: 'nothing-held' });
  });
});
