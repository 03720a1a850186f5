import type { EffectiveAnnotations } from '../../core/annotations/effective.js';
import type { ToolAnnotations } from '../../core/annotations/types.js';
import type { Decision } from '../../core/policy/decide.js';
import { decide } from '../../core/policy/decide.js';
import { fillMessage, refusal } from '../call-results.js';
import type { ToolSettings, ToolSettingsTable } from '../tool-settings.js';
import type { CallMiddleware } from './compose.js';
import { requireAnnotations, requireEntry } from './context.js';

interface KnownDecision {
  readonly settings: ToolSettings;
  readonly decision: Decision;
}

/**
 * Decides what to do with the call: allow, confirm or deny, from the effective annotations
 * (`ctx.annotations`, after overrides and any dynamic refinement) and the tool's settings
 * (global, server, tool rules) through core `decide` (an inferred `requiresConfirmation` is
 * left to the `confirm` mode). A denial answers at once with a result
 * the model can relay (the configured message, or why) and never calls `next`; the other
 * decisions go on (`confirm` acts on a confirmation). A timeout configured for the tool is
 * set here for `forward`.
 *
 * Decisions are kept per annotations object: the static effective annotations of a tool are
 * one object, so the common call costs a lookup; refined annotations are decided afresh.
 */
export function policy(table: ToolSettingsTable): CallMiddleware {
  const known = new WeakMap<EffectiveAnnotations, KnownDecision>();
  // Not async: the common call returns `next()` as it is, saving a promise.
  return function policy(ctx, next) {
    const entry = requireEntry(ctx);
    const annotations = requireAnnotations(ctx);
    const settings = table.forTool(entry.server, entry.namespacedName);
    let found = known.get(annotations);
    if (found?.settings !== settings) {
      found = { settings, decision: decideCall(annotations, settings) };
      known.set(annotations, found);
    }
    const decision = found.decision;
    ctx.decision = decision;
    if (settings.timeoutMs !== undefined) ctx.timeoutMs = settings.timeoutMs;
    ctx.trace.decision = decision.kind;
    if (decision.kind !== 'deny') return next();
    ctx.trace.stoppedBy = 'policy';
    ctx.trace.outcome = 'denied';
    const text =
      decision.message === undefined
        ? `Denied by policy: calls to ${entry.flattenedName} are not allowed through this gateway. Do not retry; tell the user.`
        : fillMessage(decision.message, entry.flattenedName);
    return Promise.resolve(refusal(text, { decision: 'deny' }));
  };
}

/**
 * What policy decides for a call with these effective annotations under these settings: the
 * step's own decision, also used to tell in advance which tools will ask (`hintgate tools`).
 */
export function decideCall(annotations: EffectiveAnnotations, settings: ToolSettings): Decision {
  return decide(withoutInferredConfirmation(annotations), annotations.provenance, settings.confirm);
}

/**
 * The annotations `decide` reads: an inferred `requiresConfirmation` only restates that the
 * tool looks destructive, which the `confirm` mode already decides on (so `confirm: never`
 * means never); one a server declared or a user set stands.
 */
function withoutInferredConfirmation(annotations: EffectiveAnnotations): ToolAnnotations {
  const source = annotations.provenance['requiresConfirmation']?.source;
  if (source !== 'inferred' && source !== 'spec-default') return annotations.annotations;
  const { requiresConfirmation: _dropped, ...rest } = annotations.annotations;
  return rest;
}
