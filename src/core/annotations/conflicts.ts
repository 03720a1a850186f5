import type { InferenceResult } from '../inference/types.js';
import type { AnnotationConflict, ToolAnnotations, Trust } from './types.js';

/** What conflict detection compares. */
export interface ConflictInput {
  /** The annotations the downstream server declared. */
  readonly declared: ToolAnnotations | undefined;
  /** hintgate's own reading of the tool. */
  readonly inference: InferenceResult;
  readonly trust: Trust;
}

/**
 * Finds declared values that relax safety against decisive contrary evidence: an
 * untrusted server declaring `readOnlyHint: true` or `destructiveHint: false` on a tool
 * whose main verb, in verb position, clearly says it destroys or writes
 * (`delete_repo` declared read-only), or that takes an argument running arbitrary code or
 * SQL. A trusted server's word is never questioned; weaker evidence (an update its author
 * calls non-destructive, a word more often a noun, a word somewhere in the description)
 * never makes a conflict, only a note (see `findDisagreements`). Each conflict carries the
 * conservative value policy acts on.
 */
export function detectConflicts({
  declared,
  inference,
  trust,
}: ConflictInput): AnnotationConflict[] {
  if (trust === 'trusted' || declared === undefined) return [];
  const conflicts: AnnotationConflict[] = [];
  const inferred = inference.annotations;

  if (declared.readOnlyHint === true && inferred.readOnlyHint === false) {
    const reason = inference.reasons['readOnlyHint'] ?? inference.reasons['destructiveHint'];
    if (reason?.strength === 'strong' && reason.decisive === true) {
      conflicts.push({
        field: 'readOnlyHint',
        declared: true,
        inferred: false,
        resolved: false,
        reason: `declared read-only, but ${reason.text}`,
      });
    }
  }
  if (declared.destructiveHint === false && inferred.destructiveHint === true) {
    const reason = inference.reasons['destructiveHint'];
    if (reason?.strength === 'strong' && reason.decisive === true) {
      conflicts.push({
        field: 'destructiveHint',
        declared: false,
        inferred: true,
        resolved: true,
        reason: `declared not destructive, but ${reason.text}`,
      });
    }
  }
  return conflicts;
}

/** A declared value inference disagrees with on evidence too weak to overrule it. */
export interface AnnotationNote {
  readonly field: 'readOnlyHint' | 'destructiveHint';
  readonly declared: boolean;
  readonly inferred: boolean;
  readonly reason: string;
}

/**
 * Disagreements between declared and inferred values that are not conflicts: the
 * declared value stands, and `hintgate lint` shows them as notes for the author to check.
 * Only the two hints policy relaxes on are compared; conflicts are left out.
 */
export function findDisagreements({ declared, inference }: ConflictInput): AnnotationNote[] {
  if (declared === undefined) return [];
  const notes: AnnotationNote[] = [];
  const inferred = inference.annotations;
  for (const field of ['readOnlyHint', 'destructiveHint'] as const) {
    const said = declared[field];
    const found = inferred[field];
    if (typeof said !== 'boolean' || typeof found !== 'boolean' || said === found) continue;
    const reason = inference.reasons[field];
    const relaxes = field === 'readOnlyHint' ? said : !said;
    if (relaxes && reason?.strength === 'strong' && reason.decisive === true) continue;
    if (field === 'destructiveHint' && declared.readOnlyHint === true) continue;
    const text = reason === undefined ? 'inference' : reason.text;
    notes.push({
      field,
      declared: said,
      inferred: found,
      reason: `declared ${field}=${String(said)}, but ${text}`,
    });
  }
  return notes;
}
