import { describe, expect, it } from 'vitest';
import {
  ADDITIVE_VERBS,
  DESTRUCTIVE_VERBS,
  READ_ONLY_VERBS,
  classifyVerb,
  lookupNameVerb,
  lookupSpan,
  lookupVerb,
  lookupWord,
} from '../../../src/core/inference/lexicon.js';
import { hashWord } from '../../../src/core/inference/tokenize.js';

describe('classifyVerb', () => {
  it.each([
    ['read', 'read'],
    ['get', 'read'],
    ['List', 'read'],
    ['append', 'additive'],
    ['create', 'additive'],
    ['insert', 'additive'],
    ['replace', 'destructive'],
    ['overwrite', 'destructive'],
    ['delete', 'destructive'],
    ['DELETE', 'destructive'],
    ['forget', 'destructive'],
    ['execute', 'destructive'],
    ['update', 'idempotent-write'],
    ['set', 'idempotent-write'],
    ['restore', 'idempotent-write'],
    ['undelete', 'idempotent-write'],
    ['enable', 'idempotent-write'],
    ['deletes', 'destructive'],
    ['rm', 'destructive'],
    ['mkdir', 'additive'],
  ] as const)('classifies %s as %s', (word, expected) => {
    expect(classifyVerb(word)).toBe(expected);
  });

  it.each([
    ['click'],
    ['manage'],
    ['settings'],
    ['preset'],
    ['target'],
    ['forgetful'],
    ['getter'],
    ['budget'],
    ['widget'],
    [''],
  ])('gives no class to %j', (word) => {
    expect(classifyVerb(word)).toBeUndefined();
  });
});

describe('lookupVerb', () => {
  it.each([
    ['deletes', 'delete', 's'],
    ['deleted', 'delete', 'ed'],
    ['deleting', 'delete', 'ing'],
    ['stopped', 'stop', 'ed'],
    ['queries', 'query', 's'],
    ['modifies', 'modify', 's'],
    ['searches', 'search', 's'],
    ['found', 'find', 'ed'],
    ['written', 'write', 'ed'],
  ] as const)('reads %s as %s (%s)', (word, lemma, form) => {
    const match = lookupVerb(word);
    expect(match?.info.lemma).toBe(lemma);
    expect(match?.form).toBe(form);
  });

  it.each([
    ['forget', 'get'],
    ['target', 'get'],
    ['budgets', 'get'],
    ['preset', 'reset'],
    ['preset', 'set'],
    ['settings', 'set'],
    ['listen', 'list'],
    ['readme', 'read'],
    ['redirect', 'edit'],
  ])('never reads %s as %s', (word, lemma) => {
    expect(lookupVerb(word)?.info.lemma).not.toBe(lemma);
  });
});

describe('lookupNameVerb', () => {
  it('takes base forms only, so a name’s participle is an adjective', () => {
    expect(lookupNameVerb('delete')?.kind).toBe('destructive');
    expect(lookupNameVerb('deleted')).toBeUndefined();
    expect(lookupNameVerb('deletes')).toBeUndefined();
  });

  it('knows abbreviations used in names', () => {
    expect(lookupNameVerb('rm')?.kind).toBe('destructive');
    expect(lookupNameVerb('ls')?.kind).toBe('read');
    expect(lookupNameVerb('mkdir')?.kind).toBe('additive');
  });
});

describe('the tables', () => {
  it('keep the three main verb classes apart', () => {
    for (const word of READ_ONLY_VERBS) {
      expect(DESTRUCTIVE_VERBS.has(word), word).toBe(false);
      expect(ADDITIVE_VERBS.has(word), word).toBe(false);
    }
  });
});

describe('lookupSpan', () => {
  it('finds every word lookupWord finds, from a span and its hash', () => {
    for (const word of ['delete', 'Deletes', 'READ', 'only', 'not', "doesn't", 'doesn\u2019t']) {
      const text = `x ${word} y`;
      const lower = word.toLowerCase().replaceAll('\u2019', "'");
      expect(lookupSpan(text, 2, 2 + word.length, hashWord(lower))).toBe(lookupWord(lower));
      expect(lookupWord(lower), word).toBeDefined();
    }
  });

  it('finds nothing for unknown words', () => {
    expect(lookupSpan('a zebra', 2, 7, hashWord('zebra'))).toBeUndefined();
  });
});
