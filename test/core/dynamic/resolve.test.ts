import { describe, expect, it } from 'vitest';
import type { ToolAnnotations } from '../../../src/core/annotations/types.js';
import type { CompiledRule, DynamicOrigin } from '../../../src/core/dynamic/index.js';
import {
  boundResolution,
  compileRules,
  detectArgumentClassifiers,
  resolveDynamicAnnotations,
  worstCase,
  worstCaseForTool,
} from '../../../src/core/dynamic/index.js';

const queryTool = detectArgumentClassifiers({
  type: 'object',
  properties: { sql: { type: 'string' } },
});
const manageFiles = detectArgumentClassifiers({
  type: 'object',
  properties: {
    path: { type: 'string' },
    action: { type: 'string', enum: ['read', 'append', 'replace', 'delete'] },
    content: { type: 'string' },
  },
});

function rules(list: unknown): readonly CompiledRule[] {
  const result = compileRules(list);
  if (!result.ok) throw new Error('bad rules');
  return result.rules;
}

describe('boundResolution', () => {
  // [field, static value, resolved value, origin, kept value, adjustment]
  const table: ReadonlyArray<
    readonly [
      keyof ToolAnnotations & string,
      boolean,
      boolean,
      DynamicOrigin,
      boolean,
      string | undefined,
    ]
  > = [
    ['readOnlyHint', true, false, 'server', true, 'clamped'],
    ['readOnlyHint', true, false, 'rule', false, 'exceeds-static'],
    ['readOnlyHint', true, false, 'classifier', false, 'exceeds-static'],
    ['readOnlyHint', false, true, 'server', true, undefined],
    ['readOnlyHint', false, true, 'classifier', true, undefined],
    ['readOnlyHint', true, true, 'server', true, undefined],
    ['destructiveHint', false, true, 'server', false, 'clamped'],
    ['destructiveHint', false, true, 'classifier', true, 'exceeds-static'],
    ['destructiveHint', true, false, 'server', false, undefined],
    ['destructiveHint', true, false, 'rule', false, undefined],
    ['idempotentHint', true, false, 'server', true, 'clamped'],
    ['idempotentHint', true, false, 'classifier', false, 'exceeds-static'],
    ['idempotentHint', false, true, 'server', true, undefined],
    ['openWorldHint', false, true, 'server', false, 'clamped'],
    ['openWorldHint', false, true, 'rule', true, 'exceeds-static'],
    ['openWorldHint', true, false, 'classifier', false, undefined],
  ];

  it.each(table)(
    '%s: static %s, resolved %s, from %s → %s',
    (field, bound, value, origin, kept, action) => {
      const result = boundResolution({ [field]: bound }, { [field]: value }, { origin });
      expect(result.annotations[field]).toBe(kept);
      expect(result.adjustments[0]?.action).toBe(action);
    },
  );

  it('reads a static read-only tool as non-destructive and idempotent', () => {
    const result = boundResolution(
      { readOnlyHint: true },
      { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      { origin: 'server' },
    );
    expect(result.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(result.adjustments.map((item) => item.field)).toEqual([
      'readOnlyHint',
      'destructiveHint',
      'idempotentHint',
    ]);
  });

  it('reads missing static values as the MCP defaults (the unsafe ones bound nothing)', () => {
    const result = boundResolution(
      undefined,
      { readOnlyHint: true, openWorldHint: false },
      { origin: 'server' },
    );
    expect(result).toEqual({
      annotations: { readOnlyHint: true, openWorldHint: false },
      adjustments: [],
    });
  });

  it('passes fields other than the hints unchanged', () => {
    const result = boundResolution(
      { readOnlyHint: true },
      { requiresConfirmation: true },
      { origin: 'server' },
    );
    expect(result.annotations).toEqual({ requiresConfirmation: true });
  });
});

describe('worstCase', () => {
  it('takes the most conservative value of every hint', () => {
    expect(
      worstCase([
        { readOnlyHint: true, openWorldHint: false },
        {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
        { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      ]),
    ).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it('keeps read-only when every set is read-only', () => {
    expect(
      worstCase([
        { readOnlyHint: true, openWorldHint: false },
        { readOnlyHint: true, openWorldHint: false },
      ]),
    ).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('reads missing values as MCP defaults, and an empty list as the defaults', () => {
    expect(worstCase([{}])).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(worstCase([])).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('widens a tool declared read-only whose SQL argument may be anything', () => {
    expect(worstCaseForTool({ readOnlyHint: true, openWorldHint: false }, queryTool)).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it('includes what rules may set', () => {
    const list = rules([{ match: [{ pointer: '/x', equals: 1 }], set: { openWorldHint: true } }]);
    expect(
      worstCaseForTool({ readOnlyHint: true, openWorldHint: false }, [], list).openWorldHint,
    ).toBe(true);
  });
});

describe('resolveDynamicAnnotations', () => {
  const worst: ToolAnnotations = {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  };

  it.each([
    ['read', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['append', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['replace', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
    ['delete', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
  ])('resolves the proposal’s manage_files `%s`', (action, expected) => {
    const resolution = resolveDynamicAnnotations({
      staticAnnotations: worst,
      detected: manageFiles,
      args: { path: '/a', action },
    });
    expect(resolution?.annotations).toEqual(expected);
    expect(resolution).toMatchObject({
      origin: 'classifier',
      classifiers: ['action'],
      adjustments: [],
    });
  });

  it('confirms a DELETE through a query tool declared read-only', () => {
    const resolution = resolveDynamicAnnotations({
      staticAnnotations: { readOnlyHint: true },
      detected: queryTool,
      args: { sql: 'DELETE FROM users WHERE id = 1' },
    });
    expect(resolution?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(resolution?.adjustments.map((item) => [item.field, item.action])).toEqual([
      ['readOnlyHint', 'exceeds-static'],
      ['destructiveHint', 'exceeds-static'],
    ]);
    expect(resolution?.reasons['destructiveHint']?.text).toBe(
      'SQL `DELETE FROM users WHERE id = 1` deletes rows',
    );
  });

  it('does not apply when no classifier reads the arguments and no rule matches', () => {
    expect(
      resolveDynamicAnnotations({ detected: manageFiles, args: { action: 'frobnicate' } }),
    ).toBeUndefined();
    expect(resolveDynamicAnnotations({ detected: queryTool, args: { sql: 42 } })).toBeUndefined();
    expect(resolveDynamicAnnotations({ detected: [], args: {} })).toBeUndefined();
  });

  it('lets a rule decide before the classifiers, filling only the fields it leaves unset', () => {
    const list = rules([
      {
        name: 'reports',
        match: [{ pointer: '/action', equals: 'run_report' }],
        set: { readOnlyHint: true },
      },
    ]);
    const detected = detectArgumentClassifiers({
      type: 'object',
      properties: { action: { type: 'string', enum: ['run_report', 'delete'] } },
    });
    const resolution = resolveDynamicAnnotations({
      detected,
      rules: list,
      args: { action: 'run_report' },
    });
    expect(resolution).toMatchObject({
      origin: 'rule',
      rule: 'rule 1 ("reports")',
      classifiers: ['action'],
    });
    expect(resolution?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(resolution?.reasons['idempotentHint']?.text).toContain('rule 1 ("reports") matched');
  });

  it('keeps a classifier’s write hints under a rule that agrees it writes', () => {
    const list = rules([
      { match: [{ pointer: '/sql', regex: '^UPDATE' }], set: { requiresConfirmation: true } },
    ]);
    const resolution = resolveDynamicAnnotations({
      detected: queryTool,
      rules: list,
      args: { sql: 'UPDATE t SET n = n + 1' },
    });
    expect(resolution?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      requiresConfirmation: true,
    });
  });

  it('skips rules for other tools', () => {
    const list = rules([
      { tool: 'other.*', match: [{ pointer: '/sql', regex: '.' }], set: { readOnlyHint: true } },
    ]);
    const resolution = resolveDynamicAnnotations({
      detected: queryTool,
      rules: list,
      tool: 'db.query',
      args: { sql: 'DROP TABLE t' },
    });
    expect(resolution?.origin).toBe('classifier');
  });

  it('takes the worst over several classifiers that apply', () => {
    const detected = detectArgumentClassifiers({
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['read', 'exec'] },
        command: { type: 'string' },
      },
    });
    const resolution = resolveDynamicAnnotations({
      detected,
      args: { action: 'read', command: 'rm -rf /tmp/x' },
    });
    expect(resolution?.classifiers).toEqual(['action', 'shell']);
    expect(resolution?.annotations.destructiveHint).toBe(true);
  });

  it('reads an HTTP request from its method, path and body', () => {
    const detected = detectArgumentClassifiers({
      type: 'object',
      properties: {
        method: { enum: ['GET', 'POST', 'DELETE'] },
        path: { type: 'string' },
        body: {},
      },
    });
    const deletion = resolveDynamicAnnotations({
      detected,
      args: { method: 'DELETE', path: '/api/dashboards/uid/x' },
    });
    expect(deletion?.reasons['destructiveHint']?.text).toContain('DELETE /api/dashboards/uid/x');
    const query = resolveDynamicAnnotations({
      detected,
      args: { method: 'POST', path: '/graphql', body: { query: '{ me { id } }' } },
    });
    expect(query?.annotations.readOnlyHint).toBe(true);
  });

  describe('with a downstream server’s answer', () => {
    it('bounds the answer by the server’s static annotations', () => {
      const resolution = resolveDynamicAnnotations({
        trust: 'trusted',
        staticAnnotations: { readOnlyHint: false, destructiveHint: false },
        detected: [],
        args: {},
        downstream: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      });
      expect(resolution?.origin).toBe('server');
      expect(resolution?.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
      });
      expect(resolution?.reasons['destructiveHint']?.text).toContain(
        'the static value stands (SEP-1862)',
      );
    });

    it('checks an untrusted server’s answer against the classifiers', () => {
      const resolution = resolveDynamicAnnotations({
        staticAnnotations: worst,
        detected: queryTool,
        args: { sql: 'DROP TABLE users' },
        downstream: { readOnlyHint: true },
      });
      expect(resolution?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(resolution?.adjustments.map((item) => item.action)).toContain('classifier-check');
      expect(resolution?.reasons['readOnlyHint']?.text).toContain('drops an object');
    });

    it('takes a trusted server’s answer as it is, within bounds', () => {
      const resolution = resolveDynamicAnnotations({
        staticAnnotations: worst,
        detected: queryTool,
        args: { sql: 'DROP TABLE users' },
        downstream: { readOnlyHint: true },
        trust: 'trusted',
      });
      expect(resolution?.annotations).toEqual({ readOnlyHint: true });
      expect(resolution?.adjustments).toEqual([]);
    });
  });
});
