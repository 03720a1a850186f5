import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { HintgateError, errorMessage } from '../core/errors.js';
import type { Principal } from '../gateway/access.js';

/** The principal of the single `http.token` (`--token-file`, `HINTGATE_TOKEN`). */
export const BEARER_PRINCIPAL = 'bearer';

/** The principal of `http.uiToken` (`HINTGATE_UI_TOKEN`), the dashboard's own token. */
export const UI_PRINCIPAL = 'ui';

/** The shortest bearer token accepted. */
const MIN_TOKEN_LENGTH = 16;

/** A bearer token and whose it is. */
export interface NamedToken {
  readonly principal: Principal;
  readonly token: string;
}

/** A token as kept for checking: its digest, never the secret. */
interface TokenDigest {
  readonly principal: Principal;
  readonly digest: Buffer;
}

/**
 * Checks a bearer token that is not one of the named tokens (an OAuth access token):
 * resolves to its principal, to undefined when it is not one, or to a refusal.
 */
export type TokenVerifier = (token: string) => Promise<Principal | undefined>;

/** Who may reach the HTTP front, decided once at start. */
export interface HttpSecurity {
  /** True when every request must carry a valid bearer token. */
  readonly authRequired: boolean;
  /** The named tokens (their digests). */
  readonly tokens: readonly TokenDigest[];
  /**
   * The dashboard's own token (`http.uiToken`, principal `ui`): it signs in to the dashboard
   * only, never a bearer token of `/mcp` or `/api`.
   */
  readonly uiToken: TokenDigest | undefined;
  /** Validates other bearer tokens (OAuth access tokens), when configured. */
  readonly verifier: TokenVerifier | undefined;
  /** What a 401 says in `WWW-Authenticate` besides `Bearer` (the resource metadata's URL). */
  readonly challenge: ((request: Request) => string) | undefined;
  /** Hostnames accepted in the Host header; undefined skips the check (wildcard bind with a token). */
  readonly allowedHosts: readonly string[] | undefined;
  /** Hostnames accepted in an Origin header (a missing Origin always passes). */
  readonly allowedOrigins: readonly string[];
}

/** What {@link httpSecurity} decides from. */
export interface HttpSecurityInput {
  /** The host the server binds to. */
  readonly host: string;
  /** The single token (principal `bearer`). */
  readonly token: string | undefined;
  /** The dashboard's own token (principal `ui`), also with auth off. */
  readonly uiToken?: string | undefined;
  /** The named tokens, their secrets read (see {@link readNamedTokens}). */
  readonly tokens?: readonly NamedToken[];
  /** OAuth access tokens, when the front is a resource server too. */
  readonly verifier?: TokenVerifier;
  readonly challenge?: (request: Request) => string;
  /** `--no-auth` / `http.auth: false`. */
  readonly authDisabled: boolean;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
}

/** True for `localhost`, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/**
 * The HTTP front's rules: a bearer token is required unless the server is bound to loopback
 * and auth was turned off explicitly (anything else is refused at start, with a message
 * saying what to do); the Host header must name the server (DNS rebinding: loopback names
 * plus configured hosts; on a wildcard bind only the configured ones, when any); an Origin,
 * when sent, must be a loopback origin (on loopback) or a configured one.
 *
 * With auth off, the named tokens still identify whoever presents one (an approver, say);
 * a request without a token is anonymous.
 */
