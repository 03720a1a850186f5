import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/** Capability keys hintgate serves itself; the servers' values for them are not copied. */
const SERVED_KEYS = new Set(['tools', 'prompts', 'resources', 'logging', 'completions']);
/** Keys that would promise methods hintgate does not route. */
const NOT_RELAYED_KEYS = new Set(['tasks']);

/**
 * The front's capabilities: what hintgate serves for every client (tools, prompts and
 * resources with list changes and subscriptions, logging, completions), plus every other key
 * the servers declare (`experimental` entries merged, unknown keys kept as the first server
 * by name declared them).
 */
export function frontCapabilities(servers: readonly JsonObject[]): JsonObject {
  const capabilities: JsonObject = {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    logging: {},
    completions: {},
  };
  const experimental: JsonObject = {};
  for (const declared of servers) {
    for (const [key, value] of Object.entries(declared)) {
      if (SERVED_KEYS.has(key) || NOT_RELAYED_KEYS.has(key)) continue;
      if (key === 'experimental' && isJsonObject(value)) {
        for (const [name, entry] of Object.entries(value))
          if (!(name in experimental)) experimental[name] = entry;
      } else if (!(key in capabilities)) {
        capabilities[key] = value;
      }
    }
  }
  if (Object.keys(experimental).length > 0) capabilities['experimental'] = experimental;
  return capabilities;
}

/** The servers' instructions, each under its server's name; undefined when none gave any. */
export function frontInstructions(
  servers: readonly { name: string; instructions: string | undefined }[],
): string | undefined {
  const parts = servers
    .filter((server) => server.instructions !== undefined && server.instructions.trim() !== '')
    .map((server) => `## ${server.name}\n\n${(server.instructions ?? '').trim()}`);
  return parts.length === 0 ? undefined : parts.join('\n\n');
}
