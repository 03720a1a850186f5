/**
 * The wire forms of dynamic annotations, as plain data: the proposal's `tools/annotations`
 * and the tool-resolution extension's `tools/resolve` (SEP-1862). Names, tool markers,
 * capability negotiation, request and result shapes, and the JSON-RPC errors of both. No
 * SDK, no I/O: the server helper, the client preflight and the gateway all build on these.
 */
import type { HintField } from '../core/annotations/types.js';
import { HINT_FIELDS, isHintField } from '../core/annotations/types.js';
import type { JsonObject, RpcErrorObject } from './json-rpc.js';
import { RPC_ERROR, isJsonObject } from './json-rpc.js';

/** The experimental extension's identifier, a capability key and a tool `_meta` key. */
export const TOOL_RESOLUTION_EXTENSION = 'io.modelcontextprotocol/tool-resolution';

/** The proposal's request: `{ name, arguments }` → `{ annotations }`. */
export const TOOLS_ANNOTATIONS_METHOD = 'tools/annotations';

/** The extension's request: `{ name, arguments }` → `{ resultType, name, annotations }`. */
export const TOOLS_RESOLVE_METHOD = 'tools/resolve';

/** Either request. */
export type DynamicMethod = typeof TOOLS_ANNOTATIONS_METHOD | typeof TOOLS_RESOLVE_METHOD;

/** The JSON-RPC error codes of both requests. */
export const DYNAMIC_ERROR = {
  /** The server does not serve the method: use the static annotations. */
  methodNotFound: RPC_ERROR.methodNotFound,
  /** Unknown tool, tool without dynamic annotations, or arguments the schema rejects. */
  invalidParams: RPC_ERROR.invalidParams,
  /** The resolver failed, answered something malformed, or went beyond the static bound. */
  internalError: RPC_ERROR.internalError,
  /** A `tools/resolve` request from a client that did not negotiate the extension. */
  missingClientCapability: -32021,
} as const;

/** All four hints, each with a value: what both requests answer. */
export type ResolvedHints = { readonly [F in HintField]: boolean };

/** Some of the four hints: what a resolver returns. */
export type HintsInput = { readonly [F in HintField]?: boolean };

/** The params of either request once checked. */
export interface DynamicParams {
  readonly name: string;
  readonly arguments: JsonObject;
}

/** The result of `tools/annotations`. */
export interface AnnotationsResult {
  readonly annotations: ResolvedHints;
}

/** The result of `tools/resolve`: exactly these keys, `_meta` aside. */
export interface ResolveResult {
  readonly resultType: 'complete';
  readonly name: string;
  readonly annotations: ResolvedHints;
}

/** A check that passed with a value, or failed with a sentence saying why. */
export type Checked<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/**
 * True when a listed tool carries the extension's marker,
 * `_meta["io.modelcontextprotocol/tool-resolution"].resolvable === true`.
 */
export function isResolvableTool(tool: unknown): boolean {
  if (!isJsonObject(tool)) return false;
  const meta = tool['_meta'];
  if (!isJsonObject(meta)) return false;
  const marker = meta[TOOL_RESOLUTION_EXTENSION];
  return isJsonObject(marker) && marker['resolvable'] === true;
}

/** True when a listed tool says `dynamicAnnotations: true` (the proposal's field). */
export function hasDynamicAnnotations(tool: unknown): boolean {
  return isJsonObject(tool) && tool['dynamicAnnotations'] === true;
}

/** Which markers {@link markDynamicTool} adds. */
export interface DynamicMarkers {
  /** Add `dynamicAnnotations: true` (the tool answers `tools/annotations`). */
  readonly annotations: boolean;
  /** Add the extension's `_meta` marker (the tool answers `tools/resolve`). */
  readonly resolvable: boolean;
}

/**
 * A copy of a listed tool with the markers added; other fields and other `_meta` keys are
 * kept as they are. The input is not changed.
 */
export function markDynamicTool(tool: JsonObject, markers: DynamicMarkers): JsonObject {
  const marked: JsonObject = { ...tool };
  if (markers.annotations) marked['dynamicAnnotations'] = true;
  if (markers.resolvable) {
    const meta = isJsonObject(tool['_meta']) ? tool['_meta'] : {};
    marked['_meta'] = { ...meta, [TOOL_RESOLUTION_EXTENSION]: { resolvable: true } };
  }
  return marked;
}

