import type { NameCollision, NamePrefix } from '../core/refs/names.js';
import { flattenNames } from '../core/refs/names.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import type { CatalogEntry, ServerAnnotationSettings, ToolRecord } from './catalog-entry.js';
import { toCatalogEntry, toToolRecord } from './catalog-entry.js';
import type { LastListing } from './last-listing.js';
import { relist } from './last-listing.js';

/** What changed in the catalog after one update. */
export interface CatalogChange {
  /** The tools clients see changed (names, definitions or annotations). */
  readonly changed: boolean;
}

/** Options of {@link Catalog}. */
export interface CatalogOptions {
  /** Each server's prefix for the names clients see (default: the server's name). */
  readonly prefixOf?: (server: string) => NamePrefix;
}

/**
 * Every tool of every server that is up, with O(1) lookups by flattened name, namespaced
 * name and refId. Updated one server at a time: only that server's tools are read again
 * (inference, merge, conflicts); flattened names are recomputed over the whole set (a new
 * tool can collide with another server's) and entries whose name did not change are kept
 * as they were. Entries are never mutated; an update replaces them.
 */
export class Catalog {
  private readonly prefixOf: (server: string) => NamePrefix;
  private collisionList: readonly NameCollision[] = [];
  /** Each server's records, in its listing's order. */
  private readonly records = new Map<string, LastListing<ToolRecord>>();
  /** What each server's records were made with: other settings read its tools anew. */
  private readonly settingsKeys = new Map<string, string>();
  /** Records made ahead of a server's next update ({@link prepare}), with their settings. */
  private readonly prepared = new Map<string, { key: string; records: LastListing<ToolRecord> }>();
  private readonly entriesByServer = new Map<string, readonly CatalogEntry[]>();
  private readonly byFlattened = new Map<string, CatalogEntry>();
  private readonly byNamespaced = new Map<string, CatalogEntry>();
  private readonly byRef = new Map<string, CatalogEntry>();
  /** Flattened and namespaced names of tools whose server went down, to explain failed calls. */
  private readonly departed = new Map<string, string>();
  /** Tools held back by pinning, per server: tool name → why (a call is refused with it). */
  private readonly held = new Map<string, ReadonlyMap<string, string>>();
  private ordered: readonly CatalogEntry[] = [];
  private listed: readonly JsonObject[] | undefined;
  private versionValue = 0;

  constructor({ prefixOf = (server) => server }: CatalogOptions = {}) {
    this.prefixOf = prefixOf;
  }

  /** The prefix of a server's names for clients (`false`: the tools keep their own names). */
  prefixFor(server: string): NamePrefix {
    return this.prefixOf(server);
  }

  /**
   * Tools of different servers that wanted the same name: the one whose namespaced name
   * sorts first keeps it, the other is served under a suffixed name.
   */
  collisions(): readonly NameCollision[] {
    return this.collisionList;
  }

  /** Increases with every change clients can see. */
  get version(): number {
    return this.versionValue;
  }

  /** Number of tools. */
  get size(): number {
    return this.byFlattened.size;
  }

  /** Replaces one server's tools with what it listed. */
  setServer(
    server: string,
    tools: readonly JsonObject[],
    settings: ServerAnnotationSettings,
  ): CatalogChange {
    const key = settingsKey(settings);
    const known = this.known(server, key);
    this.prepared.delete(server);
    this.settingsKeys.set(server, key);
    // A tool listed again unchanged keeps its record: no inference, no change for clients.
    // Tools the pin book served as the earlier objects are known by identity.
    this.records.set(
      server,
      relist(tools, known, (tool) => toToolRecord(server, tool, settings)),
    );
    for (const [name, owner] of this.departed) if (owner === server) this.departed.delete(name);
    return this.rebuild(server);
  }

  /**
   * Reads a server's listing ahead of its {@link setServer} (inference, refIds) and changes
   * nothing clients see: the tools that update then brings, as the same objects, are not
   * read again. The gateway calls it as a listing arrives, while the listing's pin check may
   * still wait for the store (at start, about a second with ten servers starting).
   */
  prepare(server: string, tools: readonly JsonObject[], settings: ServerAnnotationSettings): void {
    const key = settingsKey(settings);
    const records = relist(tools, this.known(server, key), (tool) =>
      toToolRecord(server, tool, settings),
    );
    this.prepared.set(server, { key, records });
  }

  /**
   * The records a server's tools listed again unchanged keep: those made ahead, else its
   * current ones; none when they were made with other settings (a server that came back
   * declaring other capabilities, resolving its tools itself, has its tools read again).
   */
  private known(server: string, key: string): LastListing<ToolRecord> | undefined {
    const ahead = this.prepared.get(server);
    if (ahead?.key === key) return ahead.records;
    return this.settingsKeys.get(server) === key ? this.records.get(server) : undefined;
  }

  /**
   * Removes a server's tools. With `remember`, their names are kept so that a call to one
   * of them is answered "server down" rather than "unknown tool".
   */
  removeServer(server: string, { remember = false }: { remember?: boolean } = {}): CatalogChange {
    const entries = this.entriesByServer.get(server) ?? [];
    if (remember) {
      for (const entry of entries) {
        this.departed.set(entry.flattenedName, server);
        this.departed.set(entry.namespacedName, server);
      }
    }
    this.prepared.delete(server);
    if (!this.records.has(server)) return { changed: false };
    this.records.delete(server);
    this.settingsKeys.delete(server);
    return this.rebuild(server);
  }

