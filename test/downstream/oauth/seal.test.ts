import { describe, expect, it } from 'vitest';
import { isHintgateError } from '../../../src/core/errors.js';
import { Sealer } from '../../../src/downstream/oauth/seal.js';

const SECRET = 'correct horse battery staple';

describe('Sealer', () => {
  it('opens what it sealed, with a fresh IV each time (no plaintext in the sealed form)', () => {
    const sealer = Sealer.fromSecret(SECRET);
    const text = JSON.stringify({ access_token: 'at-1234567890', refresh_token: 'rt-0987654321' });
    const one = sealer.seal(text, 'server=a;principal=');
    const two = sealer.seal(text, 'server=a;principal=');
    expect(one).not.toBe(two);
    expect(one).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(one).not.toContain('at-1234567890');
    expect(Buffer.from(one.split('.')[3] ?? '', 'base64url').toString('latin1')).not.toContain(
      'at-123',
    );
    expect(sealer.open(one, 'server=a;principal=')).toBe(text);
    expect(Sealer.fromSecret(SECRET).open(two, 'server=a;principal=')).toBe(text);
  });

  it('refuses another key, another place, or a changed byte, naming the setting', () => {
    const sealed = Sealer.fromSecret(SECRET).seal('{"tokens":1}', 'server=a;principal=');
    const other = Sealer.fromSecret('another secret, also long enough');
    const wrongKey = () => other.open(sealed, 'server=a;principal=');
    expect(wrongKey).toThrow(/does not open with the configured HINTGATE_SECRET_KEY/);
    const sealer = Sealer.fromSecret(SECRET);
    expect(() => sealer.open(sealed, 'server=b;principal=')).toThrow(/does not open/);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] ?? '', 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => sealer.open(parts.join('.'), 'server=a;principal=')).toThrow(/does not open/);
    expect(() => sealer.open('plain text', 'server=a;principal=')).toThrow(/not in a format/);
  });

  it('refuses a short secret with CONFIG_INVALID naming the setting', () => {
    let error: unknown;
    try {
      Sealer.fromSecret('short');
    } catch (caught) {
      error = caught;
    }
    expect(isHintgateError(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain('HINTGATE_SECRET_KEY');
  });
});
