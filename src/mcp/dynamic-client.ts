/**
 * The client side of dynamic annotations: `preflight` asks a server for a call's
 * annotations (`tools/resolve`, else `tools/annotations`, else the static ones, with the
 * proposal's fallback rules), and `callToolSafely` asks a person before a destructive call.
 * Works with an SDK v2 `Client` and, structurally, a v1 one.
 */
import { z } from 'zod';
import type { ToolAnnotations } from '../core/annotations/types.js';
import { HINT_FIELDS } from '../core/annotations/types.js';
import { requiresConfirmation } from '../core/annotations/safety.js';
import { errorMessage } from '../core/errors.js';
import { boundViolations, completeHints, staticHints } from './dynamic-bound.js';
import { listedTool, requestOptionsOf } from './dynamic-tools.js';
import type { DynamicClient } from './dynamic-tools.js';
import type { DynamicMethod, ResolvedHints } from './dynamic-wire.js';
import {
  DYNAMIC_ERROR,
  TOOLS_ANNOTATIONS_METHOD,
  TOOLS_RESOLVE_METHOD,
  declaresToolResolution,
  hasDynamicAnnotations,
  isResolvableTool,
  readAnnotationsResult,
  readResolveResult,
} from './dynamic-wire.js';
import type { JsonObject } from './json-rpc.js';
import { isJsonObject } from './json-rpc.js';

const LOOSE_RESULT = z.looseObject({});

/** The annotations a preflight settles on: all four hints, and the static title if any. */
export type PreflightAnnotations = ResolvedHints & { readonly title?: string };

/** Why a preflight did not give dynamic annotations. */
export type PreflightErrorKind =
  /** No listed tool has that name. */
  | 'unknown-tool'
  /** The server rejected the request's params (`-32602`): the arguments, usually. */
  | 'invalid-arguments'
  /** The server does not serve the method (`-32601`, or HTTP 404 on 2026 HTTP). */
  | 'not-supported'
  /** `tools/resolve` without the extension negotiated (`-32021`). */
  | 'not-negotiated'
  /** Any other error, or no answer. */
  | 'failed'
  /** An answer that is not the method's result shape. */
  | 'malformed'
  /** A `tools/resolve` answer for another tool. */
  | 'name-mismatch'
  /** An answer less conservative than the tool's static annotations allow. */
  | 'exceeds-bound';

/** What went wrong, as a value. */
export interface PreflightError {
  readonly kind: PreflightErrorKind;
  readonly message: string;
  /** The JSON-RPC error code, when the server answered with an error. */
  readonly code?: number;
  readonly data?: unknown;
  /**
   * True when the error must be shown to the user rather than quietly replaced by the static
   * annotations: the arguments were rejected, the tool is unknown, or it has no static
   * annotations to fall back on (as the proposal requires).
   */
  readonly surface: boolean;
}

/** A preflight's outcome. */
export interface PreflightResult {
  readonly annotations: PreflightAnnotations;
  /** `dynamic`: answered for these arguments; `static`: the listed (worst-case) annotations. */
  readonly source: 'dynamic' | 'static';
  /** The method that answered, or the last one tried when it failed. */
  readonly method?: DynamicMethod;
  readonly error?: PreflightError;
  /**
   * False when the tool must not be called with these arguments: the server rejected them
   * (`-32602`), or no such tool is listed.
   */
  readonly callable: boolean;
}

/** Options of {@link preflight}. */
export interface PreflightOptions {
  /** The listed tool, when the caller has it (skips the cached `tools/list`). */
  readonly tool?: JsonObject;
  readonly signal?: AbortSignal;
  /** Milliseconds for each request (the SDK's default otherwise). */
  readonly timeout?: number;
}

function staticAnnotationsOf(tool: JsonObject): ToolAnnotations | undefined {
  return isJsonObject(tool['annotations']) ? tool['annotations'] : undefined;
}

function withTitle(hints: ResolvedHints, staticAnnotations: ToolAnnotations | undefined) {
  const title = staticAnnotations?.title;
  const annotations: PreflightAnnotations = { ...hints };
  return typeof title === 'string' ? { ...annotations, title } : annotations;
}

function hasStaticHints(annotations: ToolAnnotations | undefined): boolean {
  return HINT_FIELDS.some((field) => typeof annotations?.[field] === 'boolean');
}

const KIND_BY_CODE: Readonly<Record<number, PreflightErrorKind>> = {
  [DYNAMIC_ERROR.invalidParams]: 'invalid-arguments',
  [DYNAMIC_ERROR.methodNotFound]: 'not-supported',
  [DYNAMIC_ERROR.missingClientCapability]: 'not-negotiated',
};

