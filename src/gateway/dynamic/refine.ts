import type { EffectiveAnnotations } from '../../core/annotations/effective.js';
import type { AnnotatedValue } from '../../core/annotations/types.js';
import type { DynamicResolution } from '../../core/dynamic/resolve.js';

/**
 * A tool's effective annotations refined for one call: each field the resolution decided
 * takes its value with source `dynamic` and the resolution's reason; a call resolved
 * read-only is also not destructive and idempotent. Every other field keeps its value and
 * source from `base` (the tool's listed annotations: its worst case), so a field the
 * resolution left open never becomes less safe, except that an inferred
 * `requiresConfirmation` (inference's "looks destructive") is dropped for a call that is not
 * destructive. A new object; `base` is not changed.
 */
export function refineAnnotations(
  base: EffectiveAnnotations,
  resolution: DynamicResolution,
): EffectiveAnnotations {
  const annotations: Record<string, unknown> = { ...base.annotations };
  const provenance: Record<string, AnnotatedValue> = { ...base.provenance };
  const layer = resolution.annotations;
  for (const field of Object.keys(layer)) {
    const value = layer[field];
    if (value === undefined) continue;
    annotations[field] = value;
    const reason = resolution.reasons[field]?.text;
    provenance[field] =
      reason === undefined ? { value, source: 'dynamic' } : { value, source: 'dynamic', reason };
  }
  if (layer.readOnlyHint === true) {
    const reason = resolution.reasons['readOnlyHint']?.text;
    const implied = reason === undefined ? 'implied by readOnlyHint: true' : reason;
    for (const [field, value] of [
      ['destructiveHint', false],
      ['idempotentHint', true],
    ] as const) {
      if (layer[field] !== undefined) continue;
      annotations[field] = value;
      provenance[field] = { value, source: 'dynamic', reason: implied };
    }
  }
  // An inferred `requiresConfirmation` only restates that the tool looks destructive: a call
  // that is not drops it, so the record does not say "confirm" of a read.
  const confirmation = provenance['requiresConfirmation'];
  if (
    confirmation?.source === 'inferred' &&
    (annotations['readOnlyHint'] === true || annotations['destructiveHint'] === false)
  ) {
    delete annotations['requiresConfirmation'];
    delete provenance['requiresConfirmation'];
  }
  return { annotations, provenance, conflicts: base.conflicts };
}