/** Capabilities declaring the extension, with this revision's (empty) settings. */
export interface ToolResolutionCapabilities {
  readonly extensions: { readonly [TOOL_RESOLUTION_EXTENSION]: Record<string, never> };
}

/**
 * The capabilities that declare the extension, for a client (`new Client(info, {
 * capabilities: toolResolutionCapabilities() })`) or a server. A fresh object each time.
 */
export function toolResolutionCapabilities(): ToolResolutionCapabilities {
  return { extensions: { [TOOL_RESOLUTION_EXTENSION]: {} } };
}

/**
 * True when capabilities (a client's from `initialize` or from a 2026 request's envelope,
 * or a server's) declare the extension. This revision's settings are the empty object; a
 * non-empty one names behaviour this revision does not know, so it does not count.
 */
export function declaresToolResolution(capabilities: unknown): boolean {
  if (!isJsonObject(capabilities)) return false;
  const extensions = capabilities['extensions'];
  if (!isJsonObject(extensions)) return false;
  const settings = extensions[TOOL_RESOLUTION_EXTENSION];
  return isJsonObject(settings) && Object.keys(settings).length === 0;
}

/** True when capabilities declare the proposal's `tools.dynamicAnnotations: true`. */
export function declaresDynamicAnnotations(capabilities: unknown): boolean {
  if (!isJsonObject(capabilities)) return false;
  const tools = capabilities['tools'];
  return isJsonObject(tools) && tools['dynamicAnnotations'] === true;
}

/** Checks the params of either request: a tool name and an arguments object. */
export function readDynamicParams(params: unknown): Checked<DynamicParams> {
  if (!isJsonObject(params)) return { ok: false, problem: 'params must be an object' };
  const name = params['name'];
  if (typeof name !== 'string' || name === '') {
    return { ok: false, problem: 'params.name must be a non-empty string' };
  }
  const args = params['arguments'];
  if (!isJsonObject(args)) {
    return { ok: false, problem: 'params.arguments must be an object (use {} for none)' };
  }
  return { ok: true, value: { name, arguments: args } };
}

/**
 * Checks hints as a resolver or a peer gave them: an object whose keys are among the four
 * hints, each a boolean. With `complete`, all four must be present (`tools/resolve`).
 */
export function readHints(
  value: unknown,
  options: { readonly complete: boolean },
): Checked<HintsInput> {
  if (!isJsonObject(value)) return { ok: false, problem: 'annotations must be an object' };
  const hints: Partial<Record<HintField, boolean>> = {};
  for (const [key, hint] of Object.entries(value)) {
    if (!isHintField(key)) return { ok: false, problem: `unexpected annotation "${key}"` };
    if (typeof hint !== 'boolean') return { ok: false, problem: `${key} must be a boolean` };
    hints[key] = hint;
  }
  if (options.complete) {
    const missing = HINT_FIELDS.filter((field) => hints[field] === undefined);
    if (missing.length > 0) return { ok: false, problem: `missing ${missing.join(', ')}` };
  }
  return { ok: true, value: hints };
}

/** The four hints in their usual order, as a fresh object. */
export function orderedHints(hints: ResolvedHints): ResolvedHints {
  return {
    readOnlyHint: hints.readOnlyHint,
    destructiveHint: hints.destructiveHint,
    idempotentHint: hints.idempotentHint,
    openWorldHint: hints.openWorldHint,
  };
}

/** A `tools/annotations` result. */
export function annotationsResult(hints: ResolvedHints): AnnotationsResult {
  return { annotations: orderedHints(hints) };
}

/** A `tools/resolve` result. */
export function resolveResult(name: string, hints: ResolvedHints): ResolveResult {
  return { resultType: 'complete', name, annotations: orderedHints(hints) };
}

/**
 * Reads a `tools/annotations` result from a server: `{ annotations }` with any of the four
 * hints (the proposal lets a server leave some out).
 */
export function readAnnotationsResult(value: unknown): Checked<HintsInput> {
  if (!isJsonObject(value)) return { ok: false, problem: 'the result is not an object' };
  return readHints(value['annotations'], { complete: false });
}

