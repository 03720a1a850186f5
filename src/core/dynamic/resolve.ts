/**
 * Resolving a call's dynamic annotations: from the downstream server's own answer, else
 * from declarative rules, else from the built-in classifiers; then bounded by the tool's
 * static annotations as SEP-1862 (Tool Resolution) requires, with hintgate's classifiers
 * kept as a safety check.
 */
import type { HintField, ToolAnnotations, Trust } from '../annotations/types.js';
import { HINT_FIELDS, SPEC_DEFAULTS } from '../annotations/types.js';
import type { InferenceReason } from '../inference/types.js';
import { classifyAction } from '../classify/action.js';
import type { ClassifierKind, DetectedClassifier } from './detect.js';
import type { CallHints, ClassifierResult } from '../classify/hints.js';
import { argumentReason, isUnsafeValue, worstOfResults } from '../classify/hints.js';
import { classifyHttpRequest } from '../classify/http.js';
import { resolveJsonPointer } from './json-pointer.js';
import type { CompiledRule } from './rules.js';
import { evaluateRules } from './rules.js';
import { classifyShell } from '../classify/shell.js';
import { classifySql } from '../classify/sql.js';

/** Where a resolution came from. */
export type DynamicOrigin = 'server' | 'rule' | 'classifier';

/** A field the bound changed or let through beyond the static annotations. */
export interface BoundAdjustment {
  readonly field: HintField;
  /** The static (worst-case) value. */
  readonly static: boolean;
  /** The value the resolution gave. */
  readonly resolved: boolean;
  /** The value kept. */
  readonly result: boolean;
  /**
   * `clamped`: a server's answer went beyond its static bound and the static value is
   * kept; `exceeds-static`: hintgate's own rule or classifier found the call less safe
   * than the static annotations say, and its value is kept; `classifier-check`: an
   * untrusted server's answer was less conservative than hintgate's classifier;
   * `uncorroborated`: an untrusted server's answer was safer than the static annotations
   * and neither a rule nor a classifier agreed for these arguments, so the static value
   * stands.
   */
  readonly action: 'clamped' | 'exceeds-static' | 'classifier-check' | 'uncorroborated';
}

/** A resolution after the bound. */
export interface BoundedResolution {
  readonly annotations: ToolAnnotations;
  readonly adjustments: readonly BoundAdjustment[];
}

/** The safe value of each hint: the one a static annotation can promise for every call. */
export const SAFE: Readonly<Record<HintField, boolean>> = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** A hint's value as the static annotations mean it: given, implied by read-only, or default. */
export function staticHint(annotations: ToolAnnotations | undefined, field: HintField): boolean {
  const value = annotations?.[field];
  if (typeof value === 'boolean') return value;
  if (
    annotations?.readOnlyHint === true &&
    (field === 'destructiveHint' || field === 'idempotentHint')
  ) {
    return field === 'idempotentHint';
  }
  return SPEC_DEFAULTS[field];
}

/**
 * Bounds a resolution by the tool's static annotations, which SEP-1862 makes the worst
 * case over all arguments. Per hint, where the static value is the safe one it is a
 * promise for every call; a resolution that breaks it is handled by who resolved:
 *
 * | hint            | static | resolution | origin `server`        | origin `rule` / `classifier` |
 * |-----------------|--------|------------|------------------------|------------------------------|
 * | readOnlyHint    | true   | false      | true (clamped)         | false (exceeds static)       |
 * | destructiveHint | false  | true       | false (clamped)        | true (exceeds static)        |
 * | idempotentHint  | true   | false      | true (clamped)         | false (exceeds static)       |
 * | openWorldHint   | false  | true       | false (clamped)        | true (exceeds static)        |
 * | any             | unsafe | any        | resolution (refines)   | resolution (refines)         |
 * | any             | safe   | safe       | resolution             | resolution                   |
 *
 * A downstream server may only refine toward safety: its answer beyond its own static
 * promise is out of contract, so the static value stands, as SEP-1862 says (and as a
 * client that skipped resolution would have acted). hintgate's own rules and classifiers
 * are a safety check, not a server's claim: they may make a call *more* conservative than
 * the static annotations (a `DELETE` through a query tool declared read-only is still
 * confirmed), and are never made less conservative than what they found. Missing static
 * values read as MCP defaults (`readOnlyHint: true` implies not destructive, idempotent).
 * Non-hint fields pass unchanged.
 */
