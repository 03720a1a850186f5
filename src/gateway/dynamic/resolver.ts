/**
 * One call's annotations, refined for its arguments: from the tool's server when it resolves
 * the tool itself, else from rules, else from the built-in classifiers; within the bounds of
 * the tool's static annotations. The same answer serves the front's `tools/annotations` and
 * `tools/resolve` and the `annotate` step of every call.
 */
import type { EffectiveAnnotations } from '../../core/annotations/effective.js';
import type { DynamicResolution } from '../../core/dynamic/resolve.js';
import { resolveDynamicAnnotations } from '../../core/dynamic/resolve.js';
import { errorMessage } from '../../core/errors.js';
import { completeHints } from '../../mcp/dynamic-bound.js';
import type { DynamicMethod, HintsInput } from '../../mcp/dynamic-wire.js';
import {
  TOOLS_RESOLVE_METHOD,
  readAnnotationsResult,
  readResolveResult,
} from '../../mcp/dynamic-wire.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';
import type { CatalogEntry } from '../catalog-entry.js';
import { refineAnnotations } from './refine.js';
import type { DynamicSpec } from './spec.js';

/** Sends a resolution request to a server; resolves with its result or throws its error. */
export type DownstreamAsk = (
  server: string,
  method: DynamicMethod,
  params: JsonObject,
  options: { readonly signal: AbortSignal; readonly timeoutMs: number },
) => Promise<JsonObject>;

/** A call's annotations and how they were reached. */
export interface CallResolution {
  /** The annotations that hold for the call (the tool's listed ones when nothing refined them). */
  readonly annotations: EffectiveAnnotations;
  /** What refined them; undefined when nothing applied. */
  readonly resolution: DynamicResolution | undefined;
  /**
   * Why the server's own answer was not used, when it was asked and failed: its static
   * annotations then stand, as the proposal requires of clients.
   */
  readonly fallback?: string;
}

type ServerAnswer =
  | { readonly ok: true; readonly hints: HintsInput }
  | { readonly ok: false; readonly problem: string };

/**
 * Resolves calls of dynamic tools. Holds nothing between calls: a server's answer is never
 * reused for another call (SEP-1862), and rules and classifiers are pure functions of the
 * arguments, so the same arguments always get the same annotations.
 */
export class DynamicResolver {
  constructor(private readonly ask: DownstreamAsk) {}

  /**
   * The annotations of one call of `entry` with `args`. For a static tool, its effective
   * annotations as they are (no work). Rejects only when `signal` aborts.
   */
  async resolve(entry: CatalogEntry, args: unknown, signal: AbortSignal): Promise<CallResolution> {
    const spec = entry.dynamic;
    if (spec === undefined) return { annotations: entry.effective, resolution: undefined };
    let resolution: DynamicResolution | undefined;
    if (spec.forward !== undefined) {
      const answer = await this.fromServer(entry, spec, spec.forward, args, signal);
      if (!answer.ok) {
        return { annotations: entry.effective, resolution: undefined, fallback: answer.problem };
      }
      resolution = resolveDynamicAnnotations({
        staticAnnotations: spec.bound,
        detected: spec.detected,
        // Rules do not decide a forwarded call; they may corroborate an untrusted answer.
        rules: spec.rules,
        tool: entry.namespacedName,
        args,
        downstream: completeHints(spec.bound, answer.hints),
        trust: spec.trust,
      });
    } else {
      resolution = resolveDynamicAnnotations({
        staticAnnotations: spec.bound,
        detected: spec.detected,
        rules: spec.rules,
        tool: entry.namespacedName,
        args,
      });
    }
    return resolution === undefined
      ? { annotations: entry.effective, resolution }
      : { annotations: refineAnnotations(entry.effective, resolution), resolution };
  }

  /** The server's answer for these arguments, or why there is none (any error counts). */
  private async fromServer(
    entry: CatalogEntry,
    spec: DynamicSpec,
    method: DynamicMethod,
    args: unknown,
    signal: AbortSignal,
  ): Promise<ServerAnswer> {
    let result: JsonObject;
    try {
      result = await this.ask(
        entry.server,
        method,
        { name: entry.name, arguments: isJsonObject(args) ? args : {} },
        { signal, timeoutMs: spec.timeoutMs },
      );
    } catch (error) {
      if (signal.aborted) throw error;
      return { ok: false, problem: `${method} failed: ${errorMessage(error)}` };
    }
    if (method === TOOLS_RESOLVE_METHOD) {
      const read = readResolveResult(result, entry.name);
      return read.ok
        ? { ok: true, hints: read.value }
        : { ok: false, problem: `${method} answered: ${read.problem}` };
    }
    const read = readAnnotationsResult(result);
    return read.ok
      ? { ok: true, hints: read.value }
      : { ok: false, problem: `${method} answered: ${read.problem}` };
  }
}
