import { describe, expect, it } from 'vitest';
import { decodeChange, encodeChange } from '../../src/store/changes.js';

describe('store changes between processes', () => {
  it('carries an oauth change with its server, and refuses one without', () => {
    const payload = encodeChange('origin-1', { kind: 'oauth', server: 'linear' });
    expect(decodeChange(payload)).toEqual({
      origin: 'origin-1',
      event: { kind: 'oauth', server: 'linear' },
    });
    expect(decodeChange(JSON.stringify({ origin: 'o', event: { kind: 'oauth' } }))).toBe(undefined);
  });
});