export function boundResolution(
  staticAnnotations: ToolAnnotations | undefined,
  resolved: ToolAnnotations,
  options: { readonly origin: DynamicOrigin },
): BoundedResolution {
  const annotations: Record<string, unknown> = { ...resolved };
  const adjustments: BoundAdjustment[] = [];
  for (const field of HINT_FIELDS) {
    const value = resolved[field];
    if (typeof value !== 'boolean') continue;
    const bound = staticHint(staticAnnotations, field);
    if (bound !== SAFE[field] || value === bound) continue;
    const clamp = options.origin === 'server';
    const result = clamp ? bound : value;
    annotations[field] = result;
    adjustments.push({
      field,
      static: bound,
      resolved: value,
      result,
      action: clamp ? 'clamped' : 'exceeds-static',
    });
  }
  return { annotations: annotations, adjustments };
}

/**
 * The most conservative merge of several annotation sets: read-only only if all are,
 * destructive if any is, idempotent only if all are, open-world if any is. Missing values
 * read as the static annotations mean them ({@link staticHint}); the result sets all four.
 * Used for the static annotations of a tool listed with `dynamicAnnotations: true`.
 */
export function worstCase(
  list: readonly (ToolAnnotations | undefined)[],
): Required<Pick<ToolAnnotations, HintField>> {
  if (list.length === 0) return { ...SPEC_DEFAULTS };
  let readOnlyHint = true;
  let destructiveHint = false;
  let idempotentHint = true;
  let openWorldHint = false;
  for (const annotations of list) {
    const readOnly = staticHint(annotations, 'readOnlyHint');
    readOnlyHint &&= readOnly;
    destructiveHint ||= !readOnly && staticHint(annotations, 'destructiveHint');
    idempotentHint &&= readOnly || staticHint(annotations, 'idempotentHint');
    openWorldHint ||= staticHint(annotations, 'openWorldHint');
  }
  return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
}

/**
 * The worst case of a tool whose calls are resolved dynamically: its static annotations,
 * each detected classifier's worst case, and each rule's settings over the static ones.
 */
export function worstCaseForTool(
  staticAnnotations: ToolAnnotations | undefined,
  detected: readonly DetectedClassifier[],
  rules: readonly CompiledRule[] = [],
): Required<Pick<ToolAnnotations, HintField>> {
  return worstCase([
    staticAnnotations,
    ...detected.map((item): ToolAnnotations => ({ ...staticAnnotations, ...item.worstCase })),
    ...rules.map((rule) => ({ ...staticAnnotations, ...rule.set })),
  ]);
}

/** Everything one call's resolution reads. */
export interface ResolveDynamicInput {
  /** The tool's effective static annotations (its worst case). */
  readonly staticAnnotations?: ToolAnnotations | undefined;
  /** The classifiers detected for the tool ({@link detectArgumentClassifiers}). */
  readonly detected: readonly DetectedClassifier[];
  /** Compiled rules; those naming another tool are skipped. */
  readonly rules?: readonly CompiledRule[] | undefined;
  /** The tool's namespaced name, for rules that name tools. */
  readonly tool?: string | undefined;
  readonly args: unknown;
  /** The downstream server's own answer for these arguments, when it gave one. */
  readonly downstream?: ToolAnnotations | undefined;
  /** Trust in the downstream server; an untrusted one is checked by the classifiers. */
  readonly trust?: Trust | undefined;
}

/** One call's dynamic annotations. */
export interface DynamicResolution {
  /** The fields the resolution decided, after the bound: the `dynamic` layer of a merge. */
  readonly annotations: ToolAnnotations;
  /** Why each of those fields has its value. */
  readonly reasons: Readonly<Partial<Record<string, InferenceReason>>>;
  readonly origin: DynamicOrigin;
  /** The classifiers that read the arguments (also when a rule or server decided). */
  readonly classifiers: readonly ClassifierKind[];
  /** The rule that matched, by label, when `origin` is `rule`. */
  readonly rule?: string;
  readonly adjustments: readonly BoundAdjustment[];
}

