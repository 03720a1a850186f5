/**
 * The vocabulary every argument classifier speaks: a finding (what one part of an argument
 * does, in MCP hints, with a reason) and the worst-per-field combination of findings.
 */
import type { HintField } from '../annotations/types.js';
import type { InferenceReason } from '../inference/types.js';

/**
 * The hints a classifier decides for one call. The three write hints are always set;
 * `openWorldHint` only when the argument itself says so (a `curl` to a URL), since whether
 * a tool reaches an open world is otherwise a property of the tool, not of the call.
 */
export type CallHints = {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint?: boolean;
};

/** What a classifier returns for one call's argument. */
export type ClassifierResult = {
  /** The refined hints for this call. */
  readonly annotations: CallHints;
  /** For each hint set, the part of the argument that decided it. */
  readonly reasons: Readonly<Partial<Record<HintField, InferenceReason>>>;
  /** Every finding, in the order found (one per statement, command or operation). */
  readonly findings: readonly InferenceReason[];
};

/** One thing a part of an argument does, and why it reads that way. */
export interface Finding {
  readonly hints: CallHints;
  readonly reason: InferenceReason;
  /** A more precise reason for one field (`SET n = n + 1` for `idempotentHint`). */
  readonly fieldReasons?: Readonly<Partial<Record<HintField, InferenceReason>>>;
}

/** Reads and changes nothing. */
export const READ: CallHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
/** Adds something new; doing it again adds it again. */
export const ADDITIVE: CallHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
};
/** Adds or changes without losing anything; doing it again changes nothing more. */
export const GENTLE_IDEMPOTENT: CallHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
};
/** Removes or replaces something; doing it again changes nothing more. */
export const DESTRUCTIVE_IDEMPOTENT: CallHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
};
/** Removes or changes something, and may change it again when repeated. */
export const DESTRUCTIVE: CallHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
};
/** What an argument hintgate cannot read is taken to do: anything. */
export const CONSERVATIVE: CallHints = DESTRUCTIVE;

/** Builds a reason for a part of an argument. */
export function argumentReason(word: string, rule: string, text: string): InferenceReason {
  return { part: 'argument', word, rule, strength: 'strong', text };
}

/** Builds a finding. */
export function finding(
  hints: CallHints,
  word: string,
  rule: string,
  text: string,
  fieldReasons?: Readonly<Partial<Record<HintField, InferenceReason>>>,
): Finding {
  const reason = argumentReason(word, rule, text);
  return fieldReasons === undefined ? { hints, reason } : { hints, reason, fieldReasons };
}

/** The same finding with other hints (an `UPDATE` that turns out not idempotent). */
export function withHints(
  base: Finding,
  hints: CallHints,
  fieldReasons?: Readonly<Partial<Record<HintField, InferenceReason>>>,
): Finding {
  const reasons = fieldReasons ?? base.fieldReasons;
  return reasons === undefined
    ? { hints, reason: base.reason }
    : { hints, reason: base.reason, fieldReasons: reasons };
}

/** How bad a finding is overall: used to pick the reason when several share a value. */
function severity(hints: CallHints): number {
  if (hints.readOnlyHint) return 0;
  return 1 + (hints.destructiveHint ? 2 : 0) + (hints.idempotentHint ? 0 : 1);
}

/** True when `value` is the less safe of the two values of `field`. */
export function isUnsafeValue(field: HintField, value: boolean): boolean {
  return field === 'readOnlyHint' || field === 'idempotentHint' ? !value : value;
}

const WRITE_FIELDS = ['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const;

/**
 * Combines findings, the worst value per field: read-only only if every finding is,
 * destructive if any is, idempotent only if all are, open-world if any says so. Each field's
 * reason comes from a finding holding the field's final value, the overall worst of them
 * first, the earliest on ties. No findings give `undefined`.
 */
export function combineFindings(findings: readonly Finding[]): ClassifierResult | undefined {
  if (findings.length === 0) return undefined;
  const hints: Record<string, boolean> = {};
  const reasons: Partial<Record<HintField, InferenceReason>> = {};
  for (const field of [...WRITE_FIELDS, 'openWorldHint'] as const) {
    let chosen: Finding | undefined;
    let chosenValue: boolean | undefined;
    for (const item of findings) {
      const value = item.hints[field];
      if (value === undefined) continue;
      const better =
        chosenValue === undefined ||
        (isUnsafeValue(field, value) && !isUnsafeValue(field, chosenValue)) ||
        (value === chosenValue &&
          chosen !== undefined &&
          severity(item.hints) > severity(chosen.hints));
      if (better) {
        chosen = item;
        chosenValue = value;
      }
    }
    if (chosen === undefined || chosenValue === undefined) continue;
    hints[field] = chosenValue;
    reasons[field] = chosen.fieldReasons?.[field] ?? chosen.reason;
  }
  return {
    annotations: hints as CallHints,
    reasons,
    findings: findings.map((item) => item.reason),
  };
}

const WHITESPACE_RUN = /\s+/g;

/**
 * The most conservative of several hint sets: read-only only if all are, destructive if
 * any is, idempotent only if all are, open-world if any is (and set only if one says).
 * An empty list gives {@link CONSERVATIVE}.
 */
export function worstHints(list: readonly CallHints[]): CallHints {
  if (list.length === 0) return CONSERVATIVE;
  let readOnlyHint = true;
  let destructiveHint = false;
  let idempotentHint = true;
  let openWorldHint: boolean | undefined;
  for (const hints of list) {
    readOnlyHint &&= hints.readOnlyHint;
    destructiveHint ||= !hints.readOnlyHint && hints.destructiveHint;
    idempotentHint &&= hints.readOnlyHint || hints.idempotentHint;
    if (hints.openWorldHint !== undefined)
      openWorldHint = (openWorldHint ?? false) || hints.openWorldHint;
  }
  const base = { readOnlyHint, destructiveHint, idempotentHint };
  return openWorldHint === undefined ? base : { ...base, openWorldHint };
}

/**
 * Merges the results of several classifiers that apply to one call, the worst per field,
 * each field keeping the reason of the result it came from.
 */
export function worstOfResults(results: readonly ClassifierResult[]): ClassifierResult | undefined {
  if (results.length <= 1) return results[0];
  const merged = combineFindings(
    results.map((result) => ({
      hints: result.annotations,
      reason: result.reasons.readOnlyHint ?? result.findings[0] ?? argumentReason('', 'none', ''),
      fieldReasons: result.reasons,
    })),
  );
  return merged && { ...merged, findings: results.flatMap((result) => result.findings) };
}

/** Shortens an argument fragment for a reason: one line, at most `max` characters. */
export function excerpt(text: string, max = 60): string {
  const flat = text.replace(WHITESPACE_RUN, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
