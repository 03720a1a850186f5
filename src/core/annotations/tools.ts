import { inferAnnotations } from '../inference/infer.js';
import type { ToolDefinitionInput } from '../inference/types.js';
import type { EffectiveAnnotations } from './effective.js';
import { resolveEffectiveAnnotations } from './effective.js';
import type { SafetyLevel } from './safety.js';
import { effectiveHint, getToolSafetyLevel } from './safety.js';
import type { Complexity, SecurityLevel, ToolAnnotations, Trust } from './types.js';

/** A tool definition with optional annotations, as MCP lists it. */
export interface AnnotatableTool extends ToolDefinitionInput {
  readonly annotations?: ToolAnnotations | undefined;
}

/** What {@link createAnnotatedTool} layers over the inferred annotations. */
export interface CreateAnnotatedToolOptions {
  /** Defaults for every tool of the tool's server (config). */
  readonly serverDefaults?: ToolAnnotations | undefined;
  /** Values set by hand; they win over everything else. */
  readonly manual?: ToolAnnotations | undefined;
  /** Trust in whoever declared `tool.annotations`; `untrusted` by default. */
  readonly trust?: Trust | undefined;
}

/** A tool with complete effective annotations, their provenance and any conflicts. */
export type AnnotatedTool<T extends AnnotatableTool> = Omit<T, 'annotations'> & {
  readonly annotations: ToolAnnotations;
  readonly effective: EffectiveAnnotations;
};

/**
 * Gives a tool complete annotations: inferred from its name, description and schema, then
 * the server defaults, then what the tool itself declares, then manual values, highest last.
 * The input is not modified.
 *
 * @example
 * const tool = createAnnotatedTool(
 *   { name: 'deleteUser', description: 'Delete a user account permanently' },
 *   { manual: { tags: ['admin'] } },
 * );
 * tool.annotations.destructiveHint // true
 * tool.effective.provenance.destructiveHint.source // 'inferred'
 */
export function createAnnotatedTool<T extends AnnotatableTool>(
  tool: T,
  options: CreateAnnotatedToolOptions = {},
): AnnotatedTool<T> {
  const effective = resolveEffectiveAnnotations({
    inference: inferAnnotations(tool),
    serverDefaults: options.serverDefaults,
    declared: tool.annotations,
    overrides: options.manual,
    trust: options.trust,
  });
  return { ...tool, annotations: effective.annotations, effective };
}

/** What {@link filterToolsByAnnotations} selects on; every field given must hold. */
export interface AnnotationFilter {
  readonly readOnly?: boolean;
  readonly destructive?: boolean;
  readonly idempotent?: boolean;
  readonly openWorld?: boolean;
  readonly safetyLevel?: SafetyLevel | readonly SafetyLevel[];
  readonly complexity?: Complexity | readonly Complexity[];
  readonly securityLevel?: SecurityLevel | readonly SecurityLevel[];
  /** The tool has every one of these tags. */
  readonly tags?: readonly string[];
  /** The tool has at least one of these tags. */
  readonly anyTags?: readonly string[];
}

/**
 * The tools whose annotations match every condition of the filter. Hints are compared by
 * their effective values, so a tool with no annotations counts as possibly destructive and
 * open world, as the MCP defaults say.
 *
 * @example
 * filterToolsByAnnotations(tools, { readOnly: true, tags: ['data'] })
 */
export function filterToolsByAnnotations<
  T extends { readonly annotations?: ToolAnnotations | undefined },
>(tools: readonly T[], filter: AnnotationFilter): T[] {
  return tools.filter((tool) => matchesFilter(tool.annotations, filter));
}

function matchesFilter(
  annotations: ToolAnnotations | undefined,
  filter: AnnotationFilter,
): boolean {
  if (
    filter.readOnly !== undefined &&
    effectiveHint(annotations, 'readOnlyHint') !== filter.readOnly
  )
    return false;
  if (filter.destructive !== undefined) {
    const destructive =
      !effectiveHint(annotations, 'readOnlyHint') && effectiveHint(annotations, 'destructiveHint');
    if (destructive !== filter.destructive) return false;
  }
  if (
    filter.idempotent !== undefined &&
    effectiveHint(annotations, 'idempotentHint') !== filter.idempotent
  )
    return false;
  if (
    filter.openWorld !== undefined &&
    effectiveHint(annotations, 'openWorldHint') !== filter.openWorld
  )
    return false;
  if (!oneOf(getToolSafetyLevel(annotations), filter.safetyLevel)) return false;
  if (filter.complexity !== undefined && !oneOf(annotations?.complexity, filter.complexity))
    return false;
  if (
    filter.securityLevel !== undefined &&
    !oneOf(annotations?.securityLevel, filter.securityLevel)
  )
    return false;
  const tags = annotations?.tags ?? [];
  if (filter.tags !== undefined && !filter.tags.every((tag) => tags.includes(tag))) return false;
  if (filter.anyTags !== undefined && !filter.anyTags.some((tag) => tags.includes(tag)))
    return false;
  return true;
}

function oneOf<T>(value: T | undefined, allowed: T | readonly T[] | undefined): boolean {
  if (allowed === undefined) return true;
  if (value === undefined) return false;
  return Array.isArray(allowed) ? (allowed as readonly T[]).includes(value) : allowed === value;
}
