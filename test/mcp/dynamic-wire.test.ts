import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HintField } from '../../src/core/annotations/types.js';
import { parseValidationMessage } from '../../src/mcp/dynamic-validate.js';
import type { ResolvedHints } from '../../src/mcp/index.js';
import {
  TOOL_RESOLUTION_EXTENSION,
  answerDynamicRequest,
  boundViolations,
  completeHints,
  declaresDynamicAnnotations,
  declaresToolResolution,
  hasDynamicAnnotations,
  isResolvableTool,
  markDynamicTool,
  readDynamicParams,
  readHints,
  readResolveResult,
  staticHints,
  validateArguments,
} from '../../src/mcp/index.js';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);

const hints = (
  readOnlyHint: boolean,
  destructiveHint: boolean,
  idempotentHint: boolean,
  openWorldHint: boolean,
): ResolvedHints => ({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint });

describe('boundViolations', () => {
  it.each<[string, Record<string, boolean> | undefined, ResolvedHints, HintField[]]>([
    ['no static annotations allow anything', undefined, hints(false, true, false, true), []],
    [
      'static read-only forbids a write',
      { readOnlyHint: true },
      hints(false, false, true, false),
      ['readOnlyHint'],
    ],
    ['static read-only allows a read', { readOnlyHint: true }, hints(true, false, true, true), []],
    [
      'static not destructive forbids destructive',
      { destructiveHint: false },
      hints(false, true, false, true),
      ['destructiveHint'],
    ],
    [
      'a read is never destructive, whatever it says',
      { destructiveHint: false },
      hints(true, true, false, true),
      [],
    ],
    [
      'static idempotent forbids a non-idempotent write',
      { idempotentHint: true },
      hints(false, true, false, true),
      ['idempotentHint'],
    ],
    [
      'static idempotent says nothing of a read',
      { idempotentHint: true },
      hints(true, false, false, true),
      [],
    ],
    [
      'static closed world forbids open world',
      { openWorldHint: false },
      hints(true, false, true, true),
      ['openWorldHint'],
    ],
    [
      'worst case allows every action',
      { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      hints(false, true, true, false),
      [],
    ],
    [
      'several at once',
      { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      hints(false, true, false, true),
      ['destructiveHint', 'openWorldHint'],
    ],
  ])('%s', (_label, staticAnnotations, resolved, expected) => {
    expect(boundViolations(staticAnnotations, resolved)).toEqual(expected);
  });
});

describe('staticHints and completeHints', () => {
  it('reads missing static hints as MCP defaults, read-only implying the rest', () => {
    expect(staticHints(undefined)).toEqual(hints(false, true, false, true));
    expect(staticHints({ readOnlyHint: true })).toEqual(hints(true, false, true, true));
  });

  it('keeps the static value of a hint the resolver left out', () => {
    const worst = {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    };
    expect(completeHints(worst, {})).toEqual(hints(false, true, false, false));
    expect(completeHints(worst, { destructiveHint: false })).toEqual(
      hints(false, false, false, false),
    );
  });

  it('makes a read-only answer not destructive and idempotent unless it says otherwise', () => {
    expect(completeHints(undefined, { readOnlyHint: true })).toEqual(
      hints(true, false, true, true),
    );
    expect(completeHints(undefined, { readOnlyHint: true, idempotentHint: false })).toEqual(
      hints(true, false, false, true),
    );
  });
});

describe('reading the wire', () => {
  it('accepts only the four hints, as booleans', () => {
    expect(readHints({ readOnlyHint: true }, { complete: false })).toEqual({
      ok: true,
      value: { readOnlyHint: true },
    });
    expect(readHints({ readOnlyHint: 1 }, { complete: false })).toEqual({
      ok: false,
      problem: 'readOnlyHint must be a boolean',
    });
    expect(readHints({ title: 'x' }, { complete: false })).toMatchObject({ ok: false });
    expect(readHints([], { complete: false })).toMatchObject({ ok: false });
    expect(readHints({ readOnlyHint: true }, { complete: true })).toEqual({
      ok: false,
      problem: 'missing destructiveHint, idempotentHint, openWorldHint',
    });
  });

  it('checks a tools/resolve result: resultType, name and all four hints', () => {
    const annotations = hints(true, false, true, false);
    expect(readResolveResult({ resultType: 'complete', name: 't', annotations }, 't')).toEqual({
      ok: true,
      value: annotations,
    });
    expect(readResolveResult({ name: 't', annotations }, 't')).toMatchObject({ ok: true });
    expect(readResolveResult({ resultType: 'later', name: 't', annotations }, 't')).toMatchObject({
      ok: false,
      kind: 'malformed',
    });
    expect(readResolveResult({ name: 'u', annotations }, 't')).toMatchObject({
      ok: false,
      kind: 'name-mismatch',
    });
    expect(readResolveResult({ name: 't', annotations: {} }, 't')).toMatchObject({
      ok: false,
      kind: 'malformed',
    });
  });

  it('checks params: a name and an arguments object', () => {
    expect(readDynamicParams({ name: 't', arguments: {} })).toEqual({
      ok: true,
      value: { name: 't', arguments: {} },
    });
    expect(readDynamicParams({ name: 't' })).toMatchObject({ ok: false });
    expect(readDynamicParams({ name: '', arguments: {} })).toMatchObject({ ok: false });
    expect(readDynamicParams({ name: 't', arguments: [] })).toMatchObject({ ok: false });
  });

  it('marks a tool without touching the original or its other _meta keys', () => {
    const tool = { name: 't', _meta: { 'vendor/x': 1 } };
    const marked = markDynamicTool(tool, { annotations: true, resolvable: true });
    expect(marked).toEqual({
      name: 't',
      dynamicAnnotations: true,
      _meta: { 'vendor/x': 1, [TOOL_RESOLUTION_EXTENSION]: { resolvable: true } },
    });
    expect(tool).toEqual({ name: 't', _meta: { 'vendor/x': 1 } });
    expect(isResolvableTool(marked)).toBe(true);
    expect(hasDynamicAnnotations(marked)).toBe(true);
    expect(isResolvableTool(tool)).toBe(false);
    expect(markDynamicTool(tool, { annotations: false, resolvable: false })).toEqual(tool);
  });

  it('counts the extension as declared only with empty settings', () => {
    expect(declaresToolResolution({ extensions: { [TOOL_RESOLUTION_EXTENSION]: {} } })).toBe(true);
    expect(declaresToolResolution({ extensions: { [TOOL_RESOLUTION_EXTENSION]: { v: 2 } } })).toBe(
      false,
    );
    expect(declaresToolResolution({ extensions: {} })).toBe(false);
    expect(declaresToolResolution(undefined)).toBe(false);
    expect(declaresDynamicAnnotations({ tools: { dynamicAnnotations: true } })).toBe(true);
    expect(declaresDynamicAnnotations({ tools: {} })).toBe(false);
  });
});

describe('validateArguments', () => {
  const schema = z.toJSONSchema(
    z.object({
      path: z.string(),
      action: z.enum(['read', 'delete']),
      tags: z.array(z.string()).optional(),
    }),
  );

  it('validates against a zod-made 2020-12 schema, without changing the arguments', () => {
    expect(schema['$schema']).toContain('2020-12');
    const args = { path: 'a', action: 'read' };
    expect(validateArguments(schema, args)).toEqual({ kind: 'valid' });
    expect(args).toEqual({ path: 'a', action: 'read' });
  });

  it('reports every problem with its pointer', () => {
    expect(validateArguments(schema, { action: 'shred', tags: ['a', 1] })).toEqual({
      kind: 'invalid',
      issues: [
        { instancePath: '', message: "must have required property 'path'" },
        { instancePath: '/action', message: 'must be equal to one of the allowed values' },
        { instancePath: '/tags/1', message: 'must be string' },
      ],
    });
  });

  it('calls a schema it cannot compile unusable, not the arguments invalid', () => {
    const broken = { $schema: 'https://example.com/my-dialect', type: 'object' };
    expect(validateArguments(broken, {})).toMatchObject({ kind: 'unusable-schema' });
    expect(validateArguments('nope', {})).toMatchObject({ kind: 'unusable-schema' });
  });

  it('splits the validator message at each error only', () => {
    expect(
      parseValidationMessage('data/a must be string, data must have required property "b, c"'),
    ).toEqual([
      { instancePath: '/a', message: 'must be string' },
      { instancePath: '', message: 'must have required property "b, c"' },
    ]);
  });
});

describe('answerDynamicRequest', () => {
  const tool = {
    name: 'multi',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  };
  const input = {
    name: 'multi',
    arguments: { n: 1 },
    tool,
    resolver: () => ({ readOnlyHint: true }),
  };

  it('answers each method in its own shape', async () => {
    const read = hints(true, false, true, false);
    expect(await answerDynamicRequest({ ...input, method: 'tools/annotations' })).toEqual({
      ok: true,
      hints: read,
      result: { annotations: read },
    });
    expect(await answerDynamicRequest({ ...input, method: 'tools/resolve' })).toEqual({
      ok: true,
      hints: read,
      result: { resultType: 'complete', name: 'multi', annotations: read },
    });
  });

  it('returns the errors rather than throwing them', async () => {
    const unknown = await answerDynamicRequest({
      ...input,
      method: 'tools/resolve',
      tool: undefined,
    });
    expect(unknown).toEqual({ ok: false, error: { code: -32602, message: 'Unknown tool: multi' } });
    const invalid = await answerDynamicRequest({
      ...input,
      method: 'tools/resolve',
      arguments: {},
    });
    expect(invalid).toMatchObject({ ok: false, error: { code: -32602 } });
    const open = await answerDynamicRequest({
      ...input,
      method: 'tools/resolve',
      resolver: () => ({ openWorldHint: true }),
    });
    expect(open).toMatchObject({
      ok: false,
      error: { code: -32603, data: { fields: ['openWorldHint'] } },
    });
  });

  it('never runs the resolver on invalid arguments', async () => {
    let runs = 0;
    await answerDynamicRequest({
      ...input,
      method: 'tools/annotations',
      arguments: { n: 'one' },
      resolver: () => {
        runs += 1;
        return {};
      },
    });
    expect(runs).toBe(0);
  });
});

describe('the hintgate/mcp entry', () => {
  it('resolves from dist through the package exports and loads no child_process', async () => {
    const script = [
      "const mcp = await import('hintgate/mcp');",
      'console.log(JSON.stringify({',
      '  names: Object.keys(mcp).sort(),',
      "  childProcess: process.moduleLoadList.some((m) => m.includes('child_process')),",
      '}));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
    });
    const loaded = JSON.parse(stdout) as { names: string[]; childProcess: boolean };
    expect(loaded.names).toEqual(
      expect.arrayContaining(['addDynamicAnnotations', 'preflight', 'callToolSafely']),
    );
    expect(loaded.childProcess).toBe(false);
  });
});
