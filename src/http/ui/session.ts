import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { HttpSecurity } from '../auth.js';
import { checkOrigin } from '../auth.js';

/** The dashboard's session cookie. */
export const SESSION_COOKIE = 'hintgate_session';
/** The header (fetch) or form field (plain forms) carrying the CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

const DEFAULT_TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 1000;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** One signed-in browser. */
export interface DashboardSession {
  readonly id: string;
  /** Who signed in (`bearer`, or `anonymous` when auth is off). */
  readonly principal: string;
  /** Sent back with every state-changing request (header or form field). */
  readonly csrf: string;
  readonly expiresAt: number;
}

/** Options of {@link DashboardSessions}. */
export interface DashboardSessionsOptions {
  /**
   * Checks a secret typed at the login page and returns the principal it stands for, or
   * undefined when it is wrong. Absent: there is nothing to sign in with.
   */
  readonly verify: ((secret: string) => string | undefined) | undefined;
  /**
   * Whether a browser must sign in (default: when `verify` is given). Without, it gets an
   * `anonymous` session at once (auth off on loopback) and may still sign in with `verify`
   * to act as a principal (an approver).
   */
  readonly loginRequired?: boolean;
  /** The front's Host and Origin rules (DNS rebinding, foreign origins). */
  readonly security: HttpSecurity;
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/**
 * Sessions of the dashboard: a secret (a bearer token of the front, or the dashboard's own
 * `http.uiToken`) is exchanged once at the login page for a random session id in an HttpOnly, SameSite=Strict cookie; every
 * state-changing request must come from the dashboard's own origin (Origin, else Referer,
 * naming the Host it was sent to) and carry the session's CSRF token. Sessions live in
 * memory (a restart signs everyone out), at most 1,000, each for 12 hours.
 *
 * Who a secret stands for is the `verify` function's business, so a richer identity
 * (named tokens, groups) plugs in without changing the rest.
 */
export class DashboardSessions {
  private readonly sessions = new Map<string, DashboardSession>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: DashboardSessionsOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** True when a login is needed (auth is on). */
  get loginRequired(): boolean {
    return this.options.loginRequired ?? this.options.verify !== undefined;
  }

  /** True when there is something to sign in with (a token), needed or not. */
  get canSignIn(): boolean {
    return this.options.verify !== undefined;
  }

  /** A new session for `secret`, or undefined when the secret is wrong. */
  login(secret: string): DashboardSession | undefined {
    const principal = this.options.verify?.(secret);
    return principal === undefined ? undefined : this.open(principal);
  }

  /** A session without a login (auth off). */
  anonymous(): DashboardSession {
    return this.open('anonymous');
  }

  /** The live session a request's cookie names, if any. */
  sessionOf(request: Request): DashboardSession | undefined {
    const id = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
    if (id === undefined) return undefined;
    const session = this.sessions.get(digest(id));
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(digest(id));
      return undefined;
    }
    return session;
  }

  /** Ends a session. */
  close(session: DashboardSession): void {
    this.sessions.delete(digest(session.id));
  }

  /** The Set-Cookie value for a session (Secure when the request came over HTTPS). */
  cookie(session: DashboardSession, request: Request): string {
    const maxAge = Math.max(0, Math.floor((session.expiresAt - this.now()) / 1000));
    return `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure(request)}`;
  }

  /** The Set-Cookie value that removes the cookie. */
  clearCookie(request: Request): string {
    return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure(request)}`;
  }

  /**
   * The Host and Origin checks of the front (DNS rebinding, foreign origins), without the
   * bearer token: a refusal to send, or undefined.
   */
  checkHost(request: Request): Response | undefined {
    return checkOrigin(request, this.options.security);
  }

  /**
   * Why a state-changing request must be refused, or undefined when it may proceed: it must
   * come from this origin and carry the session's CSRF token (header, or `formToken`).
   */
  refuseUnsafe(
    request: Request,
    session: DashboardSession | undefined,
    formToken?: string,
  ): string | undefined {
    if (!UNSAFE.has(request.method)) return undefined;
    const origin = sameOriginProblem(request);
    if (origin !== undefined) return origin;
    if (session === undefined) return 'not signed in';
    const token = request.headers.get(CSRF_HEADER) ?? formToken;
    if (token === undefined || token === '') return 'missing CSRF token';
    if (!sameSecret(token, session.csrf)) return 'wrong CSRF token';
    return undefined;
  }

  private open(principal: string): DashboardSession {
    const now = this.now();
    for (const [key, session] of this.sessions) {
      if (session.expiresAt <= now) this.sessions.delete(key);
    }
    // The oldest sessions give way (a Map keeps insertion order).
    while (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    const session: DashboardSession = {
      id: randomBytes(32).toString('base64url'),
      principal,
      csrf: randomBytes(24).toString('base64url'),
      expiresAt: now + this.ttlMs,
    };
    // Kept by digest: the map holds no cookie a memory dump could replay.
    this.sessions.set(digest(session.id), session);
    return session;
  }
}

/**
 * Why a request is not from the page it was sent to, or undefined: its Origin (else its
 * Referer) must name the very Host the request went to. A request with neither is refused.
 */
export function sameOriginProblem(request: Request): string | undefined {
  const host = request.headers.get('host');
  const from = request.headers.get('origin') ?? request.headers.get('referer');
  if (from === null || from === 'null') return 'cross-origin request refused: no Origin header';
  let fromHost: string;
  try {
    fromHost = new URL(from).host;
  } catch {
    return `cross-origin request refused: unreadable Origin ${JSON.stringify(from.slice(0, 80))}`;
  }
  if (host === null || fromHost.toLowerCase() !== host.toLowerCase()) {
    return `cross-origin request refused: ${from.slice(0, 80)} is not this dashboard`;
  }
  return undefined;
}

/** A secret checker for one token (the front's bearer), in constant time. */
export function tokenVerifier(
  token: string | undefined,
  principal = 'bearer',
): ((secret: string) => string | undefined) | undefined {
  if (token === undefined) return undefined;
  return (secret) => (sameSecret(secret, token) ? principal : undefined);
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function secure(request: Request): string {
  return new URL(request.url).protocol === 'https:' ? '; Secure' : '';
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(
    createHash('sha256').update(given).digest(),
    createHash('sha256').update(expected).digest(),
  );
}