/** A thrown SDK error (v2 `ProtocolError`/`SdkHttpError`, v1 `McpError`) as a preflight error. */
function fromThrown(error: unknown): Omit<PreflightError, 'surface'> {
  const message = errorMessage(error);
  const { code, data } =
    typeof error === 'object' && error !== null
      ? (error as { code?: unknown; data?: unknown })
      : {};
  if (typeof code === 'number') {
    const kind = KIND_BY_CODE[code] ?? 'failed';
    return data === undefined ? { kind, message, code } : { kind, message, code, data };
  }
  // A 2026 HTTP server without the method answers HTTP 404 (SDK v2 `SdkHttpError`).
  if (isJsonObject(data) && data['status'] === 404) return { kind: 'not-supported', message };
  return { kind: 'failed', message };
}

type Attempt =
  | { readonly ok: true; readonly hints: ResolvedHints }
  | { readonly ok: false; readonly error: Omit<PreflightError, 'surface'> };

async function attempt(
  client: DynamicClient,
  method: DynamicMethod,
  name: string,
  args: JsonObject,
  staticAnnotations: ToolAnnotations | undefined,
  options: PreflightOptions,
): Promise<Attempt> {
  let answer: unknown;
  try {
    answer = await client.request(
      { method, params: { name, arguments: args } },
      LOOSE_RESULT,
      requestOptionsOf(options),
    );
  } catch (error) {
    if (options.signal?.aborted === true) throw error;
    return { ok: false, error: fromThrown(error) };
  }
  let hints: ResolvedHints;
  if (method === TOOLS_RESOLVE_METHOD) {
    const read = readResolveResult(answer, name);
    if (!read.ok) return { ok: false, error: { kind: read.kind, message: read.problem } };
    hints = read.value;
  } else {
    const read = readAnnotationsResult(answer);
    if (!read.ok) return { ok: false, error: { kind: 'malformed', message: read.problem } };
    hints = completeHints(staticAnnotations, read.value);
  }
  const violations = boundViolations(staticAnnotations, hints);
  if (violations.length > 0) {
    const message = `the answer exceeds the static annotations on ${violations.join(', ')}`;
    return { ok: false, error: { kind: 'exceeds-bound', message, data: { fields: violations } } };
  }
  return { ok: true, hints };
}

/** The methods to try for a listed tool, in order. */
function methodsFor(client: DynamicClient, tool: JsonObject): DynamicMethod[] {
  const methods: DynamicMethod[] = [];
  if (isResolvableTool(tool) && declaresToolResolution(client.getServerCapabilities())) {
    methods.push(TOOLS_RESOLVE_METHOD);
  }
  if (hasDynamicAnnotations(tool)) methods.push(TOOLS_ANNOTATIONS_METHOD);
  return methods;
}

/**
 * The annotations to act on for one call, asked of the server for these arguments:
 * `tools/resolve` when the tool is marked resolvable and the server declares the extension,
 * else (or when that is not negotiated or not served) `tools/annotations` when the tool says
 * `dynamicAnnotations: true`, else the static annotations. On an error the static annotations
 * stand (`error` says why); `-32602` is surfaced and the call must not be made; a tool with no
 * static annotations surfaces the error (its annotations are then the MCP defaults, which
 * treat it as destructive). Every answer is checked for its shape, its tool name and its
 * static bound. Nothing is cached across calls except the tool list (per client; see
 * `forgetListedTools`).
 *
 * @example
 * const check = await preflight(client, 'manage_files', { path: 'notes.txt', action: 'read' });
 * check.source; // 'dynamic'
 * check.annotations.readOnlyHint; // true
 */
export async function preflight(
  client: DynamicClient,
  name: string,
  args: JsonObject,
  options: PreflightOptions = {},
): Promise<PreflightResult> {
  const tool = options.tool ?? (await listedTool(client, name, requestOptionsOf(options)));
  if (tool === undefined) {
    const error: PreflightError = {
      kind: 'unknown-tool',
      message: `No tool named ${name} is listed`,
      surface: true,
    };
    return { annotations: staticHints(undefined), source: 'static', error, callable: false };
  }
  const staticAnnotations = staticAnnotationsOf(tool);
  const fallback = withTitle(staticHints(staticAnnotations), staticAnnotations);
  let last: { method: DynamicMethod; error: Omit<PreflightError, 'surface'> } | undefined;
  for (const method of methodsFor(client, tool)) {
    const outcome = await attempt(client, method, name, args, staticAnnotations, options);
    if (outcome.ok) {
      const annotations = withTitle(outcome.hints, staticAnnotations);
      return { annotations, source: 'dynamic', method, callable: true };
    }
    last = { method, error: outcome.error };
    if (outcome.error.kind === 'invalid-arguments') {
      const error = { ...outcome.error, surface: true };
      return { annotations: fallback, source: 'static', method, error, callable: false };
    }
    // The next method is worth trying only when this one is not served or not negotiated.
    if (outcome.error.kind !== 'not-supported' && outcome.error.kind !== 'not-negotiated') break;
  }
  if (last === undefined) return { annotations: fallback, source: 'static', callable: true };
  const error = { ...last.error, surface: !hasStaticHints(staticAnnotations) };
  return { annotations: fallback, source: 'static', method: last.method, error, callable: true };
}

