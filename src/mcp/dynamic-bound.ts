/**
 * The static bound on dynamic annotations: a tool listed with dynamic annotations declares
 * its worst case statically, and no answer for particular arguments may be less
 * conservative than that (SEP-1862 and the tool-resolution extension). Pure.
 */
import type { HintField, ToolAnnotations } from '../core/annotations/types.js';
import { boundResolution, staticHint } from '../core/dynamic/resolve.js';
import type { HintsInput, ResolvedHints } from './dynamic-wire.js';

/**
 * A tool's static annotations as the four hints, missing ones read as MCP defaults
 * (`readOnlyHint: true` implying not destructive and idempotent): the fallback a client
 * uses, and the bound a resolution must keep.
 */
export function staticHints(annotations: ToolAnnotations | undefined): ResolvedHints {
  return {
    readOnlyHint: staticHint(annotations, 'readOnlyHint'),
    destructiveHint: staticHint(annotations, 'destructiveHint'),
    idempotentHint: staticHint(annotations, 'idempotentHint'),
    openWorldHint: staticHint(annotations, 'openWorldHint'),
  };
}

/**
 * Completes a partial resolution into all four hints. A hint left out keeps its static
 * value, except that a read-only resolution is not destructive and is idempotent. So a
 * hint the resolver did not decide never relaxes anything.
 */
export function completeHints(
  staticAnnotations: ToolAnnotations | undefined,
  hints: HintsInput,
): ResolvedHints {
  const fallback = staticHints(staticAnnotations);
  const readOnly = hints.readOnlyHint ?? fallback.readOnlyHint;
  return {
    readOnlyHint: readOnly,
    destructiveHint: hints.destructiveHint ?? (readOnly ? false : fallback.destructiveHint),
    idempotentHint: hints.idempotentHint ?? (readOnly ? true : fallback.idempotentHint),
    openWorldHint: hints.openWorldHint ?? fallback.openWorldHint,
  };
}

/**
 * The hints of a resolution that go beyond the static bound, empty when it keeps it:
 * static read-only means every resolution is read-only; static not destructive (and not
 * read-only) means no non-read-only resolution is destructive; static idempotent means
 * every non-read-only resolution is idempotent; static closed-world means no resolution is
 * open-world. Destructive and idempotent say nothing about a read-only call, so they are
 * not checked on one. Built on core `boundResolution`, which holds the per-hint rule.
 */
export function boundViolations(
  staticAnnotations: ToolAnnotations | undefined,
  resolved: ResolvedHints,
): HintField[] {
  const checked: ToolAnnotations = resolved.readOnlyHint
    ? { readOnlyHint: true, openWorldHint: resolved.openWorldHint }
    : { ...resolved };
  const { adjustments } = boundResolution(staticAnnotations, checked, { origin: 'server' });
  return adjustments.map((adjustment) => adjustment.field);
}
