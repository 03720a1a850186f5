import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/client';
import type { JsonObject } from './json-rpc.js';
import { isJsonObject } from './json-rpc.js';

/**
 * The two protocol eras: `legacy` is 2025-11-25 and earlier (initialize, sessions, pushed
 * notifications and server-to-client requests); `modern` is 2026-07-28 (stateless, a
 * per-request `_meta` envelope, `subscriptions/listen`, `input_required` results).
 */
export type Era = 'legacy' | 'modern';

/** The 2026 protocol revision hintgate speaks. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

export {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
};

/** The per-request envelope a 2026 request carries in `_meta`. */
export function modernEnvelope(clientInfo: JsonObject, clientCapabilities: JsonObject): JsonObject {
  return {
    [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
    [CLIENT_INFO_META_KEY]: clientInfo,
    [CLIENT_CAPABILITIES_META_KEY]: clientCapabilities,
  };
}

/** The protocol version a request's envelope claims, if any. */
export function envelopeVersion(params: JsonObject | undefined): string | undefined {
  const meta = params?.['_meta'];
  if (!isJsonObject(meta)) return undefined;
  const version = meta[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/** The client capabilities a 2026 request's envelope declares. */
export function envelopeCapabilities(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?.['_meta'];
  if (!isJsonObject(meta)) return undefined;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  return isJsonObject(capabilities) ? capabilities : undefined;
}

/**
 * A downstream result made era-neutral: the `resultType` of a completed 2026 result and the
 * downstream's own `io.modelcontextprotocol/serverInfo` are removed (the front stamps its
 * own for 2026 clients); an `input_required` result keeps its `resultType`.
 */
export function neutralResult(result: JsonObject): JsonObject {
  const meta = result['_meta'];
  const hasServerInfo = isJsonObject(meta) && SERVER_INFO_META_KEY in meta;
  const complete = result['resultType'] === 'complete';
  if (!complete && !hasServerInfo) return result;
  // Copied member by member, in order: `delete` on a copy would make it a slow dictionary.
  const restMeta = hasServerInfo ? without(meta, SERVER_INFO_META_KEY) : undefined;
  const copy: JsonObject = {};
  for (const key in result) {
    if (key === 'resultType' && complete) continue;
    if (key === '_meta' && hasServerInfo) {
      if (restMeta !== undefined) copy[key] = restMeta;
      continue;
    }
    copy[key] = result[key];
  }
  return copy;
}

/** `object` without member `dropped`, or undefined when nothing else is left. */
function without(object: JsonObject, dropped: string): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    if (key === dropped) continue;
    rest ??= {};
    rest[key] = object[key];
  }
  return rest;
}

/**
 * A result as a 2026 client must receive it: `resultType` (default `complete`) and the
 * serving server's identity in `_meta`, exactly as the SDK's encoder stamps them.
 */
export function stampModernResult(result: JsonObject, serverInfo: JsonObject): JsonObject {
  const stamped: JsonObject =
    result['resultType'] === undefined ? { ...result, resultType: 'complete' } : { ...result };
  const meta = stamped['_meta'];
  if (meta === undefined) stamped['_meta'] = { [SERVER_INFO_META_KEY]: serverInfo };
  else if (isJsonObject(meta) && meta[SERVER_INFO_META_KEY] === undefined) {
    stamped['_meta'] = { ...meta, [SERVER_INFO_META_KEY]: serverInfo };
  }
  return stamped;
}
