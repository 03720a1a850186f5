import { ruleAppliesTo } from '../../core/dynamic/rules.js';
import { hydrateDescription } from '../../core/notes/notes.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { AnnotationOverride, Toolset } from '../../store/types.js';
import type { CatalogEntry } from '../catalog-entry.js';
import { adjustEntry, compactListed, withResolvableMarker } from '../catalog-entry.js';
import type { Catalog } from '../catalog.js';
import { compileScopedRules } from '../dynamic/settings.js';
import type { ScopedRule } from '../dynamic/spec.js';
import type { Orphans, OrphanedOverride, ResolvedToolset, ToolAdjustment } from './resolve.js';
import { adjustmentsFor, orphanedGlobalOverrides, resolveToolset } from './resolve.js';

/** The `_meta` key of a tools/list result saying which toolset the listing shows. */
export const TOOLSET_META_KEY = 'dev.hintgate/toolset';

/** A tool of the gateway itself (a meta tool): its catalog-like entry. */
export interface LocalTool {
  readonly entry: CatalogEntry;
}

/** What a name resolves to in one view. */
export type ViewLookup =
  | { readonly kind: 'tool'; readonly entry: CatalogEntry }
  | { readonly kind: 'local'; readonly entry: CatalogEntry }
  /** A tool of the catalog outside the equipped toolset. */
  | { readonly kind: 'outside'; readonly entry: CatalogEntry; readonly toolset: string }
  | { readonly kind: 'missing' };

/**
 * The identity of a view: it is rebuilt when any of these moves. Loaded toolsets and
 * override lists are replaced, never changed, on reload, so identity is enough (a toolset
 * deleted and created again has a new object even if its revision number repeats).
 */
export interface ViewKey {
  readonly catalogVersion: number;
  readonly toolset: Toolset | undefined;
  readonly globalOverrides: readonly AnnotationOverride[];
  readonly localTools: boolean;
}

/** What a view is built from. */
export interface ViewInput {
  /** The equipped toolset as stored (undefined: the whole catalog) and the global overrides. */
  readonly key: ViewKey;
  readonly catalog: Catalog;
  /** The gateway's own tools shown in this view (empty when configuration mode hides them). */
  readonly localTools: readonly LocalTool[];
}

/** Serialized pieces of a tools/list result, for the fast path. */
export interface ListJson {
  /** The `tools` array as JSON. */
  readonly tools: string;
  /** The result's `_meta` members as JSON without the braces, or undefined. */
  readonly meta: string | undefined;
}

/**
 * The catalog as one group of sessions sees it: the tools of their toolset (or all),
 * overrides applied as the `override` layer, notes appended to descriptions, the meta
 * tools configuration mode allows. Built once per (catalog version, toolset revision,
 * global overrides revision, meta tools shown) and shared by every session with that key,
 * with its tools/list answer kept serialized. Immutable once built.
 */
export class ToolView {
  readonly key: ViewKey;
  readonly resolved: ResolvedToolset | undefined;
  /** Orphans of the toolset plus the global overrides that resolve to nothing. */
  readonly orphans: Orphans;
  /** The tools of this view with overrides applied (not the meta tools). */
  readonly entries: readonly CatalogEntry[];
  /** The tools/list items, meta tools first. */
  readonly listed: readonly JsonObject[];
  /** The tools/list result's `_meta`, or undefined. */
  readonly meta: JsonObject | undefined;
  private readonly catalog: Catalog;
  private readonly adjusted: ReadonlyMap<CatalogEntry, CatalogEntry>;
  private readonly local: ReadonlyMap<string, CatalogEntry>;
  /** The listing variants built so far (see {@link listedFor}), and their JSON. */
  private readonly variants = new Map<number, readonly JsonObject[]>();
  private readonly variantJson = new Map<number, ListJson>();
  private restricted: Map<string, RestrictedListing> | undefined;

