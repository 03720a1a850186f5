import { describe, expect, it } from 'vitest';
import { sameJson } from '../../../src/core/util/same-json.js';

const parsed = (text: string): unknown => JSON.parse(text);

describe('sameJson', () => {
  it.each([
    ['equal scalars', '1', '1'],
    ['equal strings', '"a"', '"a"'],
    ['null and null', 'null', 'null'],
    [
      'keys in another order, at every depth',
      '{"a":1,"b":{"c":2,"d":[3]}}',
      '{"b":{"d":[3],"c":2},"a":1}',
    ],
    ['empty objects', '{}', '{}'],
    ['empty arrays', '[]', '[]'],
    ['a member named __proto__', '{"__proto__":{"x":1}}', '{"__proto__":{"x":1}}'],
  ])('holds %s equal', (_case, a, b) => {
    expect(sameJson(parsed(a), parsed(b))).toBe(true);
  });

  it.each([
    ['different numbers', '1', '2'],
    ['a number and its text', '1', '"1"'],
    ['null and an object', 'null', '{}'],
    ['an object and an array', '{}', '[]'],
    ['an array and an object with index keys', '["a"]', '{"0":"a"}'],
    ['arrays in another order', '[1,2]', '[2,1]'],
    ['a longer array', '[1]', '[1,1]'],
    ['a key more', '{"a":1}', '{"a":1,"b":1}'],
    ['a key less', '{"a":1,"b":1}', '{"a":1}'],
    ['a key renamed', '{"a":1}', '{"b":1}'],
    ['a null member and a missing one', '{"a":null}', '{"b":null}'],
    ['a change deep down', '{"a":{"b":[{"c":"x"}]}}', '{"a":{"b":[{"c":"y"}]}}'],
    ['members named __proto__ with other values', '{"__proto__":{"x":1}}', '{"__proto__":{"x":2}}'],
    ['a member named __proto__ and none', '{"__proto__":{}}', '{}'],
  ])('tells %s apart, both ways', (_case, a, b) => {
    expect(sameJson(parsed(a), parsed(b))).toBe(false);
    expect(sameJson(parsed(b), parsed(a))).toBe(false);
  });

  it('tells an undefined member from a missing one', () => {
    expect(sameJson({ a: undefined }, { b: undefined })).toBe(false);
    expect(sameJson({ a: undefined }, {})).toBe(false);
    expect(sameJson({}, { a: undefined })).toBe(false);
  });
});
