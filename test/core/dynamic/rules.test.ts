import { describe, expect, it } from 'vitest';
import type { CompiledRule } from '../../../src/core/dynamic/index.js';
import {
  compileRules,
  dynamicRuleSchema,
  evaluateRules,
  formatJsonPointer,
  jsonEqual,
  parseJsonPointer,
  resolveJsonPointer,
  rulesForTool,
} from '../../../src/core/dynamic/index.js';

function compiled(rules: unknown): readonly CompiledRule[] {
  const result = compileRules(rules);
  if (!result.ok) throw new Error(result.errors.map((error) => error.message).join('\n'));
  return result.rules;
}

describe('JSON Pointer', () => {
  it.each([
    ['', []],
    ['/action', ['action']],
    ['/a~1b', ['a/b']],
    ['/m~0n', ['m~n']],
    ['/~01', ['~1']],
    ['/a/0/b', ['a', '0', 'b']],
    ['/', ['']],
  ])('parses %j', (pointer, tokens) => {
    expect(parseJsonPointer(pointer)).toEqual(tokens);
    expect(formatJsonPointer(tokens)).toBe(pointer);
  });

  it.each(['action', '/a~2b', '/a~'])('rejects %j', (pointer) => {
    expect(parseJsonPointer(pointer)).toHaveProperty('error');
  });

  it('resolves own properties and canonical array indexes only', () => {
    const doc = { 'a/b': 1, 'm~n': 2, list: [10, 20], '': 3 };
    expect(resolveJsonPointer(doc, ['a/b'])).toBe(1);
    expect(resolveJsonPointer(doc, ['m~n'])).toBe(2);
    expect(resolveJsonPointer(doc, ['list', '1'])).toBe(20);
    expect(resolveJsonPointer(doc, ['list', '01'])).toBeUndefined();
    expect(resolveJsonPointer(doc, ['list', '-'])).toBeUndefined();
    expect(resolveJsonPointer(doc, [''])).toBe(3);
    expect(resolveJsonPointer(doc, [])).toBe(doc);
    expect(resolveJsonPointer({}, ['constructor'])).toBeUndefined();
    expect(resolveJsonPointer({}, ['__proto__'])).toBeUndefined();
  });
});

describe('compileRules and evaluateRules', () => {
  const rules = compiled([
    {
      name: 'reads',
      match: [{ pointer: '/action', oneOf: ['read', 'list'] }],
      set: { readOnlyHint: true },
    },
    {
      match: [{ pointer: '/action', equals: 'append' }],
      set: { readOnlyHint: false, destructiveHint: false },
    },
    {
      name: 'tmp-deletes',
      tool: 'fs.*',
      match: [
        { pointer: '/action', equals: 'delete' },
        { pointer: '/path', regex: '^/tmp/' },
      ],
      set: { destructiveHint: false, requiresConfirmation: false },
    },
    { match: [{ pointer: '/opts/a~1b', equals: { deep: [1, 2] } }], set: { idempotentHint: true } },
    {
      match: [{ pointer: '/name', regex: 'ADMIN', flags: 'i' }],
      set: { requiresConfirmation: true },
    },
    { match: [{ pointer: '/flag', equals: null }], set: { openWorldHint: false } },
  ]);

  it('sets the fields of the first rule whose conditions all hold', () => {
    expect(evaluateRules(rules, { action: 'list' })?.annotations).toEqual({ readOnlyHint: true });
    expect(evaluateRules(rules, { action: 'append' })?.rule.label).toBe('rule 2');
    expect(evaluateRules(rules, { action: 'write' })).toBeUndefined();
  });

  it('explains a match, naming the rule and its conditions', () => {
    const match = evaluateRules(rules, { action: 'read' });
    expect(match?.reasons['readOnlyHint']?.text).toBe(
      'rule 1 ("reads") matched: /action is one of ["read","list"]',
    );
  });

  it('needs every condition, and a matching tool for a rule that names one', () => {
    const args = { action: 'delete', path: '/tmp/cache' };
    expect(evaluateRules(rules, args, { tool: 'fs.manage' })?.rule.label).toBe(
      'rule 3 ("tmp-deletes")',
    );
    expect(evaluateRules(rules, args, { tool: 'db.manage' })).toBeUndefined();
    expect(evaluateRules(rules, args)).toBeUndefined();
    expect(
      evaluateRules(rules, { action: 'delete', path: '/home/me' }, { tool: 'fs.manage' }),
    ).toBeUndefined();
    expect(
      evaluateRules(rules, args, { tool: 'fs.manage' })?.reasons['destructiveHint']?.text,
    ).toContain('/action equals "delete", and /path matches /^\\/tmp\\//');
  });

  it('compares JSON deeply and decodes pointer escapes', () => {
    expect(evaluateRules(rules, { opts: { 'a/b': { deep: [1, 2] } } })?.annotations).toEqual({
      idempotentHint: true,
    });
    expect(evaluateRules(rules, { opts: { 'a/b': { deep: [2, 1] } } })).toBeUndefined();
  });

  it('tests regular expressions on strings only, with their flags', () => {
    expect(evaluateRules(rules, { name: 'the admin panel' })?.annotations).toEqual({
      requiresConfirmation: true,
    });
    expect(evaluateRules(rules, { name: 42 })).toBeUndefined();
  });

  it('matches null but not a missing value', () => {
    expect(evaluateRules(rules, { flag: null })?.annotations).toEqual({ openWorldHint: false });
    expect(evaluateRules(rules, {})).toBeUndefined();
  });

  it('filters rules for one tool once', () => {
    expect(rulesForTool(rules, 'fs.manage')).toHaveLength(6);
    expect(rulesForTool(rules, 'db.query')).toHaveLength(5);
  });
});