function classifyOne(item: DetectedClassifier, args: unknown): ClassifierResult | undefined {
  const value = resolveJsonPointer(args, item.path);
  switch (item.kind) {
    case 'sql':
      return typeof value === 'string' ? classifySql(value) : undefined;
    case 'shell':
      return typeof value === 'string' ? classifyShell(value) : undefined;
    case 'http': {
      if (typeof value !== 'string') return undefined;
      const path =
        item.pathPointer === undefined ? undefined : resolveJsonPointer(args, item.pathPointer);
      const body =
        item.bodyPointer === undefined ? undefined : resolveJsonPointer(args, item.bodyPointer);
      return classifyHttpRequest(value, typeof path === 'string' ? path : undefined, body);
    }
    case 'action': {
      const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
      const results = values.flatMap((entry) =>
        typeof entry === 'string' ? (classifyAction(entry) ?? []) : [],
      );
      return worstOfResults(results);
    }
  }
}

/**
 * True when a classifier's value may fill a field a rule left unset: always for
 * `openWorldHint`; for the write hints only when the rule does not contradict the
 * classifier on `readOnlyHint` (a classifier's "not destructive" that only followed from
 * "read-only" says nothing about a call the rule calls a write).
 */
function fillsRule(rule: ToolAnnotations, found: CallHints, field: string): boolean {
  if (rule[field] !== undefined) return false;
  if (field === 'openWorldHint') return true;
  return rule.readOnlyHint === undefined || rule.readOnlyHint === found.readOnlyHint;
}

function serverReason(field: HintField, clamped: boolean): InferenceReason {
  const text = clamped
    ? `the server resolved ${field} beyond its static annotations; the static value stands (SEP-1862)`
    : `the server resolved ${field} for these arguments`;
  return argumentReason('server', 'dynamic-server', text);
}

/**
 * Resolves one call's dynamic annotations, in order: the downstream server's answer when
 * given (bounded, then, for an untrusted server, made at least as conservative as
 * hintgate's classifiers); else the first matching rule (its fields; the fields it leaves
 * unset come from the classifiers when one applies); else the worst over the classifiers
 * that apply. The result is bounded by {@link boundResolution}. `undefined` when nothing
 * applies, so the static annotations stand.
 *
 * @example
 * resolveDynamicAnnotations({ detected, args: { sql: 'SELECT 1' } })?.annotations.readOnlyHint // true
 */
export function resolveDynamicAnnotations(
  input: ResolveDynamicInput,
): DynamicResolution | undefined {
  const { staticAnnotations, detected, args } = input;
  const results: ClassifierResult[] = [];
  const classifiers: ClassifierKind[] = [];
  for (const item of detected) {
    const result = classifyOne(item, args);
    if (result === undefined) continue;
    results.push(result);
    if (!classifiers.includes(item.kind)) classifiers.push(item.kind);
  }
  const classified = worstOfResults(results);
  if (input.downstream !== undefined) {
    return fromServer(input, input.downstream, classified, classifiers);
  }
  const match =
    input.rules === undefined
      ? undefined
      : evaluateRules(input.rules, args, input.tool === undefined ? {} : { tool: input.tool });
  if (match === undefined && classified === undefined) return undefined;
  const annotations: Record<string, unknown> = {};
  const reasons: Record<string, InferenceReason> = {};
  if (classified !== undefined) {
    for (const [field, value] of Object.entries(classified.annotations)) {
      if (match !== undefined && !fillsRule(match.annotations, classified.annotations, field))
        continue;
      annotations[field] = value;
      const reason = classified.reasons[field as HintField];
      if (reason !== undefined) reasons[field] = reason;
    }
  }
  if (match !== undefined) {
    Object.assign(annotations, match.annotations);
    Object.assign(reasons, match.reasons);
    if (match.annotations.readOnlyHint === true) {
      // A rule's read-only call implies the other write hints, whatever a classifier found.
      for (const field of ['destructiveHint', 'idempotentHint'] as const) {
        if (match.annotations[field] !== undefined) continue;
        annotations[field] = field === 'idempotentHint';
        const reason = match.reasons['readOnlyHint'];
        if (reason !== undefined) reasons[field] = reason;
      }
    }
  }
  const origin: DynamicOrigin = match === undefined ? 'classifier' : 'rule';
  const bounded = boundResolution(staticAnnotations, annotations, { origin });
  const resolution = {
    annotations: bounded.annotations,
    reasons,
    origin,
    classifiers,
    adjustments: bounded.adjustments,
  };
  return match === undefined ? resolution : { ...resolution, rule: match.rule.label };
}