/** Why a `tools/resolve` result is unusable. */
export type ResolveResultProblem = 'malformed' | 'name-mismatch';

/**
 * Reads a `tools/resolve` result from a server: `resultType` (when the client left it in)
 * `complete`, `name` equal to the requested one, all four hints as booleans.
 */
export function readResolveResult(
  value: unknown,
  name: string,
):
  | { readonly ok: true; readonly value: ResolvedHints }
  | { readonly ok: false; readonly kind: ResolveResultProblem; readonly problem: string } {
  if (!isJsonObject(value)) {
    return { ok: false, kind: 'malformed', problem: 'the result is not an object' };
  }
  const resultType = value['resultType'];
  if (resultType !== undefined && resultType !== 'complete') {
    return { ok: false, kind: 'malformed', problem: `resultType is ${JSON.stringify(resultType)}` };
  }
  if (value['name'] !== name) {
    return {
      ok: false,
      kind: 'name-mismatch',
      problem: `the result names ${JSON.stringify(value['name'])}, not "${name}"`,
    };
  }
  const hints = readHints(value['annotations'], { complete: true });
  if (!hints.ok) return { ok: false, kind: 'malformed', problem: hints.problem };
  return { ok: true, value: hints.value as ResolvedHints };
}

/** `-32602`: params that are not `{ name, arguments }`. */
export function invalidParamsError(method: DynamicMethod, problem: string): RpcErrorObject {
  return { code: DYNAMIC_ERROR.invalidParams, message: `Invalid params for ${method}: ${problem}` };
}

/** `-32602`: no tool of that name is listed. */
export function unknownToolError(name: string): RpcErrorObject {
  return { code: DYNAMIC_ERROR.invalidParams, message: `Unknown tool: ${name}` };
}

/** `-32602`: the tool is listed but has no resolver for this method. */
export function notDynamicError(name: string, method: DynamicMethod): RpcErrorObject {
  const message =
    method === TOOLS_RESOLVE_METHOD
      ? `Tool is not resolvable: ${name}`
      : `Tool has no dynamic annotations: ${name}`;
  return { code: DYNAMIC_ERROR.invalidParams, message };
}

/** One problem the input schema found in the arguments. */
export interface ArgumentIssue {
  /** JSON pointer into the arguments (`''` for the object itself). */
  readonly instancePath: string;
  readonly message: string;
}

/** `-32602`: the arguments do not match the tool's input schema; `data.errors` lists why. */
export function invalidArgumentsError(
  name: string,
  issues: readonly ArgumentIssue[],
): RpcErrorObject {
  const detail = issues
    .map(
      (issue) => `${issue.instancePath === '' ? 'arguments' : issue.instancePath} ${issue.message}`,
    )
    .join('; ');
  return {
    code: DYNAMIC_ERROR.invalidParams,
    message: `Invalid arguments for tool ${name}: ${detail}`,
    data: { errors: issues.map((issue) => ({ ...issue })) },
  };
}

/** `-32603`: the resolver threw (or the schema could not be used); `reason` says what. */
export function resolverFailedError(name: string, reason: string): RpcErrorObject {
  return {
    code: DYNAMIC_ERROR.internalError,
    message: `Failed to resolve annotations for tool ${name}: ${reason}`,
  };
}

/** `-32603`: the resolver answered something that is not hints. */
export function malformedResolutionError(name: string, problem: string): RpcErrorObject {
  return {
    code: DYNAMIC_ERROR.internalError,
    message: `The resolver for tool ${name} returned malformed annotations: ${problem}`,
  };
}

/** `-32603`: the resolution is less conservative than the tool's static annotations allow. */
export function exceedsBoundError(name: string, fields: readonly HintField[]): RpcErrorObject {
  return {
    code: DYNAMIC_ERROR.internalError,
    message: `Resolved annotations exceed the conservative tools/list declaration: ${fields.join(', ')}`,
    data: { tool: name, fields: [...fields] },
  };
}

/** `-32021`: a `tools/resolve` request without the extension negotiated. */
export function missingCapabilityError(): RpcErrorObject {
  return {
    code: DYNAMIC_ERROR.missingClientCapability,
    message: `Missing required client capability: extensions["${TOOL_RESOLUTION_EXTENSION}"]`,
    data: { requiredCapabilities: toolResolutionCapabilities() },
  };
}