describe('compileRules errors', () => {
  it.each([
    [
      [{ name: 'bad', match: [{ pointer: '/q', regex: '(' }], set: { readOnlyHint: true } }],
      'rule 1 ("bad"): match[0].regex: invalid regular expression: Invalid regular expression: /(/: Unterminated group',
    ],
    [
      [{ match: [{ pointer: 'action', equals: 'x' }], set: { readOnlyHint: true } }],
      'rule 1: match[0].pointer: a JSON Pointer is empty or starts with "/"',
    ],
    [
      [{ match: [{ pointer: '/a~2', equals: 1 }], set: { readOnlyHint: true } }],
      'rule 1: match[0].pointer: "~" must be followed by 0 or 1 in a JSON Pointer',
    ],
    [
      [{ match: [{ pointer: '/a' }], set: { readOnlyHint: true } }],
      'rule 1: match[0]: expected at least one of equals, oneOf or regex',
    ],
    [
      [{ match: [], set: { readOnlyHint: true } }],
      'rule 1: match: expected at least one condition',
    ],
    [
      [{ match: [{ pointer: '/a', equals: 1 }], set: {} }],
      'rule 1: set: expected at least one annotation to set',
    ],
    [
      [{ match: [{ pointer: '/a', equals: 1 }], set: { readonlyHint: true } }],
      'rule 1: set: Unrecognized key: "readonlyHint"',
    ],
    [
      [{ match: [{ pointer: '/a', regex: 'x', flags: 'g' }], set: { readOnlyHint: true } }],
      'rule 1: match[0].flags: expected only the flags i, m, s and u',
    ],
    ['not a list', 'rules: '],
  ])('reports %j', (rules, message) => {
    const result = compileRules(rules);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors.map((error) => error.message).join('\n')).toContain(message);
  });

  it('reports every bad rule, by position and name', () => {
    const result = compileRules([
      { name: 'good', match: [{ pointer: '/a', equals: 1 }], set: { readOnlyHint: true } },
      { name: 'one', match: [{ pointer: '/a', regex: '[' }], set: { readOnlyHint: true } },
      { name: 'two', match: [{ pointer: 'a', equals: 1 }], set: { readOnlyHint: true } },
    ]);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors.map((error) => [error.rule, error.path])).toEqual([
        [1, 'match[0].regex'],
        [2, 'match[0].pointer'],
      ]);
  });

  it('exposes the rule schema for the config loader', () => {
    const rule = {
      tool: 'db.*',
      match: [{ pointer: '/sql', regex: '^\\s*select\\b', flags: 'i' }],
      set: { readOnlyHint: true },
    };
    expect(dynamicRuleSchema.safeParse(rule).success).toBe(true);
  });
});

describe('jsonEqual', () => {
  it.each([
    [1, 1, true],
    [{ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, true],
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
    [[1, 2], [2, 1], false],
    [{ a: 1 }, { a: 1, b: undefined }, false],
    [null, {}, false],
    ['1', 1, false],
  ])('%j and %j → %s', (a, b, equal) => {
    expect(jsonEqual(a, b)).toBe(equal);
  });
});
