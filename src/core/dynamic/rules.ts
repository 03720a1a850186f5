/**
 * Declarative dynamic-annotation rules, from config or a toolset: when a call's arguments
 * match, set annotation fields. Rules are validated and compiled once (pointers parsed,
 * regular expressions and tool globs compiled), then evaluated per call without
 * allocation beyond the result.
 */
import { z } from 'zod';
import type { ToolAnnotations } from '../annotations/types.js';
import { SECURITY_LEVELS } from '../annotations/types.js';
import type { InferenceReason } from '../inference/types.js';
import type { JsonPointer } from './json-pointer.js';
import { isPointerError, parseJsonPointer, resolveJsonPointer } from './json-pointer.js';

const FLAGS = /^[imsu]*$/;
const GLOB_SPECIAL = /[.+^${}()|[\]\\]/g;

/** One condition on the arguments: the value at `pointer` equals, is one of, or matches. */
const conditionSchema = z
  .strictObject({
    pointer: z.string(),
    equals: z.json().optional(),
    oneOf: z.array(z.json()).min(1, 'expected at least one value').optional(),
    regex: z.string().optional(),
    flags: z.string().regex(FLAGS, 'expected only the flags i, m, s and u').optional(),
  })
  .superRefine((condition, ctx) => {
    const pointer = parseJsonPointer(condition.pointer);
    if (isPointerError(pointer))
      ctx.addIssue({ code: 'custom', path: ['pointer'], message: pointer.error });
    if (
      !('equals' in condition) &&
      condition.oneOf === undefined &&
      condition.regex === undefined
    ) {
      ctx.addIssue({ code: 'custom', message: 'expected at least one of equals, oneOf or regex' });
    }
    if (condition.regex !== undefined) {
      try {
        new RegExp(condition.regex, condition.flags);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        ctx.addIssue({
          code: 'custom',
          path: ['regex'],
          message: `invalid regular expression: ${detail}`,
        });
      }
    }
  });

/** What a rule sets: the four hints and the per-call extensions. Unknown keys are errors. */
const setSchema = z
  .strictObject({
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
    requiresConfirmation: z.boolean().optional(),
    auditRequired: z.boolean().optional(),
    securityLevel: z.enum(SECURITY_LEVELS).optional(),
  })
  .refine((set) => Object.values(set).some((value) => value !== undefined), {
    message: 'expected at least one annotation to set',
  });

/**
 * A rule as written in config or a toolset, for the config loader to reuse:
 * `{ name?, tool?: 'server.tool' or a glob ('db.*'), match: [{ pointer: '/action',
 * equals?, oneOf?, regex?, flags? }], set: { readOnlyHint?, … } }`. Every condition must
 * hold; a condition with several tests needs all of them.
 */
export const dynamicRuleSchema = z.strictObject({
  name: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  match: z.array(conditionSchema).min(1, 'expected at least one condition'),
  set: setSchema,
});

/** A list of rules; the first that matches a call wins. */
export const dynamicRulesSchema = z.array(dynamicRuleSchema);

/** A rule as written. */
export type DynamicRule = z.input<typeof dynamicRuleSchema>;

interface CompiledCondition {
  readonly pointer: JsonPointer;
  readonly source: string;
  readonly equals: { readonly value: unknown } | undefined;
  readonly oneOf: readonly unknown[] | undefined;
  readonly regex: RegExp | undefined;
}

/** A rule ready to evaluate. */
export interface CompiledRule {
  /** Its position in the list, from 0. */
  readonly index: number;
  /** `rule N` (from 1), with its name when it has one: `rule 2 ("reads")`. */
  readonly label: string;
  /** The tool glob, as written; `undefined` when the rule applies to every tool. */
  readonly tool: string | undefined;
  readonly toolPattern: RegExp | undefined;
  readonly conditions: readonly CompiledCondition[];
  readonly set: ToolAnnotations;
}

/** A problem found while compiling, naming the rule and the key. */
export interface RuleError {
  /** The rule's position, from 0. */
  readonly rule: number;
  /** Where in the rule (`match[0].regex`), empty for the rule itself. */
  readonly path: string;
  /** A readable sentence: `rule 2 ("reads"): match[0].regex: invalid regular expression: …`. */
  readonly message: string;
}

/** Compiled rules, or every problem found. */
export type CompileRulesResult =
  | { readonly ok: true; readonly rules: readonly CompiledRule[] }
  | { readonly ok: false; readonly errors: readonly RuleError[] };

/** What the first matching rule sets, and why. */
export interface RuleMatch {
  readonly rule: CompiledRule;
  readonly annotations: ToolAnnotations;
  /** One reason, for every field the rule sets. */
  readonly reasons: Readonly<Partial<Record<string, InferenceReason>>>;
}