  /** Records the tools of a server held back by pinning (replacing what was held before). */
  setHeld(server: string, held: ReadonlyMap<string, string>): void {
    if (held.size === 0) this.held.delete(server);
    else this.held.set(server, held);
  }

  /**
   * Why the tool a client called `name` is held back, if it is: `name` read as a namespaced
   * (`server.tool`) or flattened (`prefix_tool`, or the tool's own name for a server without
   * a prefix) name of a held tool.
   */
  heldReason(name: string): string | undefined {
    for (const [server, held] of this.held) {
      const prefix = this.prefixOf(server);
      const starts = [`${server}.`, ...(prefix === false ? [''] : [`${prefix}_`])];
      for (const start of starts) {
        if (name.startsWith(start)) {
          const reason = held.get(name.slice(start.length));
          if (reason !== undefined) return reason;
        }
      }
    }
    return undefined;
  }

  /** The tool clients call `name` (flattened name, or namespaced `server.name`). */
  resolve(name: string): CatalogEntry | undefined {
    return this.byFlattened.get(name) ?? this.byNamespaced.get(name);
  }

  /** The tool with this flattened name. */
  getByFlattenedName(name: string): CatalogEntry | undefined {
    return this.byFlattened.get(name);
  }

  /** The tool with this namespaced name (`server.name`). */
  getByNamespacedName(name: string): CatalogEntry | undefined {
    return this.byNamespaced.get(name);
  }

  /** The tool with this refId. */
  getByRefId(id: string): CatalogEntry | undefined {
    return this.byRef.get(id);
  }

  /** The server a tool of this name belonged to before that server went down. */
  departedServerOf(name: string): string | undefined {
    return this.departed.get(name);
  }

  /** Every tool, by server name then in each server's own order. */
  entries(): readonly CatalogEntry[] {
    return this.ordered;
  }

  /** One server's tools. */
  entriesOf(server: string): readonly CatalogEntry[] {
    return this.entriesByServer.get(server) ?? [];
  }

  /** The tools as the front's tools/list returns them (built once per change). */
  listedTools(): readonly JsonObject[] {
    this.listed ??= this.ordered.map((entry) => entry.listed);
    return this.listed;
  }

  private rebuild(updatedServer: string): CatalogChange {
    const servers = [...this.records.keys()].sort();
    const { names, collisions } = flattenNames(
      servers.flatMap((server) => this.records.get(server)?.items ?? []),
      this.prefixOf,
    );
    this.collisionList = collisions;
    const removed: CatalogEntry[] = [];
    const added: CatalogEntry[] = [];
    const ordered: CatalogEntry[] = [];
    for (const server of servers) {
      const records = this.records.get(server)?.items ?? [];
      const previous = this.entriesByServer.get(server) ?? [];
      const byRecord = new Map(
        previous.map((entry) => [entry.refId + entry.namespacedName, entry]),
      );
      const entries: CatalogEntry[] = [];
      for (const record of records) {
        const flattened = names.get(record.namespacedName) ?? record.namespacedName;
        const old = byRecord.get(record.refId + record.namespacedName);
        // A record read again (its server's capabilities changed) is a new entry too.
        const keep =
          old !== undefined &&
          old.flattenedName === flattened &&
          old.tool === record.tool &&
          old.effective === record.effective;
        const entry = keep ? old : toCatalogEntry(record, flattened);
        if (!keep) added.push(entry);
        entries.push(entry);
      }
      if (
        server === updatedServer ||
        entries.some((entry, index) => entry !== previous[index]) ||
        entries.length !== previous.length
      ) {
        const current = new Set(entries);
        for (const entry of previous) if (!current.has(entry)) removed.push(entry);
      }
      this.entriesByServer.set(server, entries);
      ordered.push(...entries);
    }
    if (!this.records.has(updatedServer)) {
      removed.push(...(this.entriesByServer.get(updatedServer) ?? []));
      this.entriesByServer.delete(updatedServer);
    }
    if (removed.length === 0 && added.length === 0) return { changed: false };
    // Deletions first: a name freed by one entry may be taken by another in the same update.
    for (const entry of removed) {
      if (this.byFlattened.get(entry.flattenedName) === entry)
        this.byFlattened.delete(entry.flattenedName);
      if (this.byNamespaced.get(entry.namespacedName) === entry)
        this.byNamespaced.delete(entry.namespacedName);
      if (this.byRef.get(entry.refId) === entry) this.byRef.delete(entry.refId);
    }
    for (const entry of added) {
      this.byFlattened.set(entry.flattenedName, entry);
      this.byNamespaced.set(entry.namespacedName, entry);
      this.byRef.set(entry.refId, entry);
    }
    this.ordered = ordered;
    this.listed = undefined;
    this.versionValue++;
    return { changed: true };
  }
}

/**
 * What of a server's settings its records depend on and may change while the gateway runs:
 * the capabilities it declared (rules, trust and defaults come from config, fixed at start).
 */
function settingsKey(settings: ServerAnnotationSettings): string {
  const dynamic = settings.dynamic;
  return dynamic === undefined
    ? settings.trust
    : `${settings.trust} ${String(dynamic.serverResolve)} ${String(dynamic.serverAnnotations)}`;
}
