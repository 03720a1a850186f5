import { describe, expect, it } from 'vitest';
import { mergeAnnotations } from '../../../src/core/annotations/merge.js';
import type { ToolAnnotations } from '../../../src/core/annotations/types.js';

describe('mergeAnnotations', () => {
  it('keeps the higher-ranked source per field, whatever the order of the layers', () => {
    const merged = mergeAnnotations(
      { source: 'override', annotations: { destructiveHint: false } },
      { source: 'inferred', annotations: { readOnlyHint: false, destructiveHint: true } },
      { source: 'declared', annotations: { title: 'Declared' } },
    );
    expect(merged.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      title: 'Declared',
    });
    expect(merged.provenance['destructiveHint']).toEqual({ value: false, source: 'override' });
    expect(merged.provenance['readOnlyHint']?.source).toBe('inferred');
    expect(merged.provenance['title']?.source).toBe('declared');
  });

  it('never lets an undefined in a later layer erase a value', () => {
    const declared = { readOnlyHint: undefined } as unknown as ToolAnnotations;
    const merged = mergeAnnotations(
      { source: 'inferred', annotations: { readOnlyHint: true } },
      { source: 'declared', annotations: declared },
      { source: 'override', annotations: undefined },
      undefined,
    );
    expect(merged.annotations).toEqual({ readOnlyHint: true });
    expect(merged.provenance['readOnlyHint']?.source).toBe('inferred');
  });

  it('lets the later of two layers of the same source win', () => {
    const merged = mergeAnnotations(
      { source: 'override', annotations: { idempotentHint: true } },
      { source: 'override', annotations: { idempotentHint: false } },
    );
    expect(merged.annotations.idempotentHint).toBe(false);
  });

  it('merges tags without duplicates and credits the strongest contributor', () => {
    const merged = mergeAnnotations(
      { source: 'declared', annotations: { tags: ['safe', 'data'] } },
      { source: 'inferred', annotations: { tags: ['data', 'query'] } },
    );
    expect(merged.annotations.tags).toEqual(['data', 'query', 'safe']);
    expect(merged.provenance['tags']?.source).toBe('declared');
  });

  it('keeps annotation keys it does not know', () => {
    const merged = mergeAnnotations({
      source: 'declared',
      annotations: { vendorHint: { level: 2 }, readOnlyHint: true },
    });
    expect(merged.annotations['vendorHint']).toEqual({ level: 2 });
    expect(merged.provenance['vendorHint']?.source).toBe('declared');
  });

  it('records reasons beside the values they explain', () => {
    const merged = mergeAnnotations({
      source: 'inferred',
      annotations: { destructiveHint: true },
      reasons: { destructiveHint: 'name word "delete" is a destructive verb' },
    });
    expect(merged.provenance['destructiveHint']).toEqual({
      value: true,
      source: 'inferred',
      reason: 'name word "delete" is a destructive verb',
    });
  });

  it('does not modify its inputs', () => {
    const tags = ['a'];
    const layer = { source: 'declared' as const, annotations: { tags } };
    mergeAnnotations(layer, { source: 'override', annotations: { tags: ['b'] } });
    expect(tags).toEqual(['a']);
    expect(layer.annotations).toEqual({ tags: ['a'] });
  });
});
