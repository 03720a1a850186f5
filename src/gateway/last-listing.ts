/**
 * What a server's last listing was made into, tool by tool, so that a new listing only makes
 * something of the tools that changed. The pin book (canonical hash) and the catalog
 * (inference, merged annotations) each keep one per server.
 */
import { sameJson } from '../core/util/same-json.js';
import type { JsonObject } from '../mcp/json-rpc.js';

/** What one listed tool was made into: at least its name and the tool as listed. */
export interface ListedTool {
  readonly name: string;
  readonly tool: JsonObject;
}

/** The items made of a server's last listing, in its order, names distinct. */
export class LastListing<T extends ListedTool> {
  private byName: Map<string, T> | undefined;

  constructor(readonly items: readonly T[]) {}

  /** The item of this name (the index is made at the first look-up). */
  get(name: string): T | undefined {
    this.byName ??= new Map(this.items.map((item) => [item.name, item]));
    return this.byName.get(name);
  }
}

/**
 * The items of a new listing: for a tool equal to the same name's tool of `previous` (the
 * one in the same place, else found by name; equal as JSON, keys in any order, every field
 * counted), the earlier item, whose `tool` is the earlier object; for any other tool, what
 * `make` makes of it (undefined: the tool is skipped). A name listed twice: the first is the
 * tool. A consumer handed the items' tools can tell unchanged ones by identity.
 */
export function relist<T extends ListedTool>(
  tools: readonly JsonObject[],
  previous: LastListing<T> | undefined,
  make: (tool: JsonObject) => T | undefined,
): LastListing<T> {
  const items: T[] = [];
  // The names taken so far. While the listing follows the last one tool by tool, its names
  // are those of the last listing, distinct: the set is made at the first tool that does not.
  let taken: Set<string> | undefined;
  for (const tool of tools) {
    const name = tool['name'];
    let before = previous?.items[items.length];
    if (before === undefined || before.name !== name) {
      taken ??= new Set(items.map((item) => item.name));
      before = typeof name === 'string' ? previous?.get(name) : undefined;
    }
    const item =
      before !== undefined && (before.tool === tool || sameJson(before.tool, tool))
        ? before
        : make(tool);
    if (item === undefined) continue;
    if (taken !== undefined) {
      if (taken.has(item.name)) continue;
      taken.add(item.name);
    }
    items.push(item);
  }
  return new LastListing(items);
}