/** What the confirm callback of {@link callToolSafely} is shown. */
export interface ConfirmRequest {
  readonly name: string;
  readonly arguments: Readonly<JsonObject>;
  readonly annotations: PreflightAnnotations;
  readonly source: 'dynamic' | 'static';
  readonly method?: DynamicMethod;
  /** Why confirmation is asked, in a sentence for a person. */
  readonly reason: string;
  /** What went wrong in the preflight, when something did. */
  readonly error?: PreflightError;
}

/** Options of {@link callToolSafely}. */
export interface CallToolSafelyOptions extends PreflightOptions {
  /** Asked before a call that may be destructive; the call is made only on `true`. */
  readonly confirm: (request: ConfirmRequest) => boolean | Promise<boolean>;
}

/** A `tools/call` result as the server sent it. */
export type CallToolResultLike = JsonObject & {
  readonly content?: readonly unknown[];
  readonly isError?: boolean;
};

/** The outcome of {@link callToolSafely}: the tool's result, or why it was not called. */
export type SafeCallOutcome =
  | {
      readonly kind: 'called';
      readonly result: CallToolResultLike;
      readonly preflight: PreflightResult;
      /** True when a person confirmed the call; false when none was needed. */
      readonly confirmed: boolean;
    }
  | {
      readonly kind: 'refused';
      /** `declined`: the confirm callback said no; `not-callable`: the preflight forbids the call. */
      readonly reason: 'declined' | 'not-callable';
      /** A sentence saying why the tool was not called. */
      readonly message: string;
      readonly preflight: PreflightResult;
    };

function confirmationReason(name: string, check: PreflightResult): string {
  const basis =
    check.source === 'dynamic'
      ? `the server says it is destructive for these arguments (${check.method ?? 'dynamic'})`
      : check.error?.surface === true
        ? 'it has no annotations, so it is treated as possibly destructive'
        : 'its static annotations say it may be destructive';
  const failure = check.error === undefined ? '' : `; the preflight failed: ${check.error.message}`;
  return `Calling ${name} may destroy data: ${basis}${failure}.`;
}

/**
 * Calls a tool after a {@link preflight}: a call that may be destructive (core
 * `requiresConfirmation` on the settled annotations) is made only if `confirm` approves it;
 * a call the preflight forbids (rejected arguments, unknown tool) is never made. Returns the
 * result, or a refusal saying why; errors of the call itself (transport, protocol) are thrown
 * as the client throws them.
 *
 * @example
 * const outcome = await callToolSafely(client, 'manage_files', { path: 'a.txt', action: 'delete' }, {
 *   confirm: async ({ reason }) => ask(reason),
 * });
 * if (outcome.kind === 'refused') console.log(outcome.message);
 */
export async function callToolSafely(
  client: DynamicClient,
  name: string,
  args: JsonObject,
  options: CallToolSafelyOptions,
): Promise<SafeCallOutcome> {
  const check = await preflight(client, name, args, options);
  if (!check.callable) {
    const why = check.error?.message ?? 'the preflight forbids the call';
    return {
      kind: 'refused',
      reason: 'not-callable',
      message: `${name} was not called: ${why}`,
      preflight: check,
    };
  }
  let confirmed = false;
  if (requiresConfirmation(check.annotations)) {
    const request: ConfirmRequest = {
      name,
      arguments: args,
      annotations: check.annotations,
      source: check.source,
      reason: confirmationReason(name, check),
      ...(check.method === undefined ? {} : { method: check.method }),
      ...(check.error === undefined ? {} : { error: check.error }),
    };
    if (!(await options.confirm(request))) {
      return {
        kind: 'refused',
        reason: 'declined',
        message: `${name} was not called: the call was not confirmed`,
        preflight: check,
      };
    }
    confirmed = true;
  }
  const result = await client.request(
    { method: 'tools/call', params: { name, arguments: args } },
    LOOSE_RESULT,
    requestOptionsOf(options),
  );
  return { kind: 'called', result: result as CallToolResultLike, preflight: check, confirmed };
}
