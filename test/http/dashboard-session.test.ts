import { describe, expect, it } from 'vitest';
import { httpSecurity } from '../../src/http/auth.js';
import { DashboardSessions, sameOriginProblem, tokenVerifier } from '../../src/http/ui/session.js';

const security = httpSecurity({
  host: '127.0.0.1',
  token: 'the-gateway-token-123',
  authDisabled: false,
  allowedHosts: [],
  allowedOrigins: [],
});

function sessions(now = () => 1_000_000): DashboardSessions {
  return new DashboardSessions({
    verify: tokenVerifier('the-gateway-token-123'),
    security,
    ttlMs: 60_000,
    now,
  });
}

function request(method: string, headers: Record<string, string>): Request {
  return new Request('http://127.0.0.1:8787/ui/x', { method, headers });
}

describe('dashboard sessions', () => {
  it('exchange the right token only, for an HttpOnly SameSite=Strict cookie', () => {
    const store = sessions();
    expect(store.login('wrong')).toBeUndefined();
    const session = store.login('the-gateway-token-123');
    expect(session?.principal).toBe('bearer');
    const cookie = store.cookie(session!, request('GET', {}));
    expect(cookie).toMatch(
      /^hintgate_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=60$/,
    );
    const id = /=([^;]+)/.exec(cookie)?.[1] ?? '';
    expect(store.sessionOf(request('GET', { cookie: `a=b; hintgate_session=${id}` }))).toBe(
      session,
    );
    expect(store.sessionOf(request('GET', { cookie: 'hintgate_session=forged' }))).toBeUndefined();
  });

  it('end at their expiry and on sign-out', () => {
    let now = 0;
    const store = sessions(() => now);
    const session = store.login('the-gateway-token-123')!;
    const cookie = { cookie: `hintgate_session=${session.id}` };
    now = 59_999;
    expect(store.sessionOf(request('GET', cookie))).toBe(session);
    now = 60_000;
    expect(store.sessionOf(request('GET', cookie))).toBeUndefined();
    const other = store.login('the-gateway-token-123')!;
    store.close(other);
    expect(
      store.sessionOf(request('GET', { cookie: `hintgate_session=${other.id}` })),
    ).toBeUndefined();
  });

  it('refuse state changes from another origin or without the CSRF token', () => {
    const store = sessions();
    const session = store.login('the-gateway-token-123')!;
    const own = { host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787' };
    expect(store.refuseUnsafe(request('GET', {}), undefined)).toBeUndefined();
    expect(
      store.refuseUnsafe(request('POST', { ...own, 'x-csrf-token': session.csrf }), session),
    ).toBeUndefined();
    expect(store.refuseUnsafe(request('POST', own), session, session.csrf)).toBeUndefined();
    expect(store.refuseUnsafe(request('POST', own), session)).toBe('missing CSRF token');
    expect(store.refuseUnsafe(request('POST', own), session, 'guess')).toBe('wrong CSRF token');
    expect(store.refuseUnsafe(request('POST', own), undefined, session.csrf)).toBe('not signed in');
    expect(
      store.refuseUnsafe(
        request('POST', { host: '127.0.0.1:8787', origin: 'http://127.0.0.1:9999' }),
        session,
        session.csrf,
      ),
    ).toMatch(/cross-origin request refused: http:\/\/127.0.0.1:9999 is not this dashboard/);
    expect(sameOriginProblem(request('POST', { host: '127.0.0.1:8787' }))).toMatch(/no Origin/);
    expect(
      sameOriginProblem(
        request('POST', { host: '127.0.0.1:8787', referer: 'http://127.0.0.1:8787/ui/a' }),
      ),
    ).toBeUndefined();
  });

  it('check the Host header (DNS rebinding) without asking for the bearer token', () => {
    const store = sessions();
    expect(store.checkHost(request('GET', { host: '127.0.0.1:8787' }))).toBeUndefined();
    expect(store.checkHost(request('GET', { host: 'evil.example' }))?.status).toBe(403);
  });

  it('need no login when auth is off', () => {
    const open = new DashboardSessions({ verify: undefined, security });
    expect(open.loginRequired).toBe(false);
    expect(open.canSignIn).toBe(false);
    expect(open.login('anything')).toBeUndefined();
    expect(open.anonymous().principal).toBe('anonymous');
  });

  it('let a browser sign in with a token when auth is off, to act as its principal', () => {
    const open = new DashboardSessions({
      verify: tokenVerifier('the-dashboard-token-0123', 'ui'),
      loginRequired: false,
      security,
    });
    expect(open.loginRequired).toBe(false);
    expect(open.canSignIn).toBe(true);
    expect(open.anonymous().principal).toBe('anonymous');
    expect(open.login('the-dashboard-token-0123')?.principal).toBe('ui');
    expect(open.login('wrong')).toBeUndefined();
  });
});
