import type { EffectiveAnnotations } from '../../core/annotations/effective.js';
import { effectiveHint } from '../../core/annotations/safety.js';
import type { HintField } from '../../core/annotations/types.js';
import { canonicalJson } from '../../core/util/canonical-json.js';
import { sharedJsonOf } from '../../core/util/json-text.js';
import type { SessionInfo } from '../../front/session.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '../../mcp/era.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';
import type { ResultCache } from '../result-cache.js';
import type { ToolSettingsTable } from '../tool-settings.js';
import type { CallMiddleware } from './compose.js';
import type { CallContext, CallToolResult } from './context.js';
import { requireAnnotations, requireEntry } from './context.js';

/** How long results live by default, and which calls may be kept. */
export interface CacheTtls {
  readonly readOnlyTtlMs: number;
  readonly idempotentTtlMs: number;
  /**
   * Keep results of tools whose read-only (or idempotent) hint is only inferred by hintgate
   * (or a default), not declared by the server or set by config. Off unless configured.
   */
  readonly inferred?: boolean;
}

/** The `_meta` key of a result served from the cache: `{ hit: true, ageMs, storedAt }`. */
export const CACHE_META_KEY = 'dev.hintgate/cache';

/**
 * Serves repeated calls from the cache and keeps what may be reused: results of read-only
 * calls (for `readOnlyTtlMs`, default 5 minutes) and of idempotent, non-destructive ones
 * (`idempotentTtlMs`, default 30 s), keyed by the caller (principal, else the connection),
 * what the protocol lets the server see of the client (era, version, capabilities, `_meta`),
 * the tool and the canonical arguments. Never kept: a destructive or unannotated call's
 * result, one whose hints are only inferred (unless `ttls.inferred`), an `isError` or
 * `input_required` result, a round of a multi-round call, and any call during which the
 * server sent the client something (a request such as elicitation or sampling, progress, a
 * log message): its result went with an exchange a hit could not repeat. A hit never calls
 * `next` and says so in `_meta["dev.hintgate/cache"]` with its age. Any call that is not
 * read-only and reaches the server makes that server's cached results stale, before and
 * after it runs.
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
      (ttls.inferred === true || !onlyInferred(ctx, requireAnnotations(ctx), readOnly)) &&
      ctx.params['requestState'] === undefined &&
      ctx.params['inputResponses'] === undefined;
    if (!cacheable) return readOnly ? next() : writeThrough(results, server, next);

    const tool = entry.namespacedName;
    const key =
      `${callerKey(ctx.session)}\u0000${metaKey(ctx.params['_meta'], ctx.session)}\u0000` +
      `${tool}\u0000${argumentsKey(ctx.params['arguments'])}`;
    const hit = results.get(key, tool);
    if (hit !== undefined) {
      ctx.trace.cacheHit = true;
      ctx.trace.stoppedBy = 'cache';
      ctx.trace.outcome = 'ok';
      return Promise.resolve(markHit(hit.result, hit.storedAt));
    }
    ctx.trace.cacheHit = false;
    const ttl = settings.cacheTtlMs ?? (readOnly ? ttls.readOnlyTtlMs : ttls.idempotentTtlMs);
    watchExchanges(ctx, results, server);
    const activity = results.activity(server);
    if (!readOnly) return idempotentWrite(results, key, tool, server, ttl, activity, next);
    const generation = results.generation(server);
    return next().then((result) =>
      results.activity(server) === activity
        ? keep(results, key, tool, server, generation, result, ttl)
        : result,
    );
  };
}

/** Sources that are hintgate's guesses or the protocol's defaults, not anyone's statement. */
const GUESSED = new Set(['inferred', 'spec-default']);

/**
 * True when what makes the call reusable rests on a guess: its read-only hint (or, for an
 * idempotent call, its idempotent and destructive hints) inferred or defaulted, or refined
 * for this call by a classifier or the worst-case fallback rather than the server or a rule.
 */
function onlyInferred(
  ctx: CallContext,
  effective: EffectiveAnnotations,
  readOnly: boolean,
): boolean {
  const fields: readonly HintField[] = readOnly
    ? ['readOnlyHint']
    : ['idempotentHint', 'destructiveHint'];
  return fields.some((field) => {
    const source = effective.provenance[field]?.source;
    if (source === undefined || GUESSED.has(source)) return true;
    if (source !== 'dynamic') return false;
    const resolver = ctx.trace.dynamic;
    return resolver !== 'server' && resolver !== 'rule';
  });
}

