import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretKey, redactSecrets } from '../../../src/core/util/redact.js';

describe('isSecretKey', () => {
  it.each([
    'token',
    'access_token',
    'refreshToken',
    'PASSWORD',
    'db-password',
    'clientSecret',
    'Authorization',
    'set-cookie',
    'apiKey',
    'x-api-key',
    'API_KEY',
    'private_key',
    'key',
    'credentials',
    'auth',
  ])('%s is secret', (key) => expect(isSecretKey(key)).toBe(true));

  it.each(['keyword', 'monkey', 'keys', 'id', 'user', 'author', 'description'])(
    '%s is not',
    (key) => expect(isSecretKey(key)).toBe(false),
  );

  it('errs on the side of secrecy for words containing a secret one', () => {
    expect(isSecretKey('tokenizer_name')).toBe(true);
  });
});

describe('redactSecrets', () => {
  it('replaces values under secret keys at any depth, in objects and arrays, case-insensitively', () => {
    const input = {
      query: 'x',
      headers: { Authorization: 'Bearer abc', Accept: 'json' },
      items: [{ password: 'p', name: 'n' }, 'plain'],
      nested: { deeper: { Cookie: 'c' } },
    };
    expect(redactSecrets(input)).toEqual({
      query: 'x',
      headers: { Authorization: REDACTED, Accept: 'json' },
      items: [{ password: REDACTED, name: 'n' }, 'plain'],
      nested: { deeper: { Cookie: REDACTED } },
    });
    expect(input.headers.Authorization).toBe('Bearer abc');
  });

  it('returns values that need no change as they are', () => {
    const input = { a: [1, { b: 2 }], c: 'd' };
    expect(redactSecrets(input)).toBe(input);
    expect(redactSecrets('text')).toBe('text');
    expect(redactSecrets(null)).toBe(null);
  });
});
