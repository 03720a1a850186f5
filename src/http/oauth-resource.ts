import type { Context, Hono } from 'hono';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { OAuthResourceConfig } from '../config/schema.js';
import { HintgateError, errorMessage } from '../core/errors.js';
import type { Principal } from '../gateway/access.js';
import type { TokenVerifier } from './auth.js';

/** The path of the protected-resource metadata document (RFC 9728). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The longest principal name taken from a token. */
const MAX_NAME = 256;
/** The most groups taken from a token. */
const MAX_GROUPS = 100;

/** What the front needs to be an OAuth resource server. */
export interface OAuthResource {
  /** Validates an access token: its principal, or undefined when it is not valid here. */
  readonly verify: TokenVerifier;
  /** The `WWW-Authenticate` parameters of a 401 for a request (`resource_metadata="…"`). */
  readonly challenge: (request: Request) => string;
  /** Serves the protected-resource metadata document. */
  readonly mount: (app: Hono) => void;
}

/**
 * The HTTP front as an OAuth resource server: access tokens are JWTs of the configured
 * issuer, verified with `jose` against the issuer's keys (fetched over HTTP from `jwksUri`
 * or the issuer's metadata, cached, fetched again for a key id not seen yet), with the
 * audience, issuer, expiry and not-before checked within the clock tolerance. The principal
 * is the `principalClaim` (default `sub`), its groups the `groupsClaim`.
 */
export function oauthResource(
  config: OAuthResourceConfig,
  fetchImpl: typeof fetch = fetch,
): OAuthResource {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keySet = (): Promise<JWTVerifyGetKey> => {
    keys ??= jwksUrl(config, fetchImpl).then((url) =>
      createRemoteJWKSet(url, { cooldownDuration: 30_000, cacheMaxAge: 600_000 }),
    );
    // A failed discovery is tried again on the next token.
    keys.catch(() => (keys = undefined));
    return keys;
  };
  const resourceOf = (request: Request): string =>
    config.resource ?? `${new URL(request.url).origin}/mcp`;
  const metadataUrl = (request: Request): string => {
    const resource = new URL(resourceOf(request));
    return `${resource.origin}${RESOURCE_METADATA_PATH}${resource.pathname === '/' ? '' : resource.pathname}`;
  };
  return {
    verify: async (token) => {
      const { payload } = await jwtVerify(token, await keySet(), {
        issuer: config.issuer,
        audience: config.audience,
        clockTolerance: config.clockToleranceSec,
        requiredClaims: ['exp'],
      });
      return principalOf(payload, config);
    },
    challenge: (request) => `resource_metadata="${metadataUrl(request)}"`,
    mount: (app) => {
      const serve = (c: Context) =>
        c.json({
          resource: resourceOf(c.req.raw),
          authorization_servers: [config.issuer],
          bearer_methods_supported: ['header'],
          resource_name: 'hintgate',
          ...(config.scopes.length === 0 ? {} : { scopes_supported: config.scopes }),
        });
      app.get(RESOURCE_METADATA_PATH, serve);
      app.get(`${RESOURCE_METADATA_PATH}/*`, serve);
    },
  };
}

/** The principal a verified token names, or undefined when it names none. */
function principalOf(payload: JWTPayload, config: OAuthResourceConfig): Principal | undefined {
  const name = payload[config.principalClaim];
  if (typeof name !== 'string' || name === '' || name.length > MAX_NAME) return undefined;
  const claim = payload[config.groupsClaim];
  const groups = (
    Array.isArray(claim) ? claim : typeof claim === 'string' ? claim.split(' ') : []
  ).filter((group): group is string => typeof group === 'string' && group !== '');
  return { name, groups: groups.slice(0, MAX_GROUPS) };
}

/**
 * Where the issuer's keys are: `jwksUri`, else `jwks_uri` from the issuer's authorization
 * server metadata (RFC 8414), else from its OpenID configuration.
 */
async function jwksUrl(config: OAuthResourceConfig, fetchImpl: typeof fetch): Promise<URL> {
  if (config.jwksUri !== undefined) return new URL(config.jwksUri);
  const issuer = new URL(config.issuer);
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  const candidates = [
    `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.origin}${path}/.well-known/openid-configuration`,
  ];
  const problems: string[] = [];
  for (const candidate of candidates) {
    try {
      const response = await fetchImpl(candidate, { headers: { accept: 'application/json' } });
      if (!response.ok) {
        problems.push(`${candidate}: HTTP ${response.status}`);
        continue;
      }
      const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (metadata.issuer !== config.issuer) {
        problems.push(`${candidate}: names issuer ${JSON.stringify(metadata.issuer)}`);
        continue;
      }
      if (typeof metadata.jwks_uri !== 'string') {
        problems.push(`${candidate}: no jwks_uri`);
        continue;
      }
      return new URL(metadata.jwks_uri);
    } catch (error) {
      problems.push(`${candidate}: ${errorMessage(error)}`);
    }
  }
  throw new HintgateError(
    'CONFIG_INVALID',
    `http.oauth: cannot find the keys of ${config.issuer} (${problems.join('; ')}); set http.oauth.jwksUri`,
  );
}