/**
 * Wraps the call's progress, log and request channels so that the cache hears of anything the
 * server sends the client while the call runs (a log message that belongs to no call is
 * counted by the gateway through {@link ResultCache.noteActivity}).
 */
function watchExchanges(ctx: CallContext, results: ResultCache, server: string): void {
  const { progress, relay, log } = ctx;
  if (log !== undefined)
    ctx.log = (params) => {
      results.noteActivity(server);
      log(params);
    };
  if (progress !== undefined)
    ctx.progress = (params) => {
      results.noteActivity(server);
      progress(params);
    };
  if (relay !== undefined)
    ctx.relay = (request, signal) => {
      results.noteActivity(server);
      return relay(request, signal);
    };
}

/** A cached result as served: `_meta` says it came from the cache, and how old it is. */
function markHit(result: CallToolResult, storedAt: number): CallToolResult {
  const meta = isJsonObject(result['_meta']) ? result['_meta'] : {};
  const ageMs = Math.max(0, Date.now() - storedAt);
  return {
    ...result,
    _meta: {
      ...meta,
      [CACHE_META_KEY]: { hit: true, ageMs, storedAt: new Date(storedAt).toISOString() },
    },
  };
}

/** Per session object, its part of the key (a 2025 connection keeps one object). */
const callerKeys = new WeakMap<SessionInfo, string>();

/**
 * Who calls, and what the protocol shows the server of them: the principal (a bearer
 * token's identity), else the connection (stdio, a 2025 HTTP session), plus the era,
 * protocol version, client name and capabilities. Results are never shared across these.
 */
export function callerKey(session: SessionInfo): string {
  let key = callerKeys.get(session);
  if (key === undefined) {
    const who =
      session.principal === undefined
        ? `c:${session.front}:${session.id}`
        : `p:${session.front}:${session.principal}`;
    key =
      `${who}\u0000${session.era ?? ''}\u0000${session.protocolVersion ?? ''}\u0000` +
      `${canonicalJson(session.clientInfo ?? null)}\u0000` +
      canonicalJson(session.clientCapabilities ?? null);
    // A 2026 session is made per request: remembering it would only cost a WeakMap entry.
    if (session.era !== 'modern') callerKeys.set(session, key);
  }
  return key;
}

/**
 * The call's `_meta` without its progress token (a new one each call), as canonical JSON. A
 * 2026 request's envelope members that are the very values its session was made of (the
 * caller key holds them already) are left out: the same key, without canonicalizing the
 * client's capabilities a second time on every call.
 */
function metaKey(meta: unknown, session: SessionInfo): string {
  if (!isJsonObject(meta)) return '';
  let rest: JsonObject | undefined;
  for (const key in meta) {
    if (key === 'progressToken' || inCallerKey(key, meta[key], session)) continue;
    rest ??= {};
    rest[key] = meta[key];
  }
  return rest === undefined ? '' : canonicalJson(rest);
}

/** True when `_meta[key]` is the session's own envelope value, part of {@link callerKey}. */
function inCallerKey(key: string, value: unknown, session: SessionInfo): boolean {
  if (session.era !== 'modern') return false;
  switch (key) {
    case CLIENT_CAPABILITIES_META_KEY:
      return value === session.clientCapabilities;
    case CLIENT_INFO_META_KEY:
      return value === session.clientInfo;
    case PROTOCOL_VERSION_META_KEY:
      return value === session.protocolVersion;
    default:
      return false;
  }
}

/**
 * Keeps a read's result under the generation its call started with (read before `next` ran,
 * so a write that overlapped it makes it stale), unless it is an error or an input request.
 */
function keep(
  results: ResultCache,
  key: string,
  tool: string,
  server: string,
  generation: number,
  result: CallToolResult,
  ttlMs: number,
): CallToolResult {
  if (result['isError'] !== true && result['resultType'] === undefined)
    results.set(key, tool, server, generation, result, ttlMs);
  return result;
}

/** An idempotent write: it makes earlier results stale, and its own result is kept. */
async function idempotentWrite(
  results: ResultCache,
  key: string,
  tool: string,
  server: string,
  ttlMs: number,
  activity: number,
  next: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  results.invalidate(server);
  let result: CallToolResult;
  try {
    result = await next();
  } finally {
    results.invalidate(server);
  }
  if (results.activity(server) !== activity) return result;
  return keep(results, key, tool, server, results.generation(server), result, ttlMs);
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
    // The same text the request to the server takes (`sharedJsonOf`).
    if (flat) return sharedJsonOf(args);
  }
  return canonicalJson(args);
}
