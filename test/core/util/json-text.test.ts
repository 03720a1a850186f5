import { describe, expect, it } from 'vitest';
import {
  KEPT_TEXTS,
  SHARED_JSON_MIN_LENGTH,
  jsonOf,
  rememberJson,
  sharedJsonOf,
  sharedObjectJson,
} from '../../../src/core/util/json-text.js';
import { argumentsKey } from '../../../src/gateway/pipeline/cache.js';
import { auditCopyLines } from '../../../src/store/audit.js';

/** Arguments whose text is long enough to be kept. */
const longArguments = (): { text: string } => ({ text: 'x'.repeat(SHARED_JSON_MIN_LENGTH) });

describe('sharedJsonOf', () => {
  it('keeps a long text for later uses of the same object', () => {
    const args = longArguments();
    const first = sharedJsonOf(args);
    expect(first).toBe(JSON.stringify(args));
    // Objects must not change once serialized; changing one shows the text was kept.
    args.text = 'changed';
    expect(sharedJsonOf(args)).toBe(first);
    expect(jsonOf(args)).toBe(first);
  });

  it('keeps no short text', () => {
    const args = { text: 'short' };
    sharedJsonOf(args);
    args.text = 'changed';
    expect(sharedJsonOf(args)).toBe('{"text":"changed"}');
  });

  it('keeps the texts of the last few objects only, so that it keeps no call alive', () => {
    const first = longArguments();
    const text = sharedJsonOf(first);
    first.text = 'changed';
    // Each of the next objects' texts is kept in turn; the first's is then forgotten.
    for (let index = 0; index < KEPT_TEXTS - 1; index++) sharedJsonOf(longArguments());
    expect(jsonOf(first)).toBe(text);
    sharedJsonOf(longArguments());
    expect(jsonOf(first)).toBe('{"text":"changed"}');
  });

  it('keeps the latest text remembered for an object', () => {
    const result = { content: [{ type: 'text', text: 'r' }] };
    rememberJson(result, 'first');
    rememberJson(result, 'second');
    expect(jsonOf(result)).toBe('second');
  });

  it('jsonOf reuses a kept text but keeps none of its own', () => {
    const args = longArguments();
    const text = jsonOf(args);
    args.text = 'changed';
    expect(jsonOf(args)).not.toBe(text);
  });
});

describe('sharedObjectJson', () => {
  it.each<[string, Record<string, unknown>]>([
    ['an empty object', {}],
    ['params with arguments', { name: 't', arguments: { a: 1, b: [true, null, 'x'] } }],
    ['members JSON leaves out', { a: undefined, b: () => 1, c: Symbol('s'), d: 2 }],
    ['only members JSON leaves out', { a: undefined }],
    ['integer-like keys, which come first', { b: 1, 2: 'two', a: { 1: 'one' } }],
    ['keys that need escaping', { 'a"b': 1, 'c\nd': 'e\\f' }],
    ['a member named __proto__', JSON.parse('{"__proto__":{"x":1},"y":2}') as never],
    ['nested long arguments', { name: 't', arguments: longArguments(), _meta: { k: 'v' } }],
  ])('makes the text JSON.stringify makes, for %s', (_case, value) => {
    expect(sharedObjectJson(value)).toBe(JSON.stringify(value));
  });

  it('takes the arguments text made for the cache key, and the audit record takes it too', () => {
    const args = longArguments();
    const key = argumentsKey(args);
    args.text = 'changed after the key was made';
    // The request to the server and the audit record reuse the key's text.
    expect(sharedObjectJson({ name: 't', arguments: args })).toBe(
      `{"name":"t","arguments":${key}}`,
    );
    expect(
      auditCopyLines([{ tool: 't', decision: 'allow', outcome: 'ok', arguments: args }]),
    ).toContain(key);
  });
});
