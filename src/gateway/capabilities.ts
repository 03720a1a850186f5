import { toolResolutionCapabilities } from '../mcp/dynamic-wire.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/** Capability keys hintgate serves itself; the servers' values for them are not copied. */
const SERVED_KEYS = new Set(['tools', 'prompts', 'resources', 'logging', 'completions']);
/** Keys that would promise methods hintgate does not route. */
const NOT_RELAYED_KEYS = new Set(['tasks']);

/**
 * The front's capabilities: what hintgate serves for every client (tools with list changes
 * and dynamic annotations, prompts and resources with list changes and subscriptions,
 * logging, completions, the tool-resolution extension), plus every other key the servers
 * declare (`experimental` and `extensions` entries merged, unknown keys kept as the first
 * server by name declared them).
 */
export function frontCapabilities(servers: readonly JsonObject[]): JsonObject {
  const capabilities: JsonObject = {
    tools: { listChanged: true, dynamicAnnotations: true },
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    logging: {},
    completions: {},
  };
  const merged: Record<'experimental' | 'extensions', JsonObject> = {
    experimental: {},
    // hintgate answers `tools/resolve` for every tool it resolves, whatever the servers do.
    extensions: toolResolutionCapabilities().extensions,
  };
  for (const declared of servers) {
    for (const [key, value] of Object.entries(declared)) {
      if (SERVED_KEYS.has(key) || NOT_RELAYED_KEYS.has(key)) continue;
      if ((key === 'experimental' || key === 'extensions') && isJsonObject(value)) {
        const into = merged[key];
        for (const [name, entry] of Object.entries(value)) if (!(name in into)) into[name] = entry;
      } else if (!(key in capabilities)) {
        capabilities[key] = value;
      }
    }
  }
  if (Object.keys(merged.experimental).length > 0)
    capabilities['experimental'] = merged.experimental;
  capabilities['extensions'] = merged.extensions;
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
