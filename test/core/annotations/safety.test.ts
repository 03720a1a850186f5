import { describe, expect, it } from 'vitest';
import {
  getToolSafetyLevel,
  isSafeToRetry,
  requiresConfirmation,
} from '../../../src/core/annotations/safety.js';
import { getAnnotationSummary } from '../../../src/core/annotations/summary.js';
import type { ToolAnnotations } from '../../../src/core/annotations/types.js';

describe('safety helpers', () => {
  it.each<[string, ToolAnnotations | undefined, string, boolean, boolean]>([
    ['no annotations', undefined, 'dangerous', false, true],
    ['empty annotations', {}, 'dangerous', false, true],
    ['read-only', { readOnlyHint: true }, 'safe', true, false],
    ['additive write', { destructiveHint: false }, 'moderate', false, false],
    [
      'idempotent destructive',
      { destructiveHint: true, idempotentHint: true },
      'dangerous',
      true,
      true,
    ],
    [
      'explicit confirmation',
      { readOnlyHint: true, requiresConfirmation: true },
      'moderate',
      true,
      true,
    ],
    [
      'confirmation waived',
      { destructiveHint: true, requiresConfirmation: false },
      'dangerous',
      false,
      false,
    ],
  ])('%s', (_label, annotations, level, retry, confirm) => {
    expect(getToolSafetyLevel(annotations)).toBe(level);
    expect(isSafeToRetry(annotations)).toBe(retry);
    expect(requiresConfirmation(annotations)).toBe(confirm);
  });
});

describe('getAnnotationSummary', () => {
  it('prints one line for logs', () => {
    expect(
      getAnnotationSummary({
        title: 'Delete User Account',
        destructiveHint: true,
        requiresConfirmation: true,
        complexity: 'simple',
        estimatedDuration: 250,
        tags: ['admin'],
      }),
    ).toBe(
      '[Delete User Account | DESTRUCTIVE | requires confirmation | simple | ~250ms | tags: admin]',
    );
  });

  it('says when there is nothing to say', () => {
    expect(getAnnotationSummary({})).toBe('[no annotations]');
    expect(getAnnotationSummary(undefined)).toBe('[no annotations]');
  });

  it('shows read-only and world hints', () => {
    expect(getAnnotationSummary({ readOnlyHint: true, openWorldHint: false })).toBe(
      '[READ-ONLY | closed world]',
    );
  });
});
