import { describe, expect, it } from 'vitest';
import { redactCommandLine, redactSecretText } from '../../../src/core/util/redact.js';

describe('redactCommandLine', () => {
  it('masks secret-looking options, assignments, URL passwords and token shapes', () => {
    expect(
      redactCommandLine([
        'npx',
        'db-server',
        '--password=hunter2',
        '--api-key',
        'k-123',
        'API_TOKEN=abc',
        'postgres://me:pw@db/app',
        '--header',
        'Authorization: Bearer abc.def',
        'ghp_abcdefghijklmnopqrstuvwxyz0123',
        '--port=5432',
        '--keyword=x',
      ]),
    ).toBe(
      'npx db-server --password=[redacted] --api-key [redacted] API_TOKEN=[redacted] ' +
        'postgres://me:[redacted]@db/app --header Authorization: Bearer [redacted] [redacted] ' +
        '--port=5432 --keyword=x',
    );
  });

  it('leaves a command line without secrets as it is', () => {
    expect(redactCommandLine(['node', 'server.mjs', '--log', '/tmp/x.log'])).toBe(
      'node server.mjs --log /tmp/x.log',
    );
    expect(redactSecretText('plain text')).toBe('plain text');
  });
});
