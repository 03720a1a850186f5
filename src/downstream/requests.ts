import type { CallToolRequest, Client, Tool } from '@modelcontextprotocol/client';
import * as z from 'zod';
import type { Era } from '../mcp/era.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  neutralResult,
} from '../mcp/era.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import { fromClientError } from './errors.js';

/** How a client's request is shaped for a server, and sent through the SDK client. */

const LOOSE_RESULT = z.looseObject({});

/** The schema keyword of SEP-2243 custom headers, as it appears in JSON. */
const HEADER_KEY = '"x-mcp-header"';

/** True when a listed tool declares parameters for `Mcp-Param-*` headers (SEP-2243). */
export function declaresHeaders(tool: JsonObject): boolean {
  return JSON.stringify(tool['inputSchema'] ?? null).includes(HEADER_KEY);
}

/**
 * A request through the SDK client (everything but tools/call on a spawned server's raw
 * lane), with its timeout restarted by progress, its result made era-neutral, and what the
 * client threw turned into a `DownstreamError` naming the server.
 */
export async function requestViaClient(
  client: Client,
  server: string,
  method: string,
  params: JsonObject,
  options: {
    timeoutMs: number;
    signal: AbortSignal | undefined;
    onProgress: ((p: JsonObject) => void) | undefined;
    /**
     * For a tools/call, the tool as listed when it declares parameters for headers: the SDK
     * client's `callTool` mirrors them into `Mcp-Param-*` headers (SEP-2243).
     */
    tool?: JsonObject | undefined;
  },
): Promise<JsonObject> {
  const requestOptions = {
    timeout: options.timeoutMs,
    resetTimeoutOnProgress: true,
    allowInputRequired: true,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onProgress === undefined
      ? {}
      : { onprogress: (progress: JsonObject) => options.onProgress?.({ ...progress }) }),
  };
  try {
    const tool = options.tool;
    const result =
      method === 'tools/call' && tool !== undefined
        ? // Only the name and input schema: the result is relayed as the server sent it,
          // never checked against an output schema here.
          await client.callTool(params as CallToolRequest['params'], {
            ...requestOptions,
            toolDefinition: { name: params['name'], inputSchema: tool['inputSchema'] } as Tool,
          })
        : await client.request({ method, params }, LOOSE_RESULT, requestOptions);
    return neutralResult(result);
  } catch (error) {
    if (options.signal?.aborted === true) throw options.signal.reason ?? error;
    throw fromClientError(server, error, method);
  }
}

/** The 2026 envelope keys a client's request carries that the downstream side sets itself. */
const CLIENT_ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
];

/**
 * A client's request without its own 2026 envelope: the downstream side sets the envelope
 * of its server's era itself (none for a 2025 server, which also does not get the 2026 log
 * level).
 */
export function withoutClientEnvelope(params: JsonObject, era: Era): JsonObject {
  const meta = params['_meta'];
  if (!isJsonObject(meta)) return params;
  const drop =
    era === 'legacy' ? [...CLIENT_ENVELOPE_KEYS, LOG_LEVEL_META_KEY] : CLIENT_ENVELOPE_KEYS;
  if (!drop.some((key) => key in meta)) return params;
  const rest: JsonObject = { ...meta };
  for (const key of drop) delete rest[key];
  const copy: JsonObject = { ...params };
  if (Object.keys(rest).length === 0) delete copy['_meta'];
  else copy['_meta'] = rest;
  return copy;
}

/**
 * The params asking a 2026 server for the call's log messages at `level`, unless they ask
 * for a level already (a 2026 client's own envelope). A 2026 server sends none without one.
 */
export function withLogLevel(params: JsonObject, level: string | undefined): JsonObject {
  if (level === undefined) return params;
  const meta = params['_meta'];
  if (isJsonObject(meta) && LOG_LEVEL_META_KEY in meta) return params;
  return { ...params, _meta: { ...(isJsonObject(meta) ? meta : {}), [LOG_LEVEL_META_KEY]: level } };
}

/**
 * The params carrying the capabilities of the client a request is made for, in the 2026
 * envelope (the SDK client keeps a request's own envelope keys over the ones it stamps).
 */
export function withClientCapabilities(
  params: JsonObject,
  capabilities: JsonObject | undefined,
): JsonObject {
  if (capabilities === undefined) return params;
  const meta = params['_meta'];
  return {
    ...params,
    _meta: { ...(isJsonObject(meta) ? meta : {}), [CLIENT_CAPABILITIES_META_KEY]: capabilities },
  };
}

/**
 * A client's request as a server of `era` gets it, in one copy: {@link withoutClientEnvelope},
 * then for a 2026 server {@link withLogLevel} and {@link withClientCapabilities}, which give
 * the same params with a copy of the params and of `_meta` each (this is the hot path of a
 * call).
 */
export function shapeForEra(
  params: JsonObject,
  era: Era,
  logLevel: string | undefined,
  capabilities: JsonObject | undefined,
): JsonObject {
  const meta = params['_meta'];
  const modern = era === 'modern';
  const addLevel = modern && logLevel !== undefined;
  const addCapabilities = modern && capabilities !== undefined;
  if (!isJsonObject(meta)) {
    if (!addLevel && !addCapabilities) return params;
    const added: JsonObject = {};
    if (addLevel) added[LOG_LEVEL_META_KEY] = logLevel;
    if (addCapabilities) added[CLIENT_CAPABILITIES_META_KEY] = capabilities;
    return { ...params, _meta: added };
  }
  let rest: JsonObject | undefined;
  let kept = 0;
  for (const key in meta) {
    if (CLIENT_ENVELOPE_KEYS.includes(key) || (!modern && key === LOG_LEVEL_META_KEY)) {
      rest ??= copyUntil(meta, key);
      continue;
    }
    kept += 1;
    if (rest !== undefined) rest[key] = meta[key];
  }
  const hasLevel = rest === undefined ? LOG_LEVEL_META_KEY in meta : LOG_LEVEL_META_KEY in rest;
  const withLevel = addLevel && !hasLevel;
  if (rest === undefined && !withLevel && !addCapabilities) return params;
  const shaped: JsonObject = rest ?? { ...meta };
  if (withLevel) shaped[LOG_LEVEL_META_KEY] = logLevel;
  if (addCapabilities) shaped[CLIENT_CAPABILITIES_META_KEY] = capabilities;
  const copy: JsonObject = { ...params };
  if (kept === 0 && !withLevel && !addCapabilities) delete copy['_meta'];
  else copy['_meta'] = shaped;
  return copy;
}

/** The members of `meta` before `stop`, in their order. */
function copyUntil(meta: JsonObject, stop: string): JsonObject {
  const copy: JsonObject = {};
  for (const key in meta) {
    if (key === stop) break;
    copy[key] = meta[key];
  }
  return copy;
}

/** The params without the client's progress token (the downstream side sets its own). */
export function withoutProgressToken(params: JsonObject): JsonObject {
  const meta = params['_meta'];
  if (!isJsonObject(meta) || !('progressToken' in meta)) return params;
  const { progressToken: _token, ...rest } = meta;
  const copy: JsonObject = { ...params };
  if (Object.keys(rest).length === 0) delete copy['_meta'];
  else copy['_meta'] = rest;
  return copy;
}
