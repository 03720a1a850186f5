import { describe, expect, it } from 'vitest';
import { detectConflicts } from '../../../src/core/annotations/conflicts.js';
import { resolveEffectiveAnnotations } from '../../../src/core/annotations/effective.js';
import type { InferenceResult } from '../../../src/core/inference/types.js';

const deleteRepo: InferenceResult = {
  annotations: { readOnlyHint: false, destructiveHint: true },
  reasons: {
    readOnlyHint: {
      part: 'name',
      word: 'delete',
      rule: 'destructive-verb',
      strength: 'strong',
      text: 'name word "delete" is a destructive verb',
    },
    destructiveHint: {
      part: 'name',
      word: 'delete',
      rule: 'destructive-verb',
      strength: 'strong',
      text: 'name word "delete" is a destructive verb',
    },
  },
};

describe('detectConflicts', () => {
  it('flags an untrusted server declaring a destructive tool read-only', () => {
    const conflicts = detectConflicts({
      declared: { readOnlyHint: true, destructiveHint: false },
      inference: deleteRepo,
      trust: 'untrusted',
    });
    expect(conflicts.map((c) => [c.field, c.declared, c.resolved])).toEqual([
      ['readOnlyHint', true, false],
      ['destructiveHint', false, true],
    ]);
    expect(conflicts[0]?.reason).toContain('"delete"');
  });

  it('takes a trusted server at its word', () => {
    expect(
      detectConflicts({
        declared: { readOnlyHint: true },
        inference: deleteRepo,
        trust: 'trusted',
      }),
    ).toEqual([]);
  });

  it('ignores weak evidence', () => {
    const weak: InferenceResult = {
      annotations: { readOnlyHint: false },
      reasons: {
        readOnlyHint: { ...deleteRepo.reasons['readOnlyHint']!, strength: 'weak' },
      },
    };
    expect(
      detectConflicts({ declared: { readOnlyHint: true }, inference: weak, trust: 'untrusted' }),
    ).toEqual([]);
  });
});

describe('resolveEffectiveAnnotations', () => {
  it('passes declared values through over inferred ones', () => {
    const effective = resolveEffectiveAnnotations({
      inference: { annotations: { readOnlyHint: true, title: 'Inferred' }, reasons: {} },
      declared: { title: 'Declared', openWorldHint: false },
    });
    expect(effective.annotations.title).toBe('Declared');
    expect(effective.provenance['openWorldHint']?.source).toBe('declared');
    expect(effective.provenance['readOnlyHint']?.source).toBe('inferred');
  });

  it('acts on the conservative value when an untrusted declaration conflicts', () => {
    const effective = resolveEffectiveAnnotations({
      inference: deleteRepo,
      declared: { readOnlyHint: true, destructiveHint: false, title: 'Delete repo' },
    });
    expect(effective.annotations.readOnlyHint).toBe(false);
    expect(effective.annotations.destructiveHint).toBe(true);
    expect(effective.annotations.title).toBe('Delete repo');
    expect(effective.conflicts).toHaveLength(2);
  });

  it('lets a user override settle a conflict', () => {
    const effective = resolveEffectiveAnnotations({
      inference: deleteRepo,
      declared: { readOnlyHint: true },
      overrides: { readOnlyHint: true },
    });
    expect(effective.annotations.readOnlyHint).toBe(true);
    expect(effective.provenance['readOnlyHint']?.source).toBe('override');
  });

  it('ranks server defaults between inferred and declared values', () => {
    const effective = resolveEffectiveAnnotations({
      inference: { annotations: { openWorldHint: true, idempotentHint: true }, reasons: {} },
      serverDefaults: { openWorldHint: false, idempotentHint: false },
      declared: { idempotentHint: true },
    });
    expect(effective.annotations.openWorldHint).toBe(false);
    expect(effective.provenance['openWorldHint']?.source).toBe('server-default');
    expect(effective.provenance['idempotentHint']?.source).toBe('declared');
  });

  it('completes every hint, with the MCP defaults where nothing is known', () => {
    const effective = resolveEffectiveAnnotations({});
    expect(effective.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(effective.provenance['destructiveHint']?.source).toBe('spec-default');
  });

  it('completes a read-only tool as non-destructive and idempotent', () => {
    const effective = resolveEffectiveAnnotations({ declared: { readOnlyHint: true } });
    expect(effective.annotations.destructiveHint).toBe(false);
    expect(effective.annotations.idempotentHint).toBe(true);
    expect(effective.provenance['destructiveHint']?.reason).toBe('implied by readOnlyHint: true');
  });
});
