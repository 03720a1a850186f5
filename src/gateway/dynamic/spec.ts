/**
 * What makes a catalog tool dynamic, decided once per tool when it is listed (never per
 * call): the server resolving it itself, declarative rules, and the built-in classifiers
 * detected from its input schema; and the worst case over all of them, which is what the
 * tool is listed with.
 */
import type { HintField, ToolAnnotations, Trust } from '../../core/annotations/types.js';
import { HINT_FIELDS } from '../../core/annotations/types.js';
import type { ClassifierKind, DetectedClassifier } from '../../core/dynamic/detect.js';
import { worstCaseForTool } from '../../core/dynamic/resolve.js';
import type { CompiledRule } from '../../core/dynamic/rules.js';
import { ruleAppliesTo } from '../../core/dynamic/rules.js';
import type { DynamicMethod } from '../../mcp/dynamic-wire.js';
import {
  TOOLS_ANNOTATIONS_METHOD,
  TOOLS_RESOLVE_METHOD,
  hasDynamicAnnotations,
  isResolvableTool,
} from '../../mcp/dynamic-wire.js';
import type { JsonObject } from '../../mcp/json-rpc.js';

/**
 * How one server's tools are resolved: from config (rules, classifiers, forwarding) and from
 * what the server declared when it came up (which of the two requests it serves).
 */
export interface ServerDynamicSettings {
  /** Config rules for this server's tools, compiled: the server's own, then the global ones. */
  readonly rules: readonly ScopedRule[];
  /** Read arguments with the built-in classifiers. */
  readonly classifiers: boolean;
  /** The server serves `tools/resolve` (the extension) and hintgate may ask it. */
  readonly serverResolve: boolean;
  /** The server serves `tools/annotations` (the proposal) and hintgate may ask it. */
  readonly serverAnnotations: boolean;
  /** How long the server may take to answer one resolution. */
  readonly timeoutMs: number;
}

/** Where a rule was written. */
export type RuleScope = 'toolset' | 'server' | 'config';

/** A compiled rule and where it was written. */
export interface ScopedRule {
  readonly rule: CompiledRule;
  readonly scope: RuleScope;
}

/** One reason a tool is dynamic, as listings show it (kept small: it travels with the tool). */
export type DynamicSource =
  | { readonly source: 'server'; readonly method: DynamicMethod }
  | { readonly source: 'rule'; readonly rule: string; readonly scope: RuleScope }
  | {
      readonly source: 'classifier';
      readonly classifier: ClassifierKind;
      /** The argument it reads, as a JSON Pointer. */
      readonly pointer: string;
    };

/** How one tool's calls are resolved. */
export interface DynamicSpec {
  /** The request to forward to the server, when it resolves the tool itself. */
  readonly forward: DynamicMethod | undefined;
  readonly timeoutMs: number;
  /** The rules that apply to the tool, in order (toolset, server, config); first match wins. */
  readonly rules: readonly CompiledRule[];
  /** The classifiers that read its arguments (detected once, from its input schema). */
  readonly detected: readonly DetectedClassifier[];
  readonly trust: Trust;
  /**
   * The tool's effective annotations before the worst case: what a server's answer is
   * bounded by (its static promise, after hintgate's conflicts and the user's overrides).
   */
  readonly bound: ToolAnnotations;
  /** The worst case over every argument: the static annotations the tool is listed with. */
  readonly worstCase: Required<Pick<ToolAnnotations, HintField>>;
  /** Why the tool is dynamic, one entry per source. */
  readonly sources: readonly DynamicSource[];
  /** The same in sentences (`argument \`sql\` takes SQL`), for `hintgate tools --explain`. */
  readonly why: readonly string[];
}

/** What deciding a tool's spec reads. */
export interface DynamicSpecInput {
  readonly namespacedName: string;
  /** The tool as its server listed it (its markers). */
  readonly tool: JsonObject;
  readonly trust: Trust;
  readonly settings: ServerDynamicSettings;
  readonly detected: readonly DetectedClassifier[];
  /** Rules from outside the config (an equipped toolset's), before the config's. */
  readonly extraRules?: readonly ScopedRule[] | undefined;
  /** The tool's effective static annotations. */
  readonly bound: ToolAnnotations;
}

/** The request to forward for a tool its server marked, when the server serves it. */
function forwardOf(tool: JsonObject, settings: ServerDynamicSettings): DynamicMethod | undefined {
  // The extension's request first: its result is complete and names the tool.
  if (settings.serverResolve && isResolvableTool(tool)) return TOOLS_RESOLVE_METHOD;
  if (settings.serverAnnotations && hasDynamicAnnotations(tool)) return TOOLS_ANNOTATIONS_METHOD;
  return undefined;
}

/**
 * Decides how a tool is resolved, or `undefined` when nothing applies (its annotations are
 * static). Pure; called once per listed tool (and per toolset view that adds rules).
 */
export function dynamicSpecOf(input: DynamicSpecInput): DynamicSpec | undefined {
  const { settings, detected } = input;
  const forward = forwardOf(input.tool, settings);
  const scoped = [...(input.extraRules ?? []), ...settings.rules].filter(({ rule }) =>
    ruleAppliesTo(rule, input.namespacedName),
  );
  if (forward === undefined && detected.length === 0 && scoped.length === 0) return undefined;
  const rules = scoped.map((item) => item.rule);
  const sources: DynamicSource[] = [];
  const why: string[] = [];
  if (forward !== undefined) {
    sources.push({ source: 'server', method: forward });
    why.push(`the server resolves each call (${forward})`);
  }
  for (const item of scoped) {
    sources.push({ source: 'rule', rule: item.rule.label, scope: item.scope });
    why.push(`${item.rule.label} may match its arguments`);
  }
  for (const item of detected) {
    sources.push({ source: 'classifier', classifier: item.kind, pointer: item.pointer });
    why.push(item.why);
  }
  return {
    forward,
    timeoutMs: settings.timeoutMs,
    rules,
    detected,
    trust: input.trust,
    bound: input.bound,
    worstCase: worstCaseForTool(input.bound, detected, rules),
    sources,
    why,
  };
}

/**
 * The fields where a tool's worst case is less safe than its static annotations: the
 * `dynamic` layer its listed annotations get, with the reason for each. Empty when the
 * static annotations already are the worst case (a server that declared it).
 */
export function worstCaseLayer(spec: DynamicSpec): {
  readonly annotations: ToolAnnotations;
  readonly reasons: Readonly<Record<string, string>>;
} {
  const annotations: Record<string, boolean> = {};
  const reasons: Record<string, string> = {};
  const reason = `worst case over all arguments: ${spec.why.join('; ')}`;
  for (const field of HINT_FIELDS) {
    const value = spec.worstCase[field];
    if (spec.bound[field] === value) continue;
    annotations[field] = value;
    reasons[field] = reason;
  }
  return { annotations, reasons };
}
