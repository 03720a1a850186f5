import type { AuthorizationServer, ClientAuth } from 'oauth4webapi';
import {
  ClientSecretBasic,
  ClientSecretPost,
  None,
  allowInsecureRequests,
  processRevocationResponse,
  revocationRequest,
} from 'oauth4webapi';
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
 * authenticates as it did at the token endpoint (a configured client's secret, else the
 * dynamic registration's method).
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
  const secret = settings?.clientSecret ?? document.client?.client_secret;
  const method =
    settings?.clientId !== undefined
      ? secret === undefined
        ? 'none'
        : 'client_secret_basic'
      : (stringField(document.client, 'token_endpoint_auth_method') ??
        (secret === undefined ? 'none' : 'client_secret_basic'));
  const clientAuth: ClientAuth =
    secret === undefined || method === 'none'
      ? None()
      : method === 'client_secret_post'
        ? ClientSecretPost(secret)
        : ClientSecretBasic(secret);
  // The tokens were obtained from this server over the same scheme; loopback ones in tests.
  const insecure = new URL(endpoint).protocol === 'http:';
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

function stringField(value: object | undefined, key: string): string | undefined {
  const field = (value as Record<string, unknown> | undefined)?.[key];
  return typeof field === 'string' ? field : undefined;
}