function labelOf(rule: unknown, index: number): string {
  const name =
    typeof rule === 'object' && rule !== null ? (rule as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== ''
    ? `rule ${index + 1} ("${name}")`
    : `rule ${index + 1}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path)
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  return out;
}

/** Compiles a tool glob (`*` any characters, `?` one) into an anchored expression. */
function compileGlob(glob: string): RegExp {
  const body = glob.replace(GLOB_SPECIAL, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${body}$`);
}

function compileCondition(condition: z.output<typeof conditionSchema>): CompiledCondition {
  return {
    pointer: parseJsonPointer(condition.pointer) as JsonPointer,
    source: condition.pointer,
    equals: 'equals' in condition ? { value: condition.equals } : undefined,
    oneOf: condition.oneOf,
    regex: condition.regex === undefined ? undefined : new RegExp(condition.regex, condition.flags),
  };
}

/**
 * Validates rules (unknown input, as read from a file) and compiles them. Errors name the
 * rule by position and name, and the key: every problem is reported, none thrown.
 */
export function compileRules(rules: unknown): CompileRulesResult {
  const parsed = dynamicRulesSchema.safeParse(rules);
  if (!parsed.success) {
    const list = Array.isArray(rules) ? (rules as unknown[]) : [];
    const errors = parsed.error.issues.map((issue): RuleError => {
      const [index, ...rest] = issue.path;
      const rule = typeof index === 'number' ? index : -1;
      const path = formatPath(rest);
      const where = rule < 0 ? 'rules' : labelOf(list[rule], rule);
      return { rule, path, message: `${where}${path === '' ? '' : `: ${path}`}: ${issue.message}` };
    });
    return { ok: false, errors };
  }
  const compiled = parsed.data.map((rule, index): CompiledRule => {
    const set: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rule.set)) if (value !== undefined) set[key] = value;
    return {
      index,
      label: labelOf(rule, index),
      tool: rule.tool,
      toolPattern: rule.tool === undefined ? undefined : compileGlob(rule.tool),
      conditions: rule.match.map(compileCondition),
      set: set,
    };
  });
  return { ok: true, rules: compiled };
}

/** Deep equality of JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const left = a as Readonly<Record<string, unknown>>;
  const right = b as Readonly<Record<string, unknown>>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
  );
}

function holds(condition: CompiledCondition, args: unknown): boolean {
  const value = resolveJsonPointer(args, condition.pointer);
  if (value === undefined) return false;
  if (condition.equals !== undefined && !jsonEqual(value, condition.equals.value)) return false;
  if (condition.oneOf !== undefined && !condition.oneOf.some((item) => jsonEqual(value, item))) {
    return false;
  }
  return (
    condition.regex === undefined || (typeof value === 'string' && condition.regex.test(value))
  );
}

function describe(condition: CompiledCondition): string {
  const tests: string[] = [];
  if (condition.equals !== undefined)
    tests.push(`equals ${JSON.stringify(condition.equals.value)}`);
  if (condition.oneOf !== undefined) tests.push(`is one of ${JSON.stringify(condition.oneOf)}`);
  if (condition.regex !== undefined) tests.push(`matches ${String(condition.regex)}`);
  return `${condition.source === '' ? 'the arguments' : condition.source} ${tests.join(' and ')}`;
}

/** True when a rule applies to the tool (a rule without `tool` applies to every tool). */
export function ruleAppliesTo(rule: CompiledRule, tool: string | undefined): boolean {
  return rule.toolPattern === undefined || (tool !== undefined && rule.toolPattern.test(tool));
}

/** The rules that apply to one tool, to filter once per tool rather than per call. */
export function rulesForTool(rules: readonly CompiledRule[], tool: string): CompiledRule[] {
  return rules.filter((rule) => ruleAppliesTo(rule, tool));
}

/**
 * The first rule, in order, that applies to the tool and whose every condition holds for
 * the arguments; `undefined` when none does. A rule naming a tool never matches when no
 * tool is given. Regular expressions only test strings, and are not anchored unless
 * written with `^…$`; a pointer to a missing value fails every test.
 *
 * @example evaluateRules(compiled, { action: 'read' }, { tool: 'fs.manage' })?.annotations
 */
export function evaluateRules(
  rules: readonly CompiledRule[],
  args: unknown,
  options: { readonly tool?: string } = {},
): RuleMatch | undefined {
  for (const rule of rules) {
    if (!ruleAppliesTo(rule, options.tool)) continue;
    if (!rule.conditions.every((condition) => holds(condition, args))) continue;
    const text = `${rule.label} matched: ${rule.conditions.map(describe).join(', and ')}`;
    const reason: InferenceReason = {
      part: 'argument',
      word: rule.label,
      rule: 'dynamic-rule',
      strength: 'strong',
      text,
    };
    const reasons: Record<string, InferenceReason> = {};
    for (const key of Object.keys(rule.set)) reasons[key] = reason;
    return { rule, annotations: rule.set, reasons };
  }
  return undefined;
}
