import { describe, expect, it } from 'vitest';
import { validateAnnotations } from '../../../src/core/annotations/validate.js';

const codes = (a: Record<string, unknown>) => {
  const result = validateAnnotations(a);
  return {
    errors: result.errors.map((f) => `${f.field}:${f.code}`),
    warnings: result.warnings.map((f) => `${f.field}:${f.code}`),
  };
};

describe('validateAnnotations', () => {
  it('accepts a consistent set', () => {
    expect(
      codes({ title: 'x', readOnlyHint: false, destructiveHint: true, tags: ['a'], costHint: 0 }),
    ).toEqual({ errors: [], warnings: [] });
  });

  it.each([
    [{ readOnlyHint: true, destructiveHint: true }, 'destructiveHint:read-only-and-destructive'],
    [{ readOnlyHint: 'yes' }, 'readOnlyHint:not-boolean'],
    [{ title: 3 }, 'title:not-string'],
    [{ rateLimitHint: -5 }, 'rateLimitHint:negative'],
    [{ estimatedDuration: Infinity }, 'estimatedDuration:not-finite'],
    [{ costHint: Number.NaN }, 'costHint:not-finite'],
    [{ tags: ['ok', '', 'fine'] }, 'tags[1]:empty-tag'],
    [{ tags: 'admin' }, 'tags:not-array'],
    [{ complexity: 'hard' }, 'complexity:bad-enum'],
    [{ securityLevel: 'secret' }, 'securityLevel:bad-enum'],
  ])('reports %j as an error', (annotations, expected) => {
    expect(codes(annotations).errors).toContain(expected);
  });

  it('warns about hints that mean nothing on a read-only tool and about duplicate tags', () => {
    expect(
      codes({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, tags: ['a', 'a'] })
        .warnings,
    ).toEqual([
      'destructiveHint:meaningless-when-read-only',
      'idempotentHint:meaningless-when-read-only',
      'tags[1]:duplicate-tag',
    ]);
  });

  it('names the field and the problem in its messages', () => {
    const [finding] = validateAnnotations({ rateLimitHint: -5 }).errors;
    expect(finding?.message).toBe('rateLimitHint must not be negative (got -5)');
  });
});
