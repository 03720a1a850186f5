import type { ToolAnnotations } from '../../core/annotations/types.js';
import type { ToolNote } from '../../core/notes/notes.js';
import type {
  AnnotationOverride,
  StoredNote,
  ToolRef,
  Toolset,
  ToolsetMember,
} from '../../store/types.js';
import type { CatalogEntry, OverrideScopeName } from '../catalog-entry.js';
import type { Catalog } from '../catalog.js';

/** A member that resolves to no tool now: its tool is gone or renamed, or its server is not up. */
export interface OrphanedMember {
  readonly member: ToolsetMember;
  readonly reason: string;
}

/** A note kept for a tool that cannot be resolved, or that is no longer in the toolset. */
export interface OrphanedNote {
  readonly tool: ToolRef;
  readonly name: string;
  readonly reason: string;
}

/** An override kept for a tool that cannot be resolved (or, in a toolset, is not in it). */
export interface OrphanedOverride {
  readonly tool: ToolRef;
  readonly fields: readonly string[];
  /** `global`, or the toolset's name. */
  readonly scope: string;
  readonly reason: string;
}

/** Everything of a toolset that does not resolve against the catalog now. Nothing is dropped. */
export interface Orphans {
  readonly members: readonly OrphanedMember[];
  readonly notes: readonly OrphanedNote[];
  readonly overrides: readonly OrphanedOverride[];
}

/** How one tool is changed in a view: merged overrides with their scope per field, and notes. */
export interface ToolAdjustment {
  readonly overrides: ToolAnnotations | undefined;
  readonly overrideScopes: Readonly<Record<string, OverrideScopeName>> | undefined;
  readonly notes: readonly ToolNote[];
}

/** A toolset resolved against the live catalog. */
export interface ResolvedToolset {
  readonly toolset: Toolset;
  /** The catalog entries it holds, each once, in member order. */
  readonly entries: readonly CatalogEntry[];
  /** The same entries, for O(1) membership checks. */
  readonly members: ReadonlySet<CatalogEntry>;
  readonly orphans: Orphans;
}

/** The tool a reference names now: by namespaced name first, else by refId; O(1). */
export function resolveRef(catalog: Catalog, ref: ToolRef): CatalogEntry | undefined {
  const byName =
    ref.namespacedName === undefined ? undefined : catalog.getByNamespacedName(ref.namespacedName);
  return byName ?? (ref.refId === undefined ? undefined : catalog.getByRefId(ref.refId));
}

/** A reference as people read it: `github.create_issue`, `ref 0123…`, or both. */
export function describeToolRef(ref: ToolRef): string {
  if (ref.namespacedName !== undefined && ref.refId !== undefined) {
    return `${ref.namespacedName} (ref ${ref.refId})`;
  }
  return ref.namespacedName ?? `ref ${ref.refId ?? '?'}`;
}

/** A member as people read it. */
export function describeMember(member: ToolsetMember): string {
  switch (member.kind) {
    case 'tool':
      return member.namespacedName;
    case 'ref':
      return `ref ${member.refId}`;
    case 'server':
      return `server ${member.server}`;
  }
}

const NOT_RESOLVED =
  'no tool in the catalog matches it now (removed, renamed, or its server is down)';

/**
 * Resolves a toolset's members against the catalog with O(1) lookups per member (a whole
 * server: its tools), in member order and without duplicates. Members, notes and
 * overrides that resolve to nothing now are reported as orphans, never dropped: they come
 * back when the tool does.
 */