export function httpSecurity(input: HttpSecurityInput): HttpSecurity {
  const loopback = isLoopbackHost(input.host);
  if (input.authDisabled && !loopback) {
    throw new HintgateError(
      'CONFIG_INVALID',
      `--no-auth is only allowed on a loopback address (127.0.0.1, ::1, localhost), not ${input.host}`,
    );
  }
  const named = [...(input.tokens ?? [])];
  const single = input.authDisabled ? undefined : input.token;
  if (single !== undefined && single !== '') {
    named.push({ principal: { name: BEARER_PRINCIPAL, groups: [] }, token: single });
  }
  if (!input.authDisabled && named.length === 0 && input.verifier === undefined) {
    throw new HintgateError(
      'CONFIG_INVALID',
      `--http ${input.host} needs a bearer token: set HINTGATE_TOKEN, pass --token-file <file>, or name tokens in http.tokens` +
        (loopback ? ', or turn auth off on loopback with --no-auth' : ''),
    );
  }
  const seen = new Map<string, string>();
  for (const { principal, token } of named) {
    const other = seen.get(token);
    if (other !== undefined)
      throw new HintgateError(
        'CONFIG_INVALID',
        `principals "${other}" and "${principal.name}" have the same token; give each its own`,
      );
    seen.set(token, principal.name);
  }
  const uiToken = input.uiToken === '' ? undefined : input.uiToken;
  if (uiToken !== undefined) {
    if (uiToken.length < MIN_TOKEN_LENGTH)
      throw new HintgateError(
        'CONFIG_INVALID',
        `http.uiToken: expected a token of at least ${MIN_TOKEN_LENGTH} characters`,
      );
    const other = seen.get(uiToken) ?? (input.token === uiToken ? BEARER_PRINCIPAL : undefined);
    if (other !== undefined)
      throw new HintgateError(
        'CONFIG_INVALID',
        `http.uiToken is the token of principal "${other}"; give the dashboard a token of its own`,
      );
    if (named.some((entry) => entry.principal.name === UI_PRINCIPAL))
      throw new HintgateError(
        'CONFIG_INVALID',
        `http.tokens: the name "${UI_PRINCIPAL}" is http.uiToken's principal; name that token otherwise`,
      );
  }
  const bare = input.host.replace(/^\[|\]$/g, '');
  const wildcard = bare === '0.0.0.0' || bare === '::';
  const bound = wildcard ? [] : [isIP(bare) === 6 ? `[${bare}]` : bare];
  const hosts = [...bound, ...input.allowedHosts];
  const allowedHosts = loopback
    ? [...localhostAllowedHostnames(), ...hosts]
    : wildcard && input.allowedHosts.length === 0
      ? undefined
      : hosts;
  const allowedOrigins = [
    ...(loopback ? localhostAllowedHostnames() : []),
    ...input.allowedOrigins,
  ];
  return {
    authRequired: !input.authDisabled,
    tokens: named.map(({ principal, token }) => ({ principal, digest: digestOf(token) })),
    uiToken:
      uiToken === undefined
        ? undefined
        : { principal: { name: UI_PRINCIPAL, groups: [] }, digest: digestOf(uiToken) },
    verifier: input.verifier,
    challenge: input.challenge,
    allowedHosts,
    allowedOrigins,
  };
}

/** The entries of `http.tokens` as config holds them. */
export interface TokenEntry {
  readonly name: string;
  readonly token?: string | undefined;
  readonly tokenFile?: string | undefined;
  readonly tokenEnv?: string | undefined;
  readonly groups: readonly string[];
}

/**
 * Reads the secret of each named token: written in config, in a file (relative to
 * `baseDir`, surrounding whitespace trimmed) or in an environment variable. A file that
 * cannot be read, a variable that is not set, or a token shorter than 16 characters is a
 * CONFIG_INVALID error naming the principal.
 */
export function readNamedTokens(
  entries: readonly TokenEntry[],
  env: Readonly<Record<string, string | undefined>>,
  baseDir: string,
): NamedToken[] {
  return entries.map((entry) => {
    const where = `http.tokens "${entry.name}"`;
    let token: string | undefined = entry.token;
    if (entry.tokenFile !== undefined) token = readTokenFile(entry.tokenFile, baseDir, where);
    if (entry.tokenEnv !== undefined) {
      token = env[entry.tokenEnv]?.trim();
      if (token === undefined || token === '')
        throw new HintgateError(
          'CONFIG_INVALID',
          `${where}: the environment variable ${entry.tokenEnv} is not set`,
        );
    }
    if (token === undefined || token.length < MIN_TOKEN_LENGTH)
      throw new HintgateError(
        'CONFIG_INVALID',
        `${where}: expected a token of at least ${MIN_TOKEN_LENGTH} characters`,
      );
    return { principal: { name: entry.name, groups: entry.groups }, token };
  });
}

/** A token kept in a file (`--token-file`, `tokenFile`), whitespace around it trimmed. */
export function readTokenFile(file: string, baseDir: string, what: string): string {
  const path = resolvePath(baseDir, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HintgateError(
      'CONFIG_INVALID',
      `${what}: cannot read the token file ${path}: ${errorMessage(error)}`,
    );
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_LENGTH)
    throw new HintgateError(
      'CONFIG_INVALID',
      `${what}: the token in ${path} is shorter than ${MIN_TOKEN_LENGTH} characters`,
    );
  return token;
}