  constructor(input: ViewInput) {
    const { catalog } = input;
    this.key = input.key;
    this.catalog = catalog;
    const { toolset, globalOverrides } = input.key;
    this.resolved = toolset === undefined ? undefined : resolveToolset(catalog, toolset);
    const adjustments = adjustmentsFor(catalog, globalOverrides, this.resolved);
    const rules = toolset === undefined ? NO_RULES : toolsetRules(toolset);
    const adjusted = new Map<CatalogEntry, CatalogEntry>();
    for (const [entry, adjustment] of adjustments)
      adjusted.set(entry, adjustedEntry(entry, adjustment, rules));
    // A toolset's dynamic-annotation rules make the members they apply to dynamic here.
    if (rules.rules.length > 0 && this.resolved !== undefined) {
      for (const entry of this.resolved.entries) {
        if (adjusted.has(entry)) continue;
        if (!rules.rules.some(({ rule }) => ruleAppliesTo(rule, entry.namespacedName))) continue;
        adjusted.set(entry, adjustedEntry(entry, NO_ADJUSTMENT, rules));
      }
    }
    this.adjusted = adjusted;
    this.local = new Map(input.localTools.map((tool) => [tool.entry.flattenedName, tool.entry]));
    const base = this.resolved?.entries ?? catalog.entries();
    this.entries = adjusted.size === 0 ? base : base.map((entry) => adjusted.get(entry) ?? entry);
    const localListed = input.localTools.map((tool) => tool.entry.listed);
    const toolListed =
      adjusted.size === 0 && this.resolved === undefined
        ? catalog.listedTools()
        : this.entries.map((entry) => entry.listed);
    this.listed = localListed.length === 0 ? toolListed : [...localListed, ...toolListed];
    const globalOrphans = orphanedGlobalOverrides(catalog, globalOverrides);
    this.orphans = mergeOrphans(this.resolved?.orphans, globalOrphans);
    this.meta = this.resolved === undefined ? undefined : listMeta(this.resolved, this.orphans);
  }

  /** True while this view is the one for these inputs. */
  matches(key: ViewKey): boolean {
    return (
      this.key.catalogVersion === key.catalogVersion &&
      this.key.toolset === key.toolset &&
      this.key.globalOverrides === key.globalOverrides &&
      this.key.localTools === key.localTools
    );
  }

  /** The name of the toolset this view shows, if any. */
  get toolsetName(): string | undefined {
    return this.resolved?.toolset.name;
  }

  /** What a client's tool name means here (flattened or namespaced name); O(1). */
  lookup(name: string): ViewLookup {
    const local = this.local.get(name);
    if (local !== undefined) return { kind: 'local', entry: local };
    const entry = this.catalog.resolve(name);
    if (entry === undefined) return { kind: 'missing' };
    if (this.resolved !== undefined && !this.resolved.members.has(entry)) {
      return { kind: 'outside', entry, toolset: this.resolved.toolset.name };
    }
    return { kind: 'tool', entry: this.adjusted.get(entry) ?? entry };
  }

  /** The entry of a catalog tool as this view shows it (overrides applied), if it is in it. */
  viewOf(entry: CatalogEntry): CatalogEntry | undefined {
    if (this.resolved !== undefined && !this.resolved.members.has(entry)) return undefined;
    return this.adjusted.get(entry) ?? entry;
  }

  /**
   * The tools/list items for a client that negotiated the tool-resolution extension
   * (`resolvable`: dynamic tools carry its `_meta` marker) or not, and that asked for each
   * tool's full provenance (`provenance`) or gets the compact form ({@link compactListed}).
   * Built once per view and variant; the same array when nothing differs.
   */
  listedFor(resolvable: boolean, provenance = true): readonly JsonObject[] {
    const key = variantKey(resolvable, provenance);
    let found = this.variants.get(key);
    if (found === undefined) {
      found = listingVariant(this.listed, resolvable, provenance);
      this.variants.set(key, found);
    }
    return found;
  }

  /**
   * The tools/list answer, serialized once per variant (see {@link listedFor}; as ASCII, see
   * {@link asciiJson}). Each tool's JSON is kept with its listed object, so a view rebuilt
   * after one note changed serializes only the tools that changed and joins the rest.
   */
  listJson(resolvable = false, provenance = true): ListJson {
    const key = variantKey(resolvable, provenance);
    let json = this.variantJson.get(key);
    if (json === undefined) {
      const listed = this.listedFor(resolvable, provenance);
      json = { tools: `[${listed.map(toolJson).join(',')}]`, meta: this.metaJson() };
      this.variantJson.set(key, json);
    }
    return json;
  }

