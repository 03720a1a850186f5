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
 * Finds declared values that relax safety against strong contrary evidence: an untrusted
 * server declaring `readOnlyHint: true` or `destructiveHint: false` on a tool whose name or
 * description strongly says it writes or destroys (`delete_repo` declared read-only). A
 * trusted server's word is never questioned, and weak evidence (a word somewhere in a long
 * description) never makes a conflict. Each conflict carries the conservative value policy
 * acts on.
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
    if (reason?.strength === 'strong') {
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
    if (reason?.strength === 'strong') {
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
