import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { HintgateError } from '../core/errors.js';

/** Who may reach the HTTP front, decided once at start. */
export interface HttpSecurity {
  /**
   * The bearer token clients must send (its principal is `bearer`); undefined when auth is off
   * on loopback, or when only named tokens are configured.
   */
  readonly token: string | undefined;
  /** Named tokens: each authenticates the principal of its name. */
  readonly tokens: Readonly<Record<string, string>>;
  /** Hostnames accepted in the Host header; undefined skips the check (wildcard bind with a token). */
  readonly allowedHosts: readonly string[] | undefined;
  /** Hostnames accepted in an Origin header (a missing Origin always passes). */
  readonly allowedOrigins: readonly string[];
}

/** What {@link httpSecurity} decides from. */
export interface HttpSecurityInput {
  /** The host the server binds to. */
  readonly host: string;
  readonly token: string | undefined;
  /** `http.tokens`: principal name → token. */
  readonly tokens?: Readonly<Record<string, string>> | undefined;
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
 */
export function httpSecurity(input: HttpSecurityInput): HttpSecurity {
  const loopback = isLoopbackHost(input.host);
  if (input.authDisabled && !loopback) {
    throw new HintgateError(
      'CONFIG_INVALID',
      `--no-auth is only allowed on a loopback address (127.0.0.1, ::1, localhost), not ${input.host}`,
    );
  }
  const token = input.authDisabled ? undefined : input.token;
  const tokens = input.authDisabled ? {} : (input.tokens ?? {});
  const seen = new Map<string, string>(input.token === undefined ? [] : [[input.token, 'token']]);
  for (const [name, value] of Object.entries(tokens)) {
    const other = seen.get(value);
    if (other !== undefined)
      throw new HintgateError(
        'CONFIG_INVALID',
        `http.tokens.${name} is the same token as ${other === 'token' ? 'http.token (--token)' : `http.tokens.${other}`}: give each principal its own`,
      );
    seen.set(value, name);
  }
  if (!input.authDisabled && (token === undefined || token === '') && !hasTokens(tokens)) {
    throw new HintgateError(
      'CONFIG_INVALID',
      `--http ${input.host} needs a bearer token: pass --token <token> or set HINTGATE_TOKEN` +
        (loopback ? ', or turn auth off on loopback with --no-auth' : ''),
    );
  }
  const bare = input.host.replace(/^\[|\]$/g, '');
  const wildcard = bare === '0.0.0.0' || bare === '::';
  const bound = wildcard ? [] : [isIP(bare) === 6 ? `[${bare}]` : bare];
  const named = [...bound, ...input.allowedHosts];
  const allowedHosts = loopback
    ? [...localhostAllowedHostnames(), ...named]
    : wildcard && input.allowedHosts.length === 0
      ? undefined
      : named;
  const allowedOrigins = [
    ...(loopback ? localhostAllowedHostnames() : []),
    ...input.allowedOrigins,
  ];
  return { token, tokens, allowedHosts, allowedOrigins };
}

function hasTokens(tokens: Readonly<Record<string, string>>): boolean {
  return Object.keys(tokens).length > 0;
}

/** The principal of the plain `--token` / `http.token`. */
export const TOKEN_PRINCIPAL = 'bearer';

/** True when requests must carry a bearer token. */
export function authRequired(security: HttpSecurity): boolean {
  return security.token !== undefined || hasTokens(security.tokens);
}

/**
 * Who sent a request that passed {@link checkRequest}: the name of its named token, `bearer`
 * for the plain token, undefined without auth.
 */
export function requestPrincipal(request: Request, security: HttpSecurity): string | undefined {
  if (!authRequired(security)) return undefined;
  const given = bearerOf(request);
  if (given === undefined) return undefined;
  // Every token is compared, so the time taken does not tell which one matched.
  let found: string | undefined;
  if (security.token !== undefined && sameSecret(given, security.token)) found = TOKEN_PRINCIPAL;
  for (const [name, token] of Object.entries(security.tokens))
    if (sameSecret(given, token) && found === undefined) found = name;
  return found;
}

function bearerOf(request: Request): string | undefined {
  const header = request.headers.get('authorization') ?? '';
  return /^Bearer\s+(.+)$/i.exec(header.trim())?.[1];
}

/**
 * Checks one request; returns the refusal to send (403 for Host or Origin, 401 for a missing
 * or wrong token) or undefined when it may proceed.
 */
export function checkRequest(request: Request, security: HttpSecurity): Response | undefined {
  if (security.allowedHosts !== undefined) {
    const refused = hostHeaderValidationResponse(request, [...security.allowedHosts]);
    if (refused !== undefined) return refused;
  }
  const refused = originValidationResponse(request, [...security.allowedOrigins]);
  if (refused !== undefined) return refused;
  if (!authRequired(security)) return undefined;
  if (requestPrincipal(request, security) !== undefined) return undefined;
  const match = bearerOf(request);
  return Response.json(
    {
      jsonrpc: '2.0',
      error: {
        code: -32001,
        message:
          match === undefined
            ? 'Unauthorized: bearer token required'
            : 'Unauthorized: invalid bearer token',
      },
      id: null,
    },
    { status: 401, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } },
  );
}

/** Compares secrets in constant time (digests, so lengths never leak). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