  /**
   * This view's listing with only the tools `allowed` keeps (access rules: what one
   * principal may call), built once per view and `key` (who is asking), serialized once.
   */
  restrictedTo(key: string, allowed: (entry: CatalogEntry) => boolean): RestrictedListing {
    this.restricted ??= new Map();
    let found = this.restricted.get(key);
    if (found === undefined) {
      const kept = new Set(
        this.listed.filter((tool) => {
          const name = tool['name'];
          if (typeof name !== 'string') return false;
          const known = this.lookup(name);
          return (known.kind === 'tool' || known.kind === 'local') && allowed(known.entry);
        }),
      );
      const meta = this.metaJson();
      const variants = new Map<number, readonly JsonObject[]>();
      const jsons = new Map<number, ListJson>();
      const listedFor = (resolvable: boolean, provenance = true): readonly JsonObject[] => {
        const key = variantKey(resolvable, provenance);
        let listed = variants.get(key);
        if (listed === undefined) {
          // Variants map the view's items one to one, so the kept ones sit at the same places.
          const all = this.listedFor(resolvable, provenance);
          listed = all.filter((_tool, index) => kept.has(this.listed[index] as JsonObject));
          variants.set(key, listed);
        }
        return listed;
      };
      found = {
        listedFor,
        listJson: (resolvable, provenance = true) => {
          const key = variantKey(resolvable, provenance);
          let json = jsons.get(key);
          if (json === undefined) {
            json = {
              tools: `[${listedFor(resolvable, provenance).map(toolJson).join(',')}]`,
              meta,
            };
            jsons.set(key, json);
          }
          return json;
        },
      };
      // Bounded: a view lives until the catalog or a toolset changes; principals may be many.
      if (this.restricted.size >= MAX_RESTRICTED) this.restricted.clear();
      this.restricted.set(key, found);
    }
    return found;
  }

  private metaJson(): string | undefined {
    return this.meta === undefined ? undefined : asciiJson(JSON.stringify(this.meta).slice(1, -1));
  }
}

/** A view's listing as one principal sees it (see {@link ToolView.restrictedTo}). */
export interface RestrictedListing {
  listedFor(resolvable: boolean, provenance?: boolean): readonly JsonObject[];
  listJson(resolvable: boolean, provenance?: boolean): ListJson;
}

/** One number per listing variant. */
function variantKey(resolvable: boolean, provenance: boolean): number {
  return (resolvable ? 1 : 0) + (provenance ? 2 : 0);
}

/** The view's items as one variant lists them: one item per item, in the same order. */
function listingVariant(
  listed: readonly JsonObject[],
  resolvable: boolean,
  provenance: boolean,
): readonly JsonObject[] {
  let variant = listed;
  if (resolvable && listed.some((tool) => tool['dynamicAnnotations'] === true)) {
    variant = variant.map(withResolvableMarker);
  }
  if (!provenance) variant = variant.map(compactListed);
  return variant;
}

/** Restricted listings kept per view. */
const MAX_RESTRICTED = 1_000;

/**
 * Adjusted entries by catalog entry and adjustment: a view rebuilt because one note changed
 * keeps the other tools' adjusted entries (and so their serialized JSON). A few variants per
 * tool (different toolsets) are kept; the memo goes with the catalog entry.
 */
const ADJUSTED = new WeakMap<CatalogEntry, Map<string, CatalogEntry>>();
const ADJUSTED_VARIANTS = 8;

