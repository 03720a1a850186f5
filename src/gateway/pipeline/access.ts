import type { SessionInfo } from '../../front/session.js';
import type { AccessControl, AccessDecision } from '../access.js';
import { refusal } from '../call-results.js';
import type { CallScope } from '../toolsets/scope.js';
import type { CallMiddleware } from './compose.js';
import type { CallContext, CallToolResult } from './context.js';
import { requireAnnotations, requireEntry } from './context.js';

/** The toolset a session has equipped, for the access rules of that toolset. */
export type ToolsetOf = (session: SessionInfo) => string | undefined;

/**
 * Who may call what: the `access` rules for the calling principal (the session's, with its
 * groups) and the tool as the session's view shows it; when a deciding rule read the tool's
 * annotations, the call's own (refined from its arguments) must pass too. A refused call
 * answers at once, naming the principal, the tool and the rule, and never calls `next`; the
 * rule that decided is in the trace (`access`) and so in the audit log.
 */
export function access(control: AccessControl, toolsetOf: ToolsetOf): CallMiddleware {
  return function access(ctx, next) {
    if (control.open) return next();
    const entry = requireEntry(ctx);
    const annotations = requireAnnotations(ctx);
    const principal = control.principals.lookup(ctx.session.principal);
    const toolset = toolsetOf(ctx.session);
    let decision = control.decideEntry(principal, toolset, entry);
    if (decision.allowed && decision.readAnnotations && annotations !== entry.effective) {
      decision = control.decide(principal, toolset, {
        server: entry.server,
        namespacedName: entry.namespacedName,
        annotations: annotations.annotations,
      });
    }
    if (decision.allowed) return next();
    return Promise.resolve(refuse(ctx, entry.flattenedName, principal.name, decision));
  };
}

/**
 * The meta tools (answered by `resolve` itself) under the same rules: a call of one the
 * principal may not use is refused as a tool call would be.
 */
export function guardedScope(
  scope: CallScope,
  control: AccessControl,
  toolsetOf: ToolsetOf,
): CallScope {
  if (control.open) return scope;
  return {
    lookup: (ctx) => scope.lookup(ctx),
    callLocal(ctx) {
      const entry = requireEntry(ctx);
      const principal = control.principals.lookup(ctx.session.principal);
      const decision = control.decideEntry(principal, toolsetOf(ctx.session), entry);
      if (decision.allowed) return scope.callLocal(ctx);
      return Promise.resolve(refuse(ctx, entry.flattenedName, principal.name, decision));
    },
  };
}

/** The refusal; `tool` is the name the client called. */
function refuse(
  ctx: CallContext,
  tool: string,
  principal: string,
  decision: AccessDecision,
): CallToolResult {
  ctx.trace.decision = 'access-denied';
  ctx.trace.stoppedBy = 'access';
  ctx.trace.outcome = 'denied';
  const why = decision.reason === undefined ? '' : ` (${decision.reason})`;
  return refusal(
    `Access denied: ${principal} may not call ${tool} through this gateway (${decision.by})${why}. Do not retry; ask the gateway's administrator for access if it is needed.`,
    { decision: 'access-denied' },
  );
}
