import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  authenticate,
  checkRequest,
  dashboardPrincipalFor,
  httpSecurity,
  isLoopbackHost,
  principalForToken,
  readNamedTokens,
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
    const open = httpSecurity({ ...base, host: '127.0.0.1', authDisabled: true });
    expect(open.authRequired).toBe(false);
    // The single token means nothing with auth off; named tokens still name their principal.
    expect(open.tokens).toEqual([]);
    expect(() =>
      httpSecurity({
        ...base,
        host: '127.0.0.1',
        tokens: [{ principal: { name: 'alice', groups: [] }, token: 'a-long-enough-token' }],
      }),
    ).toThrow('principals "alice" and "bearer" have the same token');
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
  const tokens = [
    { principal: { name: 'alice', groups: ['ops'] }, token: 'alice-token-0123456789' },
    { principal: { name: 'bob', groups: [] }, token: 'bob-token-0123456789ab' },
  ];
  const security = httpSecurity({ ...base, host: '127.0.0.1', tokens });
  const host = { host: '127.0.0.1:8787' };

  it('finds the principal of each token, and of the single token (bearer)', async () => {
    expect(principalForToken(security, 'alice-token-0123456789')).toEqual({
      name: 'alice',
      groups: ['ops'],
    });
    expect(principalForToken(security, 'a-long-enough-token')?.name).toBe('bearer');
    expect(principalForToken(security, 'alice-token-012345678')).toBeUndefined();
    expect(
      await authenticate(
        request({ ...host, authorization: 'Bearer bob-token-0123456789ab' }),
        security,
      ),
    ).toEqual({ principal: { name: 'bob', groups: [] } });
  });

  it('answers 401 with a challenge, naming what was wrong', async () => {
    const missing = (await authenticate(request(host), security)) as Response;
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = (await authenticate(
      request({ ...host, authorization: 'Bearer nobody-0123456789abc' }),
      security,
    )) as Response;
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await wrong.text()).toContain('invalid bearer token');
  });

  it('with auth off, a request without a token is anonymous and a wrong token is refused', async () => {
    const open = httpSecurity({ ...base, host: '127.0.0.1', authDisabled: true, tokens });
    expect(await authenticate(request(host), open)).toEqual({ principal: undefined });
    expect(
      await authenticate(
        request({ ...host, authorization: 'Bearer alice-token-0123456789' }),
        open,
      ),
    ).toEqual({ principal: { name: 'alice', groups: ['ops'] } });
    expect(
      (
        (await authenticate(
          request({ ...host, authorization: 'Bearer nope-0123456789abcd' }),
          open,
        )) as Response
      ).status,
    ).toBe(401);
  });

  it('reads secrets from config, a file or the environment, and says which one is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hintgate-tokens-'));
    writeFileSync(join(dir, 'bob.token'), '  bob-token-0123456789ab\n');
    const read = readNamedTokens(
      [
        { name: 'alice', token: 'alice-token-0123456789', groups: ['ops'] },
        { name: 'bob', tokenFile: 'bob.token', groups: [] },
        { name: 'ci', tokenEnv: 'CI_TOKEN', groups: ['bots'] },
      ],
      { CI_TOKEN: 'ci-token-0123456789abcd' },
      dir,
    );
    expect(read.map((entry) => [entry.principal.name, entry.token])).toEqual([
      ['alice', 'alice-token-0123456789'],
      ['bob', 'bob-token-0123456789ab'],
      ['ci', 'ci-token-0123456789abcd'],
    ]);
    expect(() =>
      readNamedTokens([{ name: 'ci', tokenEnv: 'CI_TOKEN', groups: [] }], {}, dir),
    ).toThrow('http.tokens "ci": the environment variable CI_TOKEN is not set');
    expect(() =>
      readNamedTokens([{ name: 'eve', tokenFile: 'missing.token', groups: [] }], {}, dir),
    ).toThrow(/http.tokens "eve": cannot read the token file .*missing.token/);
    writeFileSync(join(dir, 'short.token'), 'short');
    expect(() =>
      readNamedTokens([{ name: 'eve', tokenFile: 'short.token', groups: [] }], {}, dir),
    ).toThrow('shorter than 16 characters');
  });
});

describe("the dashboard's own token (http.uiToken)", () => {
  const tokens = [
    { principal: { name: 'alice', groups: ['ops'] }, token: 'alice-token-0123456789' },
  ];
  const uiToken = 'the-dashboard-token-0123';
  const security = httpSecurity({ ...base, host: '127.0.0.1', tokens, uiToken });
  const host = { host: '127.0.0.1:8787' };

  it('signs in to the dashboard as ui, beside the named tokens and the single one', () => {
    expect(dashboardPrincipalFor(security, uiToken)).toEqual({ name: 'ui', groups: [] });
    expect(dashboardPrincipalFor(security, 'alice-token-0123456789')?.name).toBe('alice');
    expect(dashboardPrincipalFor(security, 'a-long-enough-token')?.name).toBe('bearer');
    expect(dashboardPrincipalFor(security, 'the-dashboard-token-012')).toBeUndefined();
    // Also with auth off: a person signs in to act as an approver.
    const open = httpSecurity({ ...base, host: '127.0.0.1', authDisabled: true, uiToken });
    expect(dashboardPrincipalFor(open, uiToken)?.name).toBe('ui');
  });

  it('is no bearer token of /mcp or /api', async () => {
    expect(principalForToken(security, uiToken)).toBeUndefined();
    const refused = (await authenticate(
      request({ ...host, authorization: `Bearer ${uiToken}` }),
      security,
    )) as Response;
    expect(refused.status).toBe(401);
    expect(
      checkRequest(request({ ...host, authorization: `Bearer ${uiToken}` }), security)?.status,
    ).toBe(401);
  });

  it("is refused at start when short, another principal's token, or beside a token named ui", () => {
    expect(() => httpSecurity({ ...base, host: '127.0.0.1', uiToken: 'short' })).toThrow(
      'http.uiToken: expected a token of at least 16 characters',
    );
    expect(() =>
      httpSecurity({ ...base, host: '127.0.0.1', tokens, uiToken: 'alice-token-0123456789' }),
    ).toThrow('http.uiToken is the token of principal "alice"');
    expect(() =>
      httpSecurity({ ...base, host: '127.0.0.1', uiToken: 'a-long-enough-token' }),
    ).toThrow('http.uiToken is the token of principal "bearer"');
    expect(() =>
      httpSecurity({
        ...base,
        host: '127.0.0.1',
        tokens: [{ principal: { name: 'ui', groups: [] }, token: 'ui-named-token-0123456' }],
        uiToken,
      }),
    ).toThrow('the name "ui" is http.uiToken\'s principal');
  });
});
