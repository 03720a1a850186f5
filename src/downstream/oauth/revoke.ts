import type { AuthorizationServer, ClientAuth } from 'oauth4webapi';
import {
  ClientSecretBasic,
  ClientSecretPost,
  None,
  allowInsecureRequests,
  processRevocationResponse,
  revocationRequest,
} from 'oauth4webapi';
import { selectClientAuthMethod } from '@modelcontextprotocol/client';
import { errorMessage } from '../../core/errors.js';
import type { ServerOAuthSettings } from './provider.js';
import type { CredentialDocument } from './vault.js';

/** What revoking a stored login at its authorization server came to (never a token). */
export type Revocation =
  | { readonly kind: 'revoked' }
  | { readonly kind: 'nothing-held' }
  | { readonly kind: 'not-offered' }
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * Revokes a stored login's tokens at its authorization server (RFC 7009, through
 * `oauth4webapi`), when the server's metadata names a `revocation_endpoint`: the refresh
 * token first (which ends the grant at most servers), then the access token. The client
 * authenticates with the method the SDK picks for the token endpoint (`selectClientAuthMethod`,
 * among those the server supports); the endpoint must be HTTPS, or plain HTTP on loopback.
 */
export async function revokeLogin(
  document: CredentialDocument,
  settings: ServerOAuthSettings | undefined,
): Promise<Revocation> {
  const tokens = document.tokens;
  if (tokens === undefined) return { kind: 'nothing-held' };
  const metadata = document.discovery?.authorizationServerMetadata;
  // Both metadata kinds the SDK reads (RFC 8414, OpenID) may name one; it keeps every key.
  const endpoint = stringField(metadata, 'revocation_endpoint');
  const clientId = settings?.clientId ?? document.client?.client_id;
  if (metadata === undefined || endpoint === undefined || clientId === undefined)
    return { kind: 'not-offered' };
  const server: AuthorizationServer = { issuer: metadata.issuer, revocation_endpoint: endpoint };
  // The tokens go to the endpoint: over HTTPS, or plain HTTP to this machine only.
  const url = URL.parse(endpoint);
  if (url === null)
    return { kind: 'failed', reason: `its revocation endpoint "${endpoint}" is not a URL` };
  const insecure = url.protocol === 'http:';
  if (insecure && !LOOPBACK.has(url.hostname))
    return { kind: 'failed', reason: `its revocation endpoint ${endpoint} is not HTTPS` };
  // The client authenticates as at the token endpoint: the SDK's choice among the methods
  // the server supports for revocation (else for its token endpoint).
  const client =
    settings?.clientId !== undefined
      ? {
          client_id: clientId,
          ...(settings.clientSecret === undefined ? {} : { client_secret: settings.clientSecret }),
        }
      : { ...document.client, client_id: clientId };
  const supported =
    stringList(metadata, 'revocation_endpoint_auth_methods_supported') ??
    stringList(metadata, 'token_endpoint_auth_methods_supported') ??
    [];
  const method = selectClientAuthMethod(client, supported);
  const secret = client.client_secret;
  const clientAuth: ClientAuth =
    secret === undefined || method === 'none'
      ? None()
      : method === 'client_secret_post'
        ? ClientSecretPost(secret)
        : ClientSecretBasic(secret);
  const held: [string, string][] = [
    ...(tokens.refresh_token === undefined
      ? []
      : [['refresh_token', tokens.refresh_token] as [string, string]]),
    ['access_token', tokens.access_token],
  ];
  try {
    for (const [hint, token] of held) {
      const response = await revocationRequest(server, { client_id: clientId }, clientAuth, token, {
        additionalParameters: { token_type_hint: hint },
        ...(insecure ? { [allowInsecureRequests]: true } : {}),
      });
      await processRevocationResponse(response);
    }
  } catch (error) {
    return { kind: 'failed', reason: errorMessage(error) };
  }
  return { kind: 'revoked' };
}

/** Hosts a plain-HTTP revocation endpoint may be on (this machine's). */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

function stringList(value: object | undefined, key: string): string[] | undefined {
  const field = (value as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(field) && field.every((item) => typeof item === 'string')
    ? field
    : undefined;
}

function stringField(value: object | undefined, key: string): string | undefined {
  const field = (value as Record<string, unknown> | undefined)?.[key];
  return typeof field === 'string' ? field : undefined;
}
