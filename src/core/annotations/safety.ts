import type { HintField, ToolAnnotations } from './types.js';
import { SPEC_DEFAULTS } from './types.js';

/** How careful a caller should be with a tool. */
export type SafetyLevel = 'safe' | 'moderate' | 'dangerous';

/**
 * A hint's effective value: the given one, else what the MCP specification implies (a
 * read-only tool is not destructive), else the specification's default.
 */
export function effectiveHint(annotations: ToolAnnotations | undefined, field: HintField): boolean {
  const value = annotations?.[field];
  if (typeof value === 'boolean') return value;
  if (field === 'destructiveHint' && annotations?.readOnlyHint === true) return false;
  return SPEC_DEFAULTS[field];
}

/**
 * `safe` for read-only tools, `dangerous` for tools that may destroy (including every tool
 * with no annotations, which by the MCP defaults may), `moderate` for the rest: tools that
 * write but only add.
 */
export function getToolSafetyLevel(annotations: ToolAnnotations | undefined): SafetyLevel {
  if (effectiveHint(annotations, 'readOnlyHint')) {
    return annotations?.requiresConfirmation === true ? 'moderate' : 'safe';
  }
  if (effectiveHint(annotations, 'destructiveHint')) return 'dangerous';
  return 'moderate';
}

/**
 * True when repeating a failed call cannot do harm: the tool is read-only or idempotent. A
 * tool with no annotations is never retried.
 */
export function isSafeToRetry(annotations: ToolAnnotations | undefined): boolean {
  return effectiveHint(annotations, 'readOnlyHint') || effectiveHint(annotations, 'idempotentHint');
}

/**
 * True when a person should confirm a call: an explicit `requiresConfirmation` decides;
 * otherwise any tool that may be destructive, which includes a tool with no annotations.
 */
export function requiresConfirmation(annotations: ToolAnnotations | undefined): boolean {
  if (typeof annotations?.requiresConfirmation === 'boolean') {
    return annotations.requiresConfirmation;
  }
  return (
    !effectiveHint(annotations, 'readOnlyHint') && effectiveHint(annotations, 'destructiveHint')
  );
}
