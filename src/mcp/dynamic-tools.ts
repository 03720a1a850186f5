/**
 * The client a preflight needs, typed by structure so that an SDK v2 `Client` and a v1 one
 * both fit, and its tool list as the server sends it (a loose `tools/list`: the SDK's
 * `listTools()` drops `dynamicAnnotations`), fetched once per client and kept.
 */
import { z } from 'zod';
import type { JsonObject } from './json-rpc.js';
import { isJsonObject } from './json-rpc.js';

/**
 * What preflight and `callToolSafely` use of a client: a request with a result schema
 * (zod 4, which both SDK generations accept) and the server's capabilities. An SDK v2
 * `Client` and a v1 `Client` both have this shape.
 */
export interface DynamicClient {
  request(
    request: { method: string; params?: JsonObject },
    resultSchema: z.ZodType,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
  getServerCapabilities(): unknown;
}

/** Request options passed through to the client. */
export interface ListOptions {
  readonly signal?: AbortSignal;
  readonly timeout?: number;
}

const LIST_RESULT = z.looseObject({
  tools: z.array(z.looseObject({})),
  nextCursor: z.string().optional(),
});

/** The most pages read from one server. */
const MAX_PAGES = 100;

const cache = new WeakMap<object, Promise<ReadonlyMap<string, JsonObject>>>();

/** The options to hand the client's `request`, without `undefined` members. */
export function requestOptionsOf(options: ListOptions): { signal?: AbortSignal; timeout?: number } {
  const out: { signal?: AbortSignal; timeout?: number } = {};
  if (options.signal !== undefined) out.signal = options.signal;
  if (options.timeout !== undefined) out.timeout = options.timeout;
  return out;
}

/**
 * Every tool the server lists, every page, with every field as sent (`dynamicAnnotations`,
 * `_meta` markers). Not cached.
 */
export async function listToolsAsSent(
  client: DynamicClient,
  options: ListOptions = {},
): Promise<JsonObject[]> {
  const tools: JsonObject[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const params: JsonObject = cursor === undefined ? {} : { cursor };
    const result = LIST_RESULT.parse(
      await client.request(
        { method: 'tools/list', params },
        LIST_RESULT,
        requestOptionsOf(options),
      ),
    );
    tools.push(...(result.tools as JsonObject[]));
    if (result.nextCursor === undefined || result.nextCursor === '') break;
    cursor = result.nextCursor;
  }
  return tools;
}

function byName(tools: readonly JsonObject[]): ReadonlyMap<string, JsonObject> {
  const map = new Map<string, JsonObject>();
  for (const tool of tools) {
    if (isJsonObject(tool) && typeof tool['name'] === 'string') map.set(tool['name'], tool);
  }
  return map;
}

function load(client: DynamicClient, options: ListOptions) {
  const pending = listToolsAsSent(client, options).then(byName);
  cache.set(client, pending);
  // A failed listing is not kept: the next preflight lists again.
  pending.catch(() => {
    if (cache.get(client) === pending) cache.delete(client);
  });
  return pending;
}

/**
 * One listed tool by name, from the client's cached list; a name not in it lists again once
 * (the tool may be new). `undefined` when the server does not list it.
 */
export async function listedTool(
  client: DynamicClient,
  name: string,
  options: ListOptions = {},
): Promise<JsonObject | undefined> {
  const cached = cache.get(client);
  const tools = await (cached ?? load(client, options));
  const found = tools.get(name);
  if (found !== undefined || cached === undefined) return found;
  return (await load(client, options)).get(name);
}

/** Forgets a client's cached tool list, as on `notifications/tools/list_changed`. */
export function forgetListedTools(client: DynamicClient): void {
  cache.delete(client);
}
