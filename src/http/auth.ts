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
  /** The bearer token clients must send; undefined only when auth is off on loopback. */
  readonly token: string | undefined;
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
  if (!input.authDisabled && (token === undefined || token === '')) {
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
  return { token, allowedHosts, allowedOrigins };
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
  if (security.token === undefined) return undefined;
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (match?.[1] !== undefined && sameSecret(match[1], security.token)) return undefined;
  return Response.json(
    {
      jsonrpc: '2.0',
      error: {
        code: -32001,
        message:
          match === null
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
