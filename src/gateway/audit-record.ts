import type { RestrictedArguments } from '../config/policy-schema.js';
import type { Provenance, ToolAnnotations } from '../core/annotations/types.js';
import { errorMessage, isHintgateError } from '../core/errors.js';
import { REDACTED, redactSecrets } from '../core/util/redact.js';
import type { AuditRecordInput } from '../store/store.js';
import type { FinishedCall } from './pipeline/audit.js';

/** Longest error text kept in a record. */
const MAX_ERROR_LENGTH = 1_000;

/**
 * The audit record of a finished call: when, who (session, client), which tool, server and
 * replica, the effective annotations and the source of each, the decision and who approved,
 * how long it took, how it ended, retries, whether the cache answered, and the arguments:
 * secret-looking values redacted; for `auditRequired` or `securityLevel: restricted` tools,
 * as `restrictedArguments` says (`omit`: the whole value replaced, `redacted`, `full`).
 */
export function auditRecordOf(
  call: FinishedCall,
  restrictedArguments: (server: string, tool: string) => RestrictedArguments,
): AuditRecordInput {
  const { ctx, error } = call;
  const { trace, entry, session } = ctx;
  const annotations = ctx.annotations?.annotations;
  const { sources, dynamic } = sourcesOf(ctx.annotations?.provenance);
  const client = session.clientInfo?.['name'];
  const args = ctx.params['arguments'];
  const restricted = isRestricted(annotations);
  const mode =
    restricted && entry !== undefined
      ? restrictedArguments(entry.server, entry.namespacedName)
      : 'redacted';
  const server = entry?.server ?? trace.server;
  const errorText = error === undefined ? refusalText(call) : errorMessage(error);
  // Built field by field: a record is made for every call, so no spread per optional field.
  const record: { -readonly [K in keyof AuditRecordInput]: AuditRecordInput[K] } = {
    time: new Date(trace.startedAt),
    sessionId: session.id,
    tool: ctx.name === '' ? '(none)' : ctx.name,
    dynamic,
    decision: trace.decision ?? 'none',
    durationMs: Math.max(0, call.endedAt - trace.startedAt),
    outcome: outcomeOf(call),
    retries: trace.retries ?? 0,
    cacheHit: trace.cacheHit === true,
  };
  if (typeof client === 'string') record.client = client;
  if (session.principal !== undefined) record.principal = session.principal;
  if (entry !== undefined) record.namespacedName = entry.namespacedName;
  if (server !== undefined) record.server = server;
  if (trace.replica !== undefined) record.replica = trace.replica;
  if (annotations !== undefined) {
    record.annotations = annotations;
    record.sources = sources;
  }
  if (trace.approver !== undefined) record.approver = trace.approver;
  const disagreement = trace.disagreement;
  const text =
    typeof disagreement === 'string'
      ? errorText === undefined
        ? disagreement
        : `${errorText}; ${disagreement}`
      : errorText;
  if (text !== undefined) record.error = text.slice(0, MAX_ERROR_LENGTH);
  if (args !== undefined)
    record.arguments = mode === 'omit' ? REDACTED : mode === 'full' ? args : redactSecrets(args);
  return record;
}

interface Sources {
  readonly sources: Readonly<Record<string, string>>;
  readonly dynamic: boolean;
}

/** Sources per provenance object: a tool's static annotations are one object for every call. */
const SOURCES = new WeakMap<Provenance, Sources>();
const NO_SOURCES: Sources = { sources: {}, dynamic: false };

/** Each field's source, and whether any value was refined for the call (`dynamic`). */
function sourcesOf(provenance: Provenance | undefined): Sources {
  if (provenance === undefined) return NO_SOURCES;
  let found = SOURCES.get(provenance);
  if (found === undefined) {
    const sources: Record<string, string> = {};
    let dynamic = false;
    for (const [field, value] of Object.entries(provenance)) {
      sources[field] = value.source;
      if (value.source === 'dynamic') dynamic = true;
    }
    found = { sources, dynamic };
    SOURCES.set(provenance, found);
  }
  return found;
}

/** `auditRequired` or `securityLevel: restricted`. */
function isRestricted(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.auditRequired === true || annotations?.securityLevel === 'restricted';
}

/**
 * How the call ended: `ok`, `tool-error`, `input-required`, `denied`, `rate-limited`,
 * `timeout`, `cancelled` or `error`.
 */
function outcomeOf({ ctx, result, error }: FinishedCall): string {
  if (error !== undefined) {
    if (ctx.signal.aborted) return 'cancelled';
    return isHintgateError(error, 'DOWNSTREAM_TIMEOUT') ? 'timeout' : 'error';
  }
  if (ctx.trace.stoppedBy === 'rate-limit') return 'rate-limited';
  if (ctx.trace.outcome !== undefined) return ctx.trace.outcome;
  if (result?.inputRequired === true) return 'input-required';
  return result?.isError === true ? 'tool-error' : 'ok';
}

/** The sentence of a result hintgate gave instead of the server's. */
function refusalText({ ctx, result }: FinishedCall): string | undefined {
  return ctx.trace.stoppedBy === undefined ? undefined : result?.refusal;
}
