/**
 * Annotations for a call made with a given HTTP method, by the method's semantics in
 * RFC 9110: safe methods are read-only, PUT and DELETE are idempotent.
 */
import type { ToolAnnotations } from '../annotations/types.js';
import type { InferenceReason, InferenceResult } from './types.js';

interface MethodHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly why: string;
}

/**
 * - GET, HEAD, OPTIONS: safe, so read-only, not destructive, idempotent.
 * - PUT: replaces the target's state, so destructive (the old state is lost) and
 *   idempotent (the same PUT twice leaves the same state).
 * - DELETE: destructive and idempotent.
 * - POST: creates or submits; additive (not destructive), not idempotent.
 * - PATCH: modifies the target in place, which the MCP specification counts as a
 *   destructive (non-additive) update; not guaranteed idempotent (a patch may append or
 *   increment), so that hint is false.
 */
const METHODS: ReadonlyMap<string, MethodHints> = new Map([
  [
    'GET',
    {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      why: 'is safe: it only reads',
    },
  ],
  [
    'HEAD',
    {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      why: 'is safe: it only reads',
    },
  ],
  [
    'OPTIONS',
    {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      why: 'is safe: it only reads',
    },
  ],
  [
    'PUT',
    {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      why: 'replaces the target: idempotent and destructive',
    },
  ],
  [
    'DELETE',
    {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      why: 'removes the target: idempotent and destructive',
    },
  ],
  [
    'POST',
    {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      why: 'creates or submits: additive, not idempotent',
    },
  ],
  [
    'PATCH',
    {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      why: 'modifies the target in place: destructive, not idempotent',
    },
  ],
]);

/**
 * Annotations for an HTTP method, case-insensitively; an unknown method gives empty
 * annotations and no reasons.
 *
 * @example inferFromHttpMethod('get').annotations
 * // { readOnlyHint: true, destructiveHint: false, idempotentHint: true }
 */
export function inferFromHttpMethod(method: string): InferenceResult {
  const upper = method.trim().toUpperCase();
  const hints = METHODS.get(upper);
  if (hints === undefined) return { annotations: {}, reasons: {} };
  const rule = `http-${upper.toLowerCase()}`;
  const reason: InferenceReason = {
    part: 'method',
    word: upper,
    rule,
    strength: 'strong',
    text: `HTTP method ${upper} ${hints.why}`,
  };
  const annotations: ToolAnnotations = {
    readOnlyHint: hints.readOnlyHint,
    destructiveHint: hints.destructiveHint,
    idempotentHint: hints.idempotentHint,
  };
  return {
    annotations,
    reasons: { readOnlyHint: reason, destructiveHint: reason, idempotentHint: reason },
  };
}
