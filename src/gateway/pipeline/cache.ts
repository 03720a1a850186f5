import { effectiveHint } from '../../core/annotations/safety.js';
import { canonicalJson } from '../../core/util/canonical-json.js';
import { isJsonObject } from '../../mcp/json-rpc.js';
import type { ResultCache } from '../result-cache.js';
import type { ToolSettingsTable } from '../tool-settings.js';
import type { CallMiddleware } from './compose.js';
import type { CallToolResult } from './context.js';
import { requireAnnotations, requireEntry } from './context.js';

/** How long results live by default. */
export interface CacheTtls {
  readonly readOnlyTtlMs: number;
  readonly idempotentTtlMs: number;
}

/**
 * Serves repeated calls from the cache and keeps what may be reused: results of read-only
 * calls (for `readOnlyTtlMs`, default 5 minutes) and of idempotent, non-destructive ones
 * (`idempotentTtlMs`, default 30 s), keyed by tool and canonical arguments; never a
 * destructive or unannotated call's, never an `isError` or `input_required` result, never a
 * round of a multi-round call. A hit never calls `next`. Any call that is not read-only
 * and reaches the server makes that server's cached results stale, before and after it runs.
 */
export function cache(
  results: ResultCache,
  table: ToolSettingsTable,
  ttls: CacheTtls,
): CallMiddleware {
  // Not async: a hit, or a call the cache leaves alone, costs no promise of its own.
  return function cache(ctx, next) {
    const entry = requireEntry(ctx);
    const annotations = requireAnnotations(ctx).annotations;
    const { server } = entry;
    const readOnly = effectiveHint(annotations, 'readOnlyHint');
    const reusable =
      readOnly ||
      (effectiveHint(annotations, 'idempotentHint') &&
        !effectiveHint(annotations, 'destructiveHint'));
    const settings = table.forTool(server, entry.namespacedName);
    const cacheable =
      reusable &&
      settings.cache &&
      ctx.params['requestState'] === undefined &&
      ctx.params['inputResponses'] === undefined;
    if (!cacheable) return readOnly ? next() : writeThrough(results, server, next);

    const key = `${entry.namespacedName}\u0000${argumentsKey(ctx.params['arguments'])}`;
    const hit = results.get(key);
    if (hit !== undefined) {
      ctx.trace.cacheHit = true;
      ctx.trace.stoppedBy = 'cache';
      ctx.trace.outcome = 'ok';
      return Promise.resolve(hit);
    }
    ctx.trace.cacheHit = false;
    const ttl = settings.cacheTtlMs ?? (readOnly ? ttls.readOnlyTtlMs : ttls.idempotentTtlMs);
    if (!readOnly) return idempotentWrite(results, key, server, ttl, next);
    const generation = results.generation(server);
    return next().then((result) => keep(results, key, server, generation, result, ttl));
  };
}

/**
 * Keeps a read's result under the generation its call started with (read before `next` ran,
 * so a write that overlapped it makes it stale), unless it is an error or an input request.
 */
function keep(
  results: ResultCache,
  key: string,
  server: string,
  generation: number,
  result: CallToolResult,
  ttlMs: number,
): CallToolResult {
  if (result['isError'] !== true && result['resultType'] === undefined)
    results.set(key, server, generation, result, ttlMs);
  return result;
}

/** An idempotent write: it makes earlier results stale, and its own result is kept. */
async function idempotentWrite(
  results: ResultCache,
  key: string,
  server: string,
  ttlMs: number,
  next: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  results.invalidate(server);
  let result: CallToolResult;
  try {
    result = await next();
  } finally {
    results.invalidate(server);
  }
  return keep(results, key, server, results.generation(server), result, ttlMs);
}

/** A call that may change the server: its cached results are stale before and after it. */
async function writeThrough(
  results: ResultCache,
  server: string,
  next: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  results.invalidate(server);
  try {
    return await next();
  } finally {
    results.invalidate(server);
  }
}

/**
 * The arguments as canonical JSON (keys sorted at every depth). Most calls pass a flat
 * object whose keys are already in order: that is its own canonical form, without a copy.
 */
export function argumentsKey(args: unknown): string {
  if (args === undefined) return '{}';
  if (isJsonObject(args)) {
    let previous = '';
    let flat = true;
    for (const key in args) {
      const value = args[key];
      if (key <= previous || (typeof value === 'object' && value !== null) || value === undefined) {
        flat = false;
        break;
      }
      previous = key;
    }
    if (flat) return JSON.stringify(args);
  }
  return canonicalJson(args);
}