export function resolveToolset(catalog: Catalog, toolset: Toolset): ResolvedToolset {
  const entries: CatalogEntry[] = [];
  const members = new Set<CatalogEntry>();
  const orphanMembers: OrphanedMember[] = [];
  const add = (entry: CatalogEntry): void => {
    if (members.has(entry)) return;
    members.add(entry);
    entries.push(entry);
  };
  for (const member of toolset.members) {
    switch (member.kind) {
      case 'tool': {
        const entry = catalog.getByNamespacedName(member.namespacedName);
        if (entry === undefined) orphanMembers.push({ member, reason: NOT_RESOLVED });
        else add(entry);
        break;
      }
      case 'ref': {
        const entry = catalog.getByRefId(member.refId);
        if (entry === undefined) orphanMembers.push({ member, reason: NOT_RESOLVED });
        else add(entry);
        break;
      }
      case 'server': {
        const tools = catalog.entriesOf(member.server);
        if (tools.length === 0) {
          orphanMembers.push({
            member,
            reason: `server "${member.server}" has no tools in the catalog now (not configured, or down)`,
          });
        }
        for (const entry of tools) add(entry);
        break;
      }
    }
  }
  const orphanNotes: OrphanedNote[] = [];
  for (const note of toolset.notes) {
    const reason = orphanReason(catalog, members, note.tool);
    if (reason !== undefined) orphanNotes.push({ tool: note.tool, name: note.name, reason });
  }
  const orphanOverrides: OrphanedOverride[] = [];
  for (const override of toolset.overrides) {
    const reason = orphanReason(catalog, members, override.tool);
    if (reason !== undefined) {
      orphanOverrides.push({
        tool: override.tool,
        fields: Object.keys(override.annotations),
        scope: toolset.name,
        reason,
      });
    }
  }
  return {
    toolset,
    entries,
    members,
    orphans: { members: orphanMembers, notes: orphanNotes, overrides: orphanOverrides },
  };
}

function orphanReason(
  catalog: Catalog,
  members: ReadonlySet<CatalogEntry>,
  ref: ToolRef,
): string | undefined {
  const entry = resolveRef(catalog, ref);
  if (entry === undefined) return NOT_RESOLVED;
  if (!members.has(entry)) return `${entry.namespacedName} is not in the toolset now`;
  return undefined;
}

/** Global overrides that resolve to no tool now. */
export function orphanedGlobalOverrides(
  catalog: Catalog,
  overrides: readonly AnnotationOverride[],
): OrphanedOverride[] {
  return overrides
    .filter((override) => resolveRef(catalog, override.tool) === undefined)
    .map((override) => ({
      tool: override.tool,
      fields: Object.keys(override.annotations),
      scope: 'global',
      reason: NOT_RESOLVED,
    }));
}

interface Pending {
  overrides: Record<string, unknown> | undefined;
  scopes: Record<string, OverrideScopeName> | undefined;
  notes: ToolNote[];
  names: Set<string> | undefined;
}

/**
 * What changes for each tool in a view: global overrides, then the toolset's on top (field
 * by field), then the toolset's notes in the order they were added (a name once per tool,
 * when two references of one tool carry the same name). Only tools with an adjustment are
 * in the map; each override and note is looked up in O(1).
 */
export function adjustmentsFor(
  catalog: Catalog,
  globalOverrides: readonly AnnotationOverride[],
  toolset: ResolvedToolset | undefined,
): Map<CatalogEntry, ToolAdjustment> {
  const pending = new Map<CatalogEntry, Pending>();
  const slot = (entry: CatalogEntry): Pending => {
    let found = pending.get(entry);
    if (found === undefined) {
      found = { overrides: undefined, scopes: undefined, notes: [], names: undefined };
      pending.set(entry, found);
    }
    return found;
  };
  const applyOverride = (override: AnnotationOverride, scope: OverrideScopeName): void => {
    const entry = resolveRef(catalog, override.tool);
    if (entry === undefined) return;
    if (toolset !== undefined && scope === 'toolset' && !toolset.members.has(entry)) return;
    const target = slot(entry);
    target.overrides = { ...target.overrides, ...override.annotations };
    target.scopes ??= {};
    for (const field of Object.keys(override.annotations)) target.scopes[field] = scope;
  };
  for (const override of globalOverrides) applyOverride(override, 'global');
  if (toolset !== undefined) {
    for (const override of toolset.toolset.overrides) applyOverride(override, 'toolset');
    for (const note of toolset.toolset.notes) addNote(catalog, toolset, note, slot);
  }
  const result = new Map<CatalogEntry, ToolAdjustment>();
  for (const [entry, value] of pending) {
    result.set(entry, {
      overrides: value.overrides,
      overrideScopes: value.scopes,
      notes: value.notes,
    });
  }
  return result;
}

function addNote(
  catalog: Catalog,
  toolset: ResolvedToolset,
  note: StoredNote,
  slot: (entry: CatalogEntry) => Pending,
): void {
  const entry = resolveRef(catalog, note.tool);
  if (entry === undefined || !toolset.members.has(entry)) return;
  const target = slot(entry);
  target.names ??= new Set();
  if (target.names.has(note.name)) return;
  target.names.add(note.name);
  target.notes.push({ name: note.name, note: note.note });
}
