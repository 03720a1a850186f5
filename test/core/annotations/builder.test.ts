import { describe, expect, expectTypeOf, it } from 'vitest';
import { toolAnnotations } from '../../../src/core/annotations/builder.js';
import type { ToolAnnotations } from '../../../src/core/annotations/types.js';

describe('toolAnnotations', () => {
  it('takes every MCP field by name and keeps extra fields', () => {
    const built = toolAnnotations({
      title: 'Draw Random Normal Numbers',
      readOnlyHint: true,
      openWorldHint: false,
      idempotentHint: undefined,
      owner: 'stats-team',
    });
    expect(built).toEqual({
      title: 'Draw Random Normal Numbers',
      readOnlyHint: true,
      openWorldHint: false,
      owner: 'stats-team',
    });
    expect('idempotentHint' in built).toBe(false);
    expectTypeOf(built).toExtend<ToolAnnotations>();
    expectTypeOf(built.owner).toEqualTypeOf<'stats-team'>();
    expectTypeOf(built.readOnlyHint).toEqualTypeOf<true>();
  });

  it('copies arrays so later changes to the input do not leak in', () => {
    const tags = ['a'];
    const built = toolAnnotations({ tags });
    tags.push('b');
    expect(built.tags).toEqual(['a']);
  });

  it('rejects wrongly typed MCP fields at compile time', () => {
    // @ts-expect-error readOnlyHint is a boolean
    toolAnnotations({ readOnlyHint: 'yes' });
  });
});
