import { HINT_FIELDS } from '../../core/annotations/types.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { ToolRef } from '../../store/types.js';
import type { CatalogEntry } from '../catalog-entry.js';
import type { Orphans } from '../toolsets/resolve.js';

/** Descriptions longer than this are cut in listings (the model gets the full one in tools/list). */
const SUMMARY_DESCRIPTION_LENGTH = 300;

/** A tool as meta tools describe it: its references, a short description and its hints. */
export function toolSummary(entry: CatalogEntry, full = false): JsonObject {
  const description = entry.description ?? '';
  const hints: JsonObject = {};
  for (const field of HINT_FIELDS) hints[field] = entry.effective.annotations[field];
  return {
    namespacedName: entry.namespacedName,
    refId: entry.refId,
    server: entry.server,
    name: entry.flattenedName,
    description:
      full || description.length <= SUMMARY_DESCRIPTION_LENGTH
        ? description
        : `${description.slice(0, SUMMARY_DESCRIPTION_LENGTH)}…`,
    annotations: hints,
  };
}

/** A tool reference as plain JSON. */
export function refJson(ref: ToolRef): JsonObject {
  return {
    ...(ref.namespacedName === undefined ? {} : { namespacedName: ref.namespacedName }),
    ...(ref.refId === undefined ? {} : { refId: ref.refId }),
  };
}

/** Orphans as plain JSON. */
export function orphansJson(orphans: Orphans): JsonObject {
  return {
    members: orphans.members.map((orphan) => ({
      member: orphan.member,
      reason: orphan.reason,
    })),
    notes: orphans.notes.map((orphan) => ({
      tool: refJson(orphan.tool),
      name: orphan.name,
      reason: orphan.reason,
    })),
    overrides: orphans.overrides.map((orphan) => ({
      tool: refJson(orphan.tool),
      fields: [...orphan.fields],
      scope: orphan.scope,
      reason: orphan.reason,
    })),
  };
}

/** How many orphans there are in all. */
export function orphanCount(orphans: Orphans): number {
  return orphans.members.length + orphans.notes.length + orphans.overrides.length;
}
