import type { ToolAnnotations } from '../core/annotations/types.js';
import { TOOL_META_KEY } from '../gateway/catalog-entry.js';
import { META_TOOL_SERVER } from '../gateway/meta-tools/define.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/** `hintgate lint` of a gateway's own endpoint: what hintgate filled in is not the server's. */

/** A tool as a hintgate gateway lists it: whose it is, and what hintgate filled in. */
export interface ThroughHintgate {
  readonly server: string;
  readonly namespacedName: string;
  /** One of hintgate's own meta tools (no downstream server behind it). */
  readonly own: boolean;
  /** Values not declared by the downstream server: field → value and source. */
  readonly filled: Readonly<Record<string, { readonly value: unknown; readonly source: string }>>;
}

/**
 * Reads what a hintgate gateway says about a tool it lists: the tool's own name, the
 * annotations the downstream server declared (source `declared`) and those hintgate filled
 * in. Undefined for a tool not listed by hintgate.
 */
export function throughHintgate(
  tool: JsonObject,
  listed: ToolAnnotations | undefined,
): { name: string; declared: ToolAnnotations | undefined; report: ThroughHintgate } | undefined {
  const meta = isJsonObject(tool['_meta']) ? tool['_meta'][TOOL_META_KEY] : undefined;
  if (!isJsonObject(meta) || !isJsonObject(meta['sources'])) return undefined;
  const { name, server, namespacedName } = meta;
  if (typeof name !== 'string' || typeof server !== 'string' || typeof namespacedName !== 'string')
    return undefined;
  const sources = meta['sources'];
  const extensions = isJsonObject(meta['extensions']) ? meta['extensions'] : {};
  const declared: Record<string, unknown> = {};
  const filled: Record<string, { value: unknown; source: string }> = {};
  // Keys hintgate knows nothing about were the server's, passed through as declared.
  for (const [field, value] of Object.entries(listed ?? {})) {
    if (sources[field] === undefined || sources[field] === 'declared') declared[field] = value;
  }
  // A declared value hintgate overruled (a conflict) is listed as hintgate's: take it back.
  const conflicts = Array.isArray(meta['conflicts']) ? meta['conflicts'] : [];
  for (const conflict of conflicts) {
    if (isJsonObject(conflict) && typeof conflict['field'] === 'string') {
      declared[conflict['field']] = conflict['declared'];
    }
  }
  for (const [field, source] of Object.entries(sources)) {
    if (typeof source !== 'string' || source === 'declared') continue;
    filled[field] = { value: listed?.[field] ?? extensions[field], source };
  }
  return {
    name,
    declared: Object.keys(declared).length === 0 ? undefined : declared,
    // A meta tool is listed under its own name; a server's tools get the server's prefix.
    report: {
      server,
      namespacedName,
      own: server === META_TOOL_SERVER && tool['name'] === name,
      filled,
    },
  };
}

/** `readOnlyHint=true (inferred) idempotentHint=false (spec-default)`, or `(none)`. */
export function filledText(through: ThroughHintgate): string {
  const filled = Object.entries(through.filled);
  if (filled.length === 0) return '(none: the server declared every value)';
  return filled
    .map(([field, { value, source }]) =>
      value === undefined
        ? `${field} unset (${source})`
        : `${field}=${JSON.stringify(value)} (${source})`,
    )
    .join(' ');
}