/**
 * The principal a bearer token belongs to among the named tokens, or undefined. Every
 * token is compared, each in constant time (digests, so lengths never leak).
 */
export function principalForToken(
  security: Pick<HttpSecurity, 'tokens'>,
  token: string,
): Principal | undefined {
  const digest = digestOf(token);
  let found: Principal | undefined;
  for (const entry of security.tokens) {
    if (timingSafeEqual(digest, entry.digest)) found = entry.principal;
  }
  return found;
}

/**
 * The principal a secret typed at the dashboard's login page signs in as: a named token's
 * (the `/mcp` token included) or the dashboard's own `http.uiToken`'s, or undefined. Every
 * token is compared, each in constant time.
 */
export function dashboardPrincipalFor(
  security: Pick<HttpSecurity, 'tokens' | 'uiToken'>,
  secret: string,
): Principal | undefined {
  const named = principalForToken(security, secret);
  const ui =
    security.uiToken !== undefined && timingSafeEqual(digestOf(secret), security.uiToken.digest)
      ? security.uiToken.principal
      : undefined;
  return named ?? ui;
}

/** Who made a request that passed the checks: a principal, or nobody (auth off, no token). */
export interface Authenticated {
  readonly principal: Principal | undefined;
}

/**
 * Checks one request: Host and Origin (403), then the bearer token (401 when one is needed
 * and missing, or when one is sent and is no one's). Resolves to the request's principal or
 * to the refusal to send.
 */
export async function authenticate(
  request: Request,
  security: HttpSecurity,
): Promise<Authenticated | Response> {
  const refused = checkOrigin(request, security);
  if (refused !== undefined) return refused;
  const header = request.headers.get('authorization');
  if (header === null || header.trim() === '') {
    return security.authRequired
      ? unauthorized(request, security, 'Unauthorized: bearer token required', undefined)
      : { principal: undefined };
  }
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (match?.[1] === undefined)
    return unauthorized(
      request,
      security,
      'Unauthorized: expected "Authorization: Bearer <token>"',
      'invalid_request',
    );
  const token = match[1];
  const named = principalForToken(security, token);
  if (named !== undefined) return { principal: named };
  if (security.verifier !== undefined) {
    const verified = await security.verifier(token).catch(() => undefined);
    if (verified !== undefined) return { principal: verified };
  }
  return unauthorized(request, security, 'Unauthorized: invalid bearer token', 'invalid_token');
}

/**
 * Checks one request against the named tokens only (no OAuth; the admin endpoint):
 * the refusal to send, or undefined when it may proceed.
 */
export function checkRequest(request: Request, security: HttpSecurity): Response | undefined {
  const refused = checkOrigin(request, security);
  if (refused !== undefined) return refused;
  if (!security.authRequired) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec((request.headers.get('authorization') ?? '').trim());
  if (match?.[1] !== undefined && principalForToken(security, match[1]) !== undefined)
    return undefined;
  return unauthorized(
    request,
    security,
    match === null ? 'Unauthorized: bearer token required' : 'Unauthorized: invalid bearer token',
    match === null ? undefined : 'invalid_token',
  );
}

export function checkOrigin(request: Request, security: HttpSecurity): Response | undefined {
  if (security.allowedHosts !== undefined) {
    const refused = hostHeaderValidationResponse(request, [...security.allowedHosts]);
    if (refused !== undefined) return refused;
  }
  return originValidationResponse(request, [...security.allowedOrigins]);
}

/** A 401 with the `WWW-Authenticate` challenge RFC 6750 (and RFC 9728) describe. */
function unauthorized(
  request: Request,
  security: HttpSecurity,
  message: string,
  error: 'invalid_token' | 'invalid_request' | undefined,
): Response {
  const params = [
    ...(security.challenge === undefined ? [] : [security.challenge(request)]),
    ...(error === undefined ? [] : [`error="${error}"`]),
  ];
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message }, id: null },
    {
      status: 401,
      headers: {
        'WWW-Authenticate': params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`,
      },
    },
  );
}

function digestOf(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
