import type { Client } from '@modelcontextprotocol/client';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import type { ListMethod } from './lists.js';
import { listAll, listTools } from './lists.js';

/** What a server offers, as it listed it, items kept exactly as received. */
export interface DownstreamSnapshot {
  readonly tools: readonly JsonObject[];
  readonly prompts: readonly JsonObject[];
  readonly resources: readonly JsonObject[];
  readonly resourceTemplates: readonly JsonObject[];
  readonly capabilities: JsonObject;
  readonly serverInfo: JsonObject | undefined;
  readonly instructions: string | undefined;
}

/** A list that changed on a server. */
export type ListKind = 'tools' | 'prompts' | 'resources';

export const EMPTY_SNAPSHOT: DownstreamSnapshot = {
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
  capabilities: {},
  serverInfo: undefined,
  instructions: undefined,
};

/**
 * Everything a server lists, the lists it declares read at once; `capabilities` as it sent
 * them (the SDK client's view drops keys it does not know).
 */
export async function readSnapshot(
  client: Client,
  server: string,
  capabilities: JsonObject,
  timeoutMs: number,
  overHttp = false,
): Promise<DownstreamSnapshot> {
  const has = (key: string) => isJsonObject(capabilities[key]);
  const list = (method: ListMethod, enabled: boolean) =>
    enabled ? listAll(client, server, method, timeoutMs) : Promise.resolve([]);
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    has('tools') ? listTools(client, server, timeoutMs, overHttp) : Promise.resolve([]),
    list('prompts/list', has('prompts')),
    list('resources/list', has('resources')),
    list('resources/templates/list', has('resources')).catch(() => []),
  ]);
  return {
    tools,
    prompts,
    resources,
    resourceTemplates,
    capabilities,
    serverInfo: client.getServerVersion() as JsonObject | undefined,
    instructions: client.getInstructions(),
  };
}

/** The snapshot with one kind of list read again (after the server said it changed). */
export async function rereadList(
  client: Client,
  server: string,
  snapshot: DownstreamSnapshot,
  kind: ListKind,
  timeoutMs: number,
  overHttp = false,
): Promise<DownstreamSnapshot> {
  switch (kind) {
    case 'tools':
      return { ...snapshot, tools: await listTools(client, server, timeoutMs, overHttp) };
    case 'prompts':
      return { ...snapshot, prompts: await listAll(client, server, 'prompts/list', timeoutMs) };
    case 'resources': {
      const [resources, resourceTemplates] = await Promise.all([
        listAll(client, server, 'resources/list', timeoutMs),
        listAll(client, server, 'resources/templates/list', timeoutMs).catch(() => []),
      ]);
      return { ...snapshot, resources, resourceTemplates };
    }
  }
}
