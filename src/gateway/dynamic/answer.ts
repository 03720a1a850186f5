/**
 * The front's `tools/annotations` (the proposal) and `tools/resolve` (the tool-resolution
 * extension): a tool the session sees, its arguments checked against its listed input
 * schema, answered from the same resolution the call path uses. Never calls the tool.
 */
import type { HintField } from '../../core/annotations/types.js';
import { HINT_FIELDS } from '../../core/annotations/types.js';
import { answerDynamicRequest } from '../../mcp/dynamic-answer.js';
import type { HintsInput } from '../../mcp/dynamic-wire.js';
import {
  TOOLS_RESOLVE_METHOD,
  declaresToolResolution,
  invalidParamsError,
  missingCapabilityError,
  readDynamicParams,
} from '../../mcp/dynamic-wire.js';
import type { DynamicReply, DynamicRequest } from '../../front/backend.js';
import type { SessionInfo } from '../../front/session.js';
import type { ViewLookup } from '../toolsets/view.js';
import type { DynamicResolver } from './resolver.js';

/** What a name means for a session (its toolset view). */
export type SessionLookup = (session: SessionInfo, name: string) => ViewLookup;

/**
 * Answers one request: `-32021` for `tools/resolve` from a client that did not negotiate the
 * extension; `-32602` for params that are not `{ name, arguments }`, a tool the session does
 * not see (naming it), a tool without dynamic annotations, or arguments its input schema
 * rejects (with each problem in `data.errors`); `-32603` when resolving fails. Otherwise the
 * four hints for these arguments: `{ annotations }`, or `{ resultType: 'complete', name,
 * annotations }` for `tools/resolve`. When the tool's server resolves it and fails, the
 * answer is the tool's listed (worst-case) annotations, as the proposal tells clients to do.
 */
export async function answerDynamic(
  request: DynamicRequest,
  lookup: SessionLookup,
  resolver: DynamicResolver,
): Promise<DynamicReply> {
  const { method, session } = request;
  if (method === TOOLS_RESOLVE_METHOD && !declaresToolResolution(session.clientCapabilities)) {
    return { ok: false, error: missingCapabilityError() };
  }
  const read = readDynamicParams(request.params);
  if (!read.ok) return { ok: false, error: invalidParamsError(method, read.problem) };
  const { name } = read.value;
  const found = lookup(session, name);
  const entry = found.kind === 'tool' || found.kind === 'local' ? found.entry : undefined;
  const outcome = await answerDynamicRequest({
    method,
    name,
    arguments: read.value.arguments,
    tool: entry?.listed,
    resolver:
      entry?.dynamic === undefined
        ? undefined
        : async (args, context) =>
            hintsOf((await resolver.resolve(entry, args, context.signal)).annotations.annotations),
    signal: request.signal,
  });
  return outcome.ok ? { ok: true, result: { ...outcome.result } } : outcome;
}

function hintsOf(annotations: Readonly<Partial<Record<HintField, unknown>>>): HintsInput {
  const hints: Partial<Record<HintField, boolean>> = {};
  for (const field of HINT_FIELDS) {
    const value = annotations[field];
    if (typeof value === 'boolean') hints[field] = value;
  }
  return hints;
}
