import type { InferenceResult } from '../inference/types.js';
import { detectConflicts } from './conflicts.js';
import type { MergedAnnotations } from './merge.js';
import { mergeAnnotations } from './merge.js';
import type {
  AnnotatedValue,
  AnnotationConflict,
  HintField,
  ToolAnnotations,
  Trust,
} from './types.js';
import { HINT_FIELDS, SPEC_DEFAULTS } from './types.js';

/** Everything that decides a tool's effective annotations, each layer optional. */
export interface EffectiveAnnotationsInput {
  readonly inference?: InferenceResult | undefined;
  readonly serverDefaults?: ToolAnnotations | undefined;
  readonly declared?: ToolAnnotations | undefined;
  readonly overrides?: ToolAnnotations | undefined;
  readonly dynamic?: ToolAnnotations | undefined;
  /** Reasons for the dynamic layer's values. */
  readonly dynamicReasons?: Readonly<Partial<Record<string, string>>> | undefined;
  /** Trust in the declaring server; `untrusted` unless configured otherwise. */
  readonly trust?: Trust | undefined;
}

/** A tool's complete annotations, where each value came from, and any conflicts found. */
export interface EffectiveAnnotations extends MergedAnnotations {
  readonly conflicts: readonly AnnotationConflict[];
}

/**
 * Computes a tool's effective annotations: inferred values, then server defaults, then the
 * server's declared values, then user overrides, then dynamic values for one call, merged by
 * {@link mergeAnnotations}; declared values in conflict (see `detectConflicts`) give way to
 * the conservative inferred value; and the four hints are completed, so that every hint has
 * a value and a source (a read-only tool is non-destructive and idempotent; anything else
 * missing takes the MCP default).
 */
export function resolveEffectiveAnnotations(
  input: EffectiveAnnotationsInput,
): EffectiveAnnotations {
  const { inference, declared } = input;
  const conflicts =
    inference === undefined
      ? []
      : detectConflicts({ declared, inference, trust: input.trust ?? 'untrusted' });
  const merged = mergeAnnotations(
    inference && {
      source: 'inferred',
      annotations: inference.annotations,
      reasons: reasonTexts(inference),
    },
    input.serverDefaults && { source: 'server-default', annotations: input.serverDefaults },
    declared && { source: 'declared', annotations: withoutConflicts(declared, conflicts) },
    input.overrides && { source: 'override', annotations: input.overrides },
    input.dynamic && {
      source: 'dynamic',
      annotations: input.dynamic,
      reasons: input.dynamicReasons,
    },
  );
  return { ...completeHints(merged), conflicts };
}

/**
 * Fills the hints a merge left unset: a read-only tool is not destructive and is idempotent;
 * any other missing hint takes the MCP default, with source `spec-default`.
 */
export function completeHints(merged: MergedAnnotations): MergedAnnotations {
  const annotations: Record<string, unknown> = { ...merged.annotations };
  const provenance: Record<string, AnnotatedValue> = { ...merged.provenance };
  const readOnly = annotations['readOnlyHint'] === true;
  for (const field of HINT_FIELDS) {
    if (annotations[field] !== undefined) continue;
    const implied = readOnly ? impliedByReadOnly(field) : undefined;
    const value = implied ?? SPEC_DEFAULTS[field];
    annotations[field] = value;
    provenance[field] =
      implied === undefined
        ? { value, source: 'spec-default' }
        : { value, source: 'spec-default', reason: 'implied by readOnlyHint: true' };
  }
  return { annotations: annotations, provenance };
}

function impliedByReadOnly(field: HintField): boolean | undefined {
  if (field === 'destructiveHint') return false;
  if (field === 'idempotentHint') return true;
  return undefined;
}

function withoutConflicts(
  declared: ToolAnnotations,
  conflicts: readonly AnnotationConflict[],
): ToolAnnotations {
  if (conflicts.length === 0) return declared;
  const kept: Record<string, unknown> = { ...declared };
  for (const conflict of conflicts) delete kept[conflict.field];
  return kept;
}

function reasonTexts(inference: InferenceResult): Partial<Record<string, string>> {
  const texts: Partial<Record<string, string>> = {};
  for (const [field, reason] of Object.entries(inference.reasons)) {
    if (reason !== undefined) texts[field] = reason.text;
  }
  return texts;
}
