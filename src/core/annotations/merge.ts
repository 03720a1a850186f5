import type { AnnotatedValue, AnnotationSource, Provenance, ToolAnnotations } from './types.js';
import { SOURCE_RANK } from './types.js';

/** One layer of annotations and where they came from. */
export interface AnnotationLayer {
  readonly source: AnnotationSource;
  readonly annotations?: ToolAnnotations | undefined;
  /** Why a field has its value in this layer (inference and dynamic layers give reasons). */
  readonly reasons?: Readonly<Partial<Record<string, string>>> | undefined;
}

/** The merge of several layers: the effective values and, per field, their source. */
export interface MergedAnnotations {
  readonly annotations: ToolAnnotations;
  readonly provenance: Provenance;
}

/**
 * Merges layers of annotations field by field by source precedence (`spec-default` <
 * `inferred` < `server-default` < `declared` < `override` < `dynamic`; between layers of one
 * source, the later wins). `undefined` never erases a value, `tags` are merged without
 * duplicates (their source is the strongest layer that contributed), and keys hintgate does
 * not know are kept like any other. Inputs are not modified.
 *
 * This is the one place precedence is written.
 *
 * @example
 * mergeAnnotations(
 *   { source: 'inferred', annotations: { readOnlyHint: true, tags: ['data'] } },
 *   { source: 'declared', annotations: { readOnlyHint: undefined, tags: ['safe'] } },
 * ).annotations // { readOnlyHint: true, tags: ['data', 'safe'] }
 */
export function mergeAnnotations(
  ...layers: readonly (AnnotationLayer | undefined)[]
): MergedAnnotations {
  const values: Record<string, unknown> = {};
  const provenance: Record<string, AnnotatedValue> = {};
  const ordered = layers
    .map((layer, index) => ({ layer, index }))
    .filter(
      (entry): entry is { layer: AnnotationLayer; index: number } => entry.layer !== undefined,
    )
    .sort((a, b) => SOURCE_RANK[a.layer.source] - SOURCE_RANK[b.layer.source] || a.index - b.index);

  for (const { layer } of ordered) {
    const annotations = layer.annotations;
    if (annotations === undefined) continue;
    for (const [key, value] of Object.entries(annotations)) {
      if (value === undefined) continue;
      const reason = layer.reasons?.[key];
      if (key === 'tags' && Array.isArray(value)) {
        const merged = mergeTags(values[key], value);
        values[key] = merged;
        provenance[key] = annotated(merged, layer.source, reason);
        continue;
      }
      values[key] = value;
      provenance[key] = annotated(value, layer.source, reason);
    }
  }
  return { annotations: values, provenance };
}

function mergeTags(existing: unknown, incoming: readonly unknown[]): string[] {
  const tags = Array.isArray(existing) ? [...(existing as string[])] : [];
  for (const tag of incoming) {
    if (typeof tag === 'string' && !tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

function annotated(
  value: unknown,
  source: AnnotationSource,
  reason: string | undefined,
): AnnotatedValue {
  return reason === undefined ? { value, source } : { value, source, reason };
}
