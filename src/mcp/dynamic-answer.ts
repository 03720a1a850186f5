/**
 * Answering one `tools/annotations` or `tools/resolve` request from a resolver, whatever
 * serves it (an author's server through `addDynamicAnnotations`, or the gateway): the
 * listed tool is looked up by the caller; this checks the arguments against its input
 * schema, runs the resolver on a frozen copy of them, checks the answer's shape and its
 * static bound, and returns the result or the JSON-RPC error to send. Expected failures are
 * returned, never thrown.
 */
import type { ToolAnnotations } from '../core/annotations/types.js';
import { errorMessage } from '../core/errors.js';
import { boundViolations, completeHints, staticHints } from './dynamic-bound.js';
import { validateArguments } from './dynamic-validate.js';
import type {
  AnnotationsResult,
  DynamicMethod,
  HintsInput,
  ResolveResult,
  ResolvedHints,
} from './dynamic-wire.js';
import {
  TOOLS_RESOLVE_METHOD,
  annotationsResult,
  exceedsBoundError,
  invalidArgumentsError,
  malformedResolutionError,
  notDynamicError,
  readHints,
  resolveResult,
  resolverFailedError,
  unknownToolError,
} from './dynamic-wire.js';
import type { JsonObject, RpcErrorObject } from './json-rpc.js';
import { isJsonObject } from './json-rpc.js';

/** What a resolver is told besides the arguments: nothing that could act on the world. */
export interface ResolverContext {
  /** The tool's name, as listed. */
  readonly name: string;
  /** The tool's static annotations as four hints: the bound the answer must keep. */
  readonly staticAnnotations: ResolvedHints;
  /** Aborted when the request is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * Gives a tool's annotations for particular arguments, without calling the tool: the same
 * arguments must always give the same answer, and nothing may change anywhere as a result.
 * It may return only some hints; the rest keep their static values (see `completeHints`).
 * The arguments have already been validated against the tool's input schema, and are
 * frozen.
 */
export type AnnotationResolver = (
  args: Readonly<JsonObject>,
  context: ResolverContext,
) => HintsInput | Promise<HintsInput>;

/** One request to answer. */
export interface DynamicAnswerInput {
  readonly method: DynamicMethod;
  readonly name: string;
  readonly arguments: JsonObject;
  /** The tool as `tools/list` serves it; `undefined` when no tool has that name. */
  readonly tool: JsonObject | undefined;
  /** The tool's resolver; `undefined` when it has none. */
  readonly resolver: AnnotationResolver | undefined;
  readonly signal?: AbortSignal;
}

/** The answer: the result to send, or the error. */
export type DynamicAnswer =
  | {
      readonly ok: true;
      readonly hints: ResolvedHints;
      readonly result: AnnotationsResult | ResolveResult;
    }
  | { readonly ok: false; readonly error: RpcErrorObject };

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/**
 * Answers one request: `-32602` for an unknown tool, a tool without a resolver, or
 * arguments the input schema rejects (`data.errors` lists each problem); `-32603` when the
 * schema cannot be compiled, the resolver throws, answers something that is not hints, or
 * answers beyond the static bound. Otherwise the result: `{ annotations }` for
 * `tools/annotations`, `{ resultType: 'complete', name, annotations }` for
 * `tools/resolve`, both with all four hints.
 */
export async function answerDynamicRequest(input: DynamicAnswerInput): Promise<DynamicAnswer> {
  const { method, name, tool, resolver } = input;
  if (tool === undefined) return { ok: false, error: unknownToolError(name) };
  if (resolver === undefined) return { ok: false, error: notDynamicError(name, method) };
  const check = validateArguments(tool['inputSchema'], input.arguments);
  switch (check.kind) {
    case 'valid':
      break;
    case 'invalid':
      return { ok: false, error: invalidArgumentsError(name, check.issues) };
    case 'unusable-schema':
      return {
        ok: false,
        error: resolverFailedError(name, `its input schema cannot be used: ${check.message}`),
      };
  }
  const staticAnnotations = isJsonObject(tool['annotations'])
    ? (tool['annotations'] as ToolAnnotations)
    : undefined;
  const bound = staticHints(staticAnnotations);
  let answered: unknown;
  try {
    answered = await resolver(deepFreeze(structuredClone(input.arguments)), {
      name,
      staticAnnotations: bound,
      signal: input.signal ?? new AbortController().signal,
    });
  } catch (error) {
    return { ok: false, error: resolverFailedError(name, errorMessage(error)) };
  }
  const hints = readHints(answered, { complete: false });
  if (!hints.ok) return { ok: false, error: malformedResolutionError(name, hints.problem) };
  const resolved = completeHints(staticAnnotations, hints.value);
  const violations = boundViolations(staticAnnotations, resolved);
  if (violations.length > 0) return { ok: false, error: exceedsBoundError(name, violations) };
  const result =
    method === TOOLS_RESOLVE_METHOD ? resolveResult(name, resolved) : annotationsResult(resolved);
  return { ok: true, hints: resolved, result };
}
