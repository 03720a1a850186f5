import { effectiveHint } from '../annotations/safety.js';
import type { Provenance, ToolAnnotations } from '../annotations/types.js';

/** Which calls need a person's confirmation. */
export type ConfirmMode = 'destructive' | 'writes' | 'always' | 'never';

/** The confirmation rules that apply to one call, after server and tool settings are layered. */
export interface ConfirmPolicy {
  /** Which calls need confirmation. Default `destructive`. */
  readonly confirm: ConfirmMode;
  /** Read-only calls never need confirmation, whatever `confirm` says. Default true. */
  readonly autoApproveReadOnly: boolean;
  /**
   * Confirmation must come from the approval queue (a person, out of band), never from the
   * client's elicitation answer, which a headless client can give by itself.
   */
  readonly requireApprovalQueue: boolean;
  /** Refuse the call outright. */
  readonly deny: boolean;
  /** The sentence a denied or unapproved call answers with, instead of the default. */
  readonly message?: string | undefined;
}

/** Layers of confirmation settings, each optional; later layers win field by field. */
export type ConfirmPolicyLayer = {
  readonly [K in keyof ConfirmPolicy]?: ConfirmPolicy[K] | undefined;
};

/** The defaults: destructive calls are confirmed, read-only ones never. */
export const DEFAULT_CONFIRM_POLICY: ConfirmPolicy = {
  confirm: 'destructive',
  autoApproveReadOnly: true,
  requireApprovalQueue: false,
  deny: false,
};

/** What to do with a call. */
export type Decision =
  | { readonly kind: 'allow'; readonly reason: string }
  | {
      readonly kind: 'confirm';
      /** Why, naming the hints and where each came from. */
      readonly reason: string;
      /** `queue` when only the approval queue may approve; `any` lets the client's answer count. */
      readonly channel: 'any' | 'queue';
      readonly message?: string | undefined;
    }
  | { readonly kind: 'deny'; readonly reason: string; readonly message?: string | undefined };

/** Layers confirmation settings over the defaults: global, then server, then tool. */
export function layerConfirmPolicy(
  ...layers: readonly (ConfirmPolicyLayer | undefined)[]
): ConfirmPolicy {
  let policy: ConfirmPolicy = DEFAULT_CONFIRM_POLICY;
  for (const layer of layers) {
    if (layer === undefined) continue;
    const defined = Object.fromEntries(
      Object.entries(layer).filter(([, value]) => value !== undefined),
    ) as Partial<ConfirmPolicy>;
    policy = { ...policy, ...defined };
  }
  return policy;
}

/**
 * Decides what to do with a call from its effective annotations (after overrides and
 * dynamic refinement) and the confirmation policy. Pure and exhaustive: every mode and
 * every combination of hints has one answer, and the reason names the hints that decided
 * it and the source of each.
 *
 * @example
 * decide({ readOnlyHint: false, destructiveHint: true }, {}, DEFAULT_CONFIRM_POLICY).kind // 'confirm'
 */
export function decide(
  annotations: ToolAnnotations,
  provenance: Provenance,
  policy: ConfirmPolicy,
): Decision {
  if (policy.deny) {
    return {
      kind: 'deny',
      reason: 'calls to this tool are denied by policy',
      message: policy.message,
    };
  }
  const readOnly = effectiveHint(annotations, 'readOnlyHint');
  const destructive = !readOnly && effectiveHint(annotations, 'destructiveHint');
  const explicit = annotations.requiresConfirmation;
  const confirm = (reason: string): Decision => ({
    kind: 'confirm',
    reason,
    channel: policy.requireApprovalQueue ? 'queue' : 'any',
    message: policy.message,
  });

  if (explicit === true) return confirm(describe('requiresConfirmation', annotations, provenance));
  if (readOnly && policy.autoApproveReadOnly) {
    return { kind: 'allow', reason: describe('readOnlyHint', annotations, provenance) };
  }
  switch (policy.confirm) {
    case 'never':
      return { kind: 'allow', reason: 'policy confirm: never' };
    case 'always':
      return confirm(
        `policy confirm: always; ${describe('readOnlyHint', annotations, provenance)}`,
      );
    case 'writes':
      return readOnly
        ? { kind: 'allow', reason: describe('readOnlyHint', annotations, provenance) }
        : confirm(`policy confirm: writes; ${describe('readOnlyHint', annotations, provenance)}`);
    case 'destructive':
      if (explicit === false) {
        return { kind: 'allow', reason: describe('requiresConfirmation', annotations, provenance) };
      }
      return destructive
        ? confirm(describe('destructiveHint', annotations, provenance))
        : {
            kind: 'allow',
            reason: readOnly
              ? describe('readOnlyHint', annotations, provenance)
              : describe('destructiveHint', annotations, provenance),
          };
  }
}

/** `destructiveHint: true (inferred: name word "delete" is a destructive verb)`. */
function describe(field: string, annotations: ToolAnnotations, provenance: Provenance): string {
  const value = annotations[field];
  const origin = provenance[field];
  const shown = value === undefined ? 'unset' : JSON.stringify(value);
  if (origin === undefined) return `${field}: ${shown}`;
  const why = origin.reason === undefined ? origin.source : `${origin.source}: ${origin.reason}`;
  return `${field}: ${shown} (${why})`;
}
