import { describe, expect, it } from 'vitest';
import { classifyActionValue, readSchema } from '../../../src/core/inference/schema-signals.js';

describe('classifyActionValue', () => {
  it.each([
    ['get_workflow', 'read'],
    ['list_workflow_runs', 'read'],
    ['download_workflow_run_artifact', 'read'],
    ['delete_workflow_run_logs', 'destructive'],
    ['rerun_workflow_run', 'exec'],
    ['append', 'additive'],
    ['replace', 'destructive'],
    ['select', 'read'],
    ['truncate', 'destructive'],
    ['force_push', 'destructive'],
  ] as const)('reads %s as %s', (value, kind) => {
    expect(classifyActionValue(value)?.kind).toBe(kind);
  });

  it('reads HTTP methods only for a method argument', () => {
    expect(classifyActionValue('POST', true)?.kind).toBe('additive');
    expect(classifyActionValue('PATCH', true)?.kind).toBe('update');
    expect(classifyActionValue('fast')).toBeUndefined();
  });
});

describe('readSchema', () => {
  it('keeps the worst action value and whether all values read', () => {
    const reading = readSchema({
      type: 'object',
      properties: { mode: { type: 'string', enum: ['read', 'append', 'fast'] } },
    });
    expect(reading.action).toMatchObject({
      argument: 'mode',
      value: 'append',
      kind: 'additive',
      allRead: false,
      count: 3,
    });
  });

  it('reads the arguments of every branch of a top-level union', () => {
    const reading = readSchema({
      oneOf: [
        { type: 'object', properties: { action: { const: 'list' } } },
        { type: 'object', properties: { action: { const: 'delete' }, sql: { type: 'string' } } },
      ],
    });
    expect(reading.action?.kind).toBe('destructive');
    expect(reading.exec?.argument).toBe('sql');
  });

  it('finds flags by their normalized names, booleans only', () => {
    const reading = readSchema({
      type: 'object',
      properties: {
        'dry-run': { type: 'boolean' },
        Force: { type: 'boolean' },
        preview: { type: 'string' },
        webhookUrl: { type: 'string' },
        file_path: { type: 'string' },
      },
    });
    expect(reading.dryRun?.argument).toBe('dry-run');
    expect(reading.confirm?.argument).toBe('Force');
    expect(reading.preview).toBeUndefined();
    expect(reading.url?.argument).toBe('webhookUrl');
    expect(reading.path?.argument).toBe('file_path');
  });

  it('counts arguments, nested objects and required ones', () => {
    const reading = readSchema({
      type: 'object',
      required: ['a', 'b'],
      properties: {
        a: { type: 'string' },
        b: { type: 'object', properties: { c: { type: 'object', properties: {} } } },
        d: { type: 'array', items: { type: 'object', properties: { e: { type: 'string' } } } },
      },
    });
    expect(reading).toMatchObject({ properties: 3, nested: 3, required: 2 });
  });

  it('reads anything that is not an object schema as empty', () => {
    for (const schema of [null, undefined, 'x', 42, []]) {
      expect(readSchema(schema)).toMatchObject({ properties: 0, action: undefined });
    }
  });
});
