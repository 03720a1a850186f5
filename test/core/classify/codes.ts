/**
 * Short codes for the three write hints, so classifier tables stay readable:
 * R read-only; A additive; AI additive and idempotent; D destructive; DI destructive and
 * idempotent.
 */
import type { ClassifierResult } from '../../../src/core/dynamic/index.js';

export type HintCode = 'R' | 'A' | 'AI' | 'D' | 'DI';

/** The code of a result's hints; `-` when the classifier did not apply. */
export function codeOf(result: ClassifierResult | undefined): string {
  if (result === undefined) return '-';
  const { readOnlyHint, destructiveHint, idempotentHint } = result.annotations;
  if (readOnlyHint) return destructiveHint || !idempotentHint ? 'R?' : 'R';
  return `${destructiveHint ? 'D' : 'A'}${idempotentHint ? 'I' : ''}`;
}

/** Every reason text of a result, joined, for `toContain` checks. */
export function reasonText(result: ClassifierResult | undefined): string {
  if (result === undefined) return '';
  return Object.values(result.reasons)
    .map((reason) => reason?.text ?? '')
    .join(' | ');
}
