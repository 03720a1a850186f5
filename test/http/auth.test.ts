import { describe, expect, it } from 'vitest';
import {
  checkRequest,
  httpSecurity,
  isLoopbackHost,
  requestPrincipal,
} from '../../src/http/auth.js';

const base = {
  token: 'a-long-enough-token',
  authDisabled: false,
  allowedHosts: [],
  allowedOrigins: [],
};
const request = (headers: Record<string, string>) =>
  new Request('http://127.0.0.1:8787/mcp', { method: 'POST', headers });

describe('httpSecurity', () => {
  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].every(isLoopbackHost)).toBe(
      true,
    );
    expect(['0.0.0.0', '192.168.1.2', '::', 'example.com'].some(isLoopbackHost)).toBe(false);
  });

  it('requires a token unless auth is turned off on loopback', () => {
    expect(() => httpSecurity({ ...base, host: '127.0.0.1', token: undefined })).toThrow(
      'needs a bearer token',
    );
    expect(() => httpSecurity({ ...base, host: '0.0.0.0', authDisabled: true })).toThrow(
      'only allowed on a loopback address',
    );
    expect(httpSecurity({ ...base, host: '127.0.0.1', authDisabled: true }).token).toBeUndefined();
  });

  it('allows loopback names on loopback, the bound and configured hosts elsewhere, and skips the Host check on a wildcard without any', () => {
    expect(httpSecurity({ ...base, host: '127.0.0.1' }).allowedHosts).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      '127.0.0.1',
    ]);
    expect(
      httpSecurity({ ...base, host: '10.0.0.5', allowedHosts: ['gw.internal'] }).allowedHosts,
    ).toEqual(['10.0.0.5', 'gw.internal']);
    expect(httpSecurity({ ...base, host: '0.0.0.0' }).allowedHosts).toBeUndefined();
    expect(httpSecurity({ ...base, host: '0.0.0.0', allowedHosts: ['gw'] }).allowedHosts).toEqual([
      'gw',
    ]);
  });
});

describe('checkRequest', () => {
  const security = httpSecurity({ ...base, host: '127.0.0.1', allowedOrigins: ['app.example'] });

  it('passes a request with the token, a loopback Host and no Origin', () => {
    expect(
      checkRequest(
        request({ host: '127.0.0.1:8787', authorization: 'Bearer a-long-enough-token' }),
        security,
      ),
    ).toBeUndefined();
  });

  it.each([
    [
      { host: 'evil.example', authorization: 'Bearer a-long-enough-token' },
      403,
      'Invalid Host: evil.example',
    ],
    [
      {
        host: 'localhost',
        origin: 'https://evil.example',
        authorization: 'Bearer a-long-enough-token',
      },
      403,
      'Invalid Origin: evil.example',
    ],
    [{ host: 'localhost' }, 401, 'bearer token required'],
    [{ host: 'localhost', authorization: 'Bearer wrong' }, 401, 'invalid bearer token'],
    [
      { host: 'localhost', authorization: 'Basic a-long-enough-token' },
      401,
      'bearer token required',
    ],
  ])('refuses %j with %i', async (headers, status, message) => {
    const refused = checkRequest(request(headers), security);
    expect(refused?.status).toBe(status);
    expect(await refused?.text()).toContain(message);
  });

  it('accepts a configured Origin and a loopback one', () => {
    const auth = { host: 'localhost', authorization: 'Bearer a-long-enough-token' };
    expect(
      checkRequest(request({ ...auth, origin: 'https://app.example' }), security),
    ).toBeUndefined();
    expect(
      checkRequest(request({ ...auth, origin: 'http://localhost:5173' }), security),
    ).toBeUndefined();
  });
});

describe('named tokens', () => {
  const tokens = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789ab' };
  const security = httpSecurity({ ...base, token: undefined, tokens, host: '127.0.0.1' });
  const as = (token: string) =>
    request({ host: '127.0.0.1:8787', authorization: `Bearer ${token}` });

  it('knows each client by its token, and refuses any other token', () => {
    expect(checkRequest(as(tokens.alice), security)).toBeUndefined();
    expect(requestPrincipal(as(tokens.alice), security)).toBe('alice');
    expect(requestPrincipal(as(tokens.bob), security)).toBe('bob');
    expect(checkRequest(as('mallory-token-0123456789'), security)?.status).toBe(401);
    expect(checkRequest(request({ host: '127.0.0.1:8787' }), security)?.status).toBe(401);
    const both = httpSecurity({ ...base, tokens, host: '127.0.0.1' });
    expect(requestPrincipal(as('a-long-enough-token'), both)).toBe('bearer');
    expect(requestPrincipal(as(tokens.bob), both)).toBe('bob');
  });

  it('refuses one token given to two principals', () => {
    expect(() => httpSecurity({ ...base, tokens: { a: base.token }, host: '127.0.0.1' })).toThrow(
      'http.tokens.a is the same token as http.token (--token)',
    );
  });
});
