import { describe, expect, it } from 'vitest';
import { classifyActionValue, readSchema } from '../../../src/core/inference/schema-signals.js';

describe('classifyActionValue', () => {
  it.each([
    ['get_workflow', 'read'],
    ['list_workflow_runs', 'read'],
    ['download_workflow_run_artifact', 'read'],
    ['delete_workflow_run_logs', 'destructive'],
    // A workflow is automation that may do anything; a suite of tests only checks.
    ['rerun_workflow_run', 'exec'],
    ['run_test_suite', 'additive'],
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
        page_url: { type: 'string' },
      },
    });
    expect(reading.dryRun?.argument).toBe('dry-run');
    expect(reading.confirm?.argument).toBe('Force');
    expect(reading.preview).toBeUndefined();
    expect(reading.url?.argument).toBe('page_url');
  });

  it.each([
    // Cloudinary's notification_url, SmartBear's nextUrl, Linear's logoUrl, Firecrawl's
    // webhook: addresses the service calls back, a page cursor, a picture.
    ['notification_url'],
    ['nextUrl'],
    ['logoUrl'],
    ['webhookUrl'],
  ])('reads %s as an attribute, not an address the tool reaches', (argument) => {
    const reading = readSchema({ type: 'object', properties: { [argument]: { type: 'string' } } });
    expect(reading.url).toBeUndefined();
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

  it("reads the arguments wrapped in a single object argument as the tool's own", () => {
    // CircleCI and Neon wrap every argument in `params`, LaunchDarkly in `request`.
    const reading = readSchema({
      type: 'object',
      properties: {
        params: {
          type: 'object',
          properties: { sql: { type: 'string' }, projectId: { type: 'string' } },
        },
      },
    });
    expect(reading.exec?.argument).toBe('sql');
    const nested = readSchema({
      type: 'object',
      properties: {
        name: { type: 'string' },
        options: { type: 'object', properties: { sql: { type: 'string' } } },
      },
    });
    expect(nested.exec).toBeUndefined();
  });

  it("reads action values quoted in the argument's description when there is no enum", () => {
    // GitHub's sub_issue_write and Azure's azuremigrate_platformlandingzone_request.
    const reading = readSchema({
      type: 'object',
      properties: {
        method: {
          type: 'string',
          description:
            "The action to perform. Options are:\n- 'add' - add a sub-issue.\n- 'remove' - " +
            "remove a sub-issue.\n- 'reprioritize' - change the order.",
        },
      },
    });
    expect(reading.action).toMatchObject({ argument: 'method', value: 'remove' });
  });

  it('reads quoted words as actions only when two or more list them, never for a command', () => {
    const example = readSchema({
      type: 'object',
      properties: { mode: { type: 'string', description: "The mode, e.g. 'fast'." } },
    });
    expect(example.action).toBeUndefined();
    const command = readSchema({
      type: 'object',
      properties: {
        command: { type: 'string', description: "A git command such as 'status' or 'log'." },
      },
    });
    expect(command.action).toBeUndefined();
    expect(command.exec?.argument).toBe('command');
  });

  it('finds output folders and files by their normalized names', () => {
    for (const argument of ['outputDir', 'output_path', 'save-to', 'downloadPath']) {
      const reading = readSchema({
        type: 'object',
        properties: { [argument]: { type: 'string' } },
      });
      expect(reading.output?.argument).toBe(argument);
    }
    const input = readSchema({ type: 'object', properties: { filePath: { type: 'string' } } });
    expect(input.output).toBeUndefined();
  });

  it('reads anything that is not an object schema as empty', () => {
    for (const schema of [null, undefined, 'x', 42, []]) {
      expect(readSchema(schema)).toMatchObject({ properties: 0, action: undefined });
    }
  });
});
