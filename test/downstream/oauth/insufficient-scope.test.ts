import { InsufficientScopeError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { fromClientError } from '../../../src/downstream/errors.js';

describe('fromClientError: a login whose scope is not enough', () => {
  it('names the scope the server asks for and the login to run', () => {
    const error = fromClientError(
      'linear',
      new InsufficientScopeError({ requiredScope: 'read write' }),
      'tools/call',
    );
    expect(error.code).toBe('DOWNSTREAM_UNAVAILABLE');
    expect(error.message).toBe(
      'server "linear" refused tools/call: the login\'s scope is not enough (it asks for "read write"); set mcpServers.linear.oauth.scope to "read write" and run `hintgate auth login linear`',
    );
  });

  it('says to log in again when the server names no scope', () => {
    const error = fromClientError('linear', new InsufficientScopeError({}), 'tools/call');
    expect(error.message).toContain('run `hintgate auth login linear`');
    expect(error.message).not.toContain('oauth.scope');
  });
});
