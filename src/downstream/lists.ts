import type { Client } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { DownstreamError } from '../mcp/rpc-errors.js';
import { fromClientError } from './errors.js';
import { declaresHeaders } from './requests.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/** The list methods hintgate relays, and the key holding each one's items. */
export const LIST_KEYS = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
} as const;
export type ListMethod = keyof typeof LIST_KEYS;

/** Pages followed before a list is considered broken (a server looping on its cursor). */
export const MAX_LIST_PAGES = 1000;

// Only the top level is checked here: items are kept exactly as they came (the SDK's typed
// listTools() strips unknown fields; this does not).
const LOOSE_PAGE = z.looseObject({});

/**
 * Every item of a paginated list, following `nextCursor`, each item kept as the server sent
 * it (unknown fields, `_meta`, unknown annotation keys included). Items that are not objects
 * are skipped.
 */
export async function listAll(
  client: Client,
  server: string,
  method: ListMethod,
  timeoutMs: number,
): Promise<JsonObject[]> {
  const key = LIST_KEYS[method];
  const items: JsonObject[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    let result: JsonObject;
    try {
      result = await client.request(
        { method, params: cursor === undefined ? {} : { cursor } },
        LOOSE_PAGE,
        { timeout: timeoutMs },
      );
    } catch (error) {
      throw fromClientError(server, error, method);
    }
    const list = result[key];
    if (list !== undefined && !Array.isArray(list)) {
      throw new DownstreamError(
        'DOWNSTREAM_PROTOCOL',
        server,
        `server "${server}" answered ${method} without a "${key}" array`,
      );
    }
    for (const item of list ?? []) if (isJsonObject(item)) items.push(item);
    const next = result['nextCursor'];
    if (typeof next !== 'string' || next === '') return items;
    if (seen.has(next)) {
      throw new DownstreamError(
        'DOWNSTREAM_PROTOCOL',
        server,
        `server "${server}" repeated the cursor "${next}" in ${method}`,
      );
    }
    seen.add(next);
    cursor = next;
  }
  throw new DownstreamError(
    'DOWNSTREAM_PROTOCOL',
    server,
    `server "${server}" returned more than ${MAX_LIST_PAGES} pages for ${method}`,
  );
}

/**
 * A server's tools as {@link listAll} reads them; over Streamable HTTP in the 2026 era,
 * without the tools whose `x-mcp-header` declarations break SEP-2243's rules (a client MUST
 * leave them out: their parameters cannot be mirrored into `Mcp-Param-*` headers). The SDK
 * client knows those rules and applies them in its own `listTools()`, which is asked (and
 * its answer cached for the header mirroring of calls) only when a tool declares a header.
 */
export async function listTools(
  client: Client,
  server: string,
  timeoutMs: number,
  overHttp: boolean,
): Promise<JsonObject[]> {
  const tools = await listAll(client, server, 'tools/list', timeoutMs);
  if (!overHttp || client.getProtocolEra() !== 'modern') return tools;
  if (!tools.some(declaresHeaders)) return tools;
  let kept: { name: string }[];
  try {
    ({ tools: kept } = await client.listTools(undefined, {
      timeout: timeoutMs,
      cacheMode: 'refresh',
    }));
  } catch (error) {
    throw fromClientError(server, error, 'tools/list');
  }
  const names = new Set(kept.map((tool) => tool.name));
  return tools.filter((tool) => names.has(tool['name'] as string));
}