function adjustedEntry(
  entry: CatalogEntry,
  adjustment: ToolAdjustment,
  rules: ToolsetRules,
): CatalogEntry {
  const applying = rules.rules.filter(({ rule }) => ruleAppliesTo(rule, entry.namespacedName));
  const key = JSON.stringify([
    adjustment.overrides ?? null,
    adjustment.overrideScopes ?? null,
    adjustment.notes,
    applying.length === 0 ? null : rules.key,
  ]);
  let variants = ADJUSTED.get(entry);
  const known = variants?.get(key);
  if (known !== undefined) return known;
  const made = adjustEntry(entry, {
    overrides: adjustment.overrides,
    overrideScopes: adjustment.overrideScopes,
    description:
      adjustment.notes.length === 0
        ? undefined
        : hydrateDescription(entry.description, adjustment.notes),
    noteNames: adjustment.notes.map((note) => note.name),
    rules: applying,
  });
  if (variants === undefined || variants.size >= ADJUSTED_VARIANTS) {
    variants = new Map();
    ADJUSTED.set(entry, variants);
  }
  variants.set(key, made);
  return made;
}

/** A toolset's dynamic-annotation rules, compiled, and what identifies them. */
interface ToolsetRules {
  readonly rules: readonly ScopedRule[];
  /** The toolset's name and rules as written: equal keys, equal compiled rules. */
  readonly key: string;
}

const NO_RULES: ToolsetRules = { rules: [], key: '' };
const NO_ADJUSTMENT: ToolAdjustment = {
  overrides: undefined,
  overrideScopes: undefined,
  notes: [],
};
/** Compiled once per loaded toolset (loaded toolsets are replaced, never changed). */
const COMPILED_RULES = new WeakMap<Toolset, ToolsetRules>();

/**
 * A toolset's rules, compiled and labelled `toolset <name> rule N`. The store checked them;
 * rules that no longer compile (written by another version) are left out, not fatal.
 */
function toolsetRules(toolset: Toolset): ToolsetRules {
  if (toolset.rules.length === 0) return NO_RULES;
  let found = COMPILED_RULES.get(toolset);
  if (found === undefined) {
    let rules: readonly ScopedRule[] = [];
    try {
      rules = compileScopedRules(
        toolset.rules,
        'toolset',
        `toolset ${toolset.name}`,
        `toolset "${toolset.name}" rules`,
      );
    } catch {
      rules = [];
    }
    found = { rules, key: `${toolset.name}\u0000${JSON.stringify(toolset.rules)}` };
    COMPILED_RULES.set(toolset, found);
  }
  return found;
}

/** Each listed tool's JSON, computed once per listed object (they are never changed). */
const TOOL_JSON = new WeakMap<JsonObject, string>();

function toolJson(tool: JsonObject): string {
  let json = TOOL_JSON.get(tool);
  if (json === undefined) {
    json = asciiJson(JSON.stringify(tool));
    TOOL_JSON.set(tool, json);
  }
  return json;
}

const NON_ASCII = /[\u007f-\uffff]/;
const NON_ASCII_ALL = /[\u007f-\uffff]/g;

/**
 * JSON with every character outside ASCII written as a `\uXXXX` escape: the same JSON value,
 * but a one-byte string. One `•` of a note would otherwise make the whole serialized list
 * (megabytes for thousands of tools) a two-byte string, slower to write and, for every
 * client, slower to decode and parse.
 */
export function asciiJson(json: string): string {
  if (!NON_ASCII.test(json)) return json;
  const escaped = json.replace(
    NON_ASCII_ALL,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  // `replace` keeps the two-byte representation of its subject; a latin1 round trip makes
  // the (now ASCII) result a one-byte string.
  return Buffer.from(escaped, 'latin1').toString('latin1');
}

function mergeOrphans(toolset: Orphans | undefined, globals: readonly OrphanedOverride[]): Orphans {
  if (toolset === undefined) return { members: [], notes: [], overrides: globals };
  if (globals.length === 0) return toolset;
  return { ...toolset, overrides: [...toolset.overrides, ...globals] };
}

function listMeta(resolved: ResolvedToolset, orphans: Orphans): JsonObject {
  const { toolset } = resolved;
  const hasOrphans = orphans.members.length + orphans.notes.length + orphans.overrides.length > 0;
  return {
    [TOOLSET_META_KEY]: {
      name: toolset.name,
      revision: toolset.revision,
      tools: resolved.entries.length,
      ...(hasOrphans ? { orphans: orphans as unknown as JsonObject } : {}),
    },
  };
}