/**
 * An untrusted server's answer that says "safer" than the static annotations counts only
 * where hintgate's own evidence agrees for these arguments: a matching rule setting the
 * same value, or a classifier finding it. Elsewhere the static value stands (the answer is
 * a claim like any declared one) and the disagreement is kept as an adjustment.
 */
function corroborate(
  input: ResolveDynamicInput,
  annotations: Record<string, unknown>,
  classified: ClassifierResult | undefined,
  reasons: Record<string, InferenceReason>,
  adjustments: BoundAdjustment[],
): void {
  const match =
    input.rules === undefined
      ? undefined
      : evaluateRules(
          input.rules,
          input.args,
          input.tool === undefined ? {} : { tool: input.tool },
        );
  for (const field of HINT_FIELDS) {
    const value = annotations[field];
    if (typeof value !== 'boolean') continue;
    const bound = staticHint(input.staticAnnotations, field);
    if (value === bound || value !== SAFE[field]) continue;
    if (match?.annotations[field] === value) continue;
    // A classifier that read these arguments has its say below (agreeing, or overruling
    // with its own reason).
    if (classified?.annotations[field] !== undefined) continue;
    annotations[field] = bound;
    reasons[field] = argumentReason(
      'server',
      'dynamic-server',
      `the untrusted server answered ${field}: ${String(value)} for these arguments, safer than its static annotations, and no rule or classifier agreed; the static value stands`,
    );
    adjustments.push({
      field,
      static: bound,
      resolved: value,
      result: bound,
      action: 'uncorroborated',
    });
  }
}

function fromServer(
  input: ResolveDynamicInput,
  downstream: ToolAnnotations,
  classified: ClassifierResult | undefined,
  classifiers: readonly ClassifierKind[],
): DynamicResolution {
  const bounded = boundResolution(input.staticAnnotations, downstream, { origin: 'server' });
  const annotations: Record<string, unknown> = { ...bounded.annotations };
  const adjustments = [...bounded.adjustments];
  const reasons: Record<string, InferenceReason> = {};
  for (const field of HINT_FIELDS) {
    if (typeof downstream[field] !== 'boolean') continue;
    reasons[field] = serverReason(
      field,
      adjustments.some((item) => item.field === field),
    );
  }
  if (input.trust !== 'trusted') corroborate(input, annotations, classified, reasons, adjustments);
  const serverReadOnly = annotations['readOnlyHint'] === true;
  if (classified !== undefined && input.trust !== 'trusted') {
    for (const field of HINT_FIELDS) {
      const found = classified.annotations[field];
      if (found === undefined) continue;
      // A field the server left unset reads as its answer implies (read-only: not
      // destructive, idempotent), else as the static annotations say.
      const current =
        typeof annotations[field] === 'boolean'
          ? annotations[field]
          : serverReadOnly && field !== 'openWorldHint'
            ? SAFE[field]
            : staticHint(input.staticAnnotations, field);
      if (!isUnsafeValue(field, found) || isUnsafeValue(field, current)) continue;
      annotations[field] = found;
      const reason = classified.reasons[field];
      if (reason !== undefined) reasons[field] = reason;
      adjustments.push({
        field,
        static: staticHint(input.staticAnnotations, field),
        resolved: current,
        result: found,
        action: 'classifier-check',
      });
    }
  }
  return {
    annotations,
    reasons,
    origin: 'server',
    classifiers,
    adjustments,
  };
}
