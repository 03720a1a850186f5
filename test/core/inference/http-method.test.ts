import { describe, expect, it } from 'vitest';
import { inferFromHttpMethod } from '../../../src/core/inference/http-method.js';

describe('inferFromHttpMethod', () => {
  it.each([
    ['GET', true, false, true],
    ['HEAD', true, false, true],
    ['OPTIONS', true, false, true],
    ['PUT', false, true, true],
    ['DELETE', false, true, true],
    ['POST', false, false, false],
    ['PATCH', false, true, false],
  ])('reads %s', (method, readOnlyHint, destructiveHint, idempotentHint) => {
    expect(inferFromHttpMethod(method).annotations).toEqual({
      readOnlyHint,
      destructiveHint,
      idempotentHint,
    });
  });

  it.each([['get'], ['Get'], [' get ']])('is case-insensitive: %j', (method) => {
    expect(inferFromHttpMethod(method).annotations).toEqual(inferFromHttpMethod('GET').annotations);
  });

  it.each([['BREW'], [''], ['GETS'], ['CONNECT']])('gives nothing for %j', (method) => {
    expect(inferFromHttpMethod(method)).toEqual({ annotations: {}, reasons: {} });
  });

  it('gives a reason for each hint it sets', () => {
    const { reasons } = inferFromHttpMethod('delete');
    for (const field of ['readOnlyHint', 'destructiveHint', 'idempotentHint']) {
      expect(reasons[field]).toMatchObject({
        part: 'method',
        word: 'DELETE',
        rule: 'http-delete',
        strength: 'strong',
      });
    }
  });
});
