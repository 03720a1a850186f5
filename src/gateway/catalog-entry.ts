import type { EffectiveAnnotations } from '../core/annotations/effective.js';
import { resolveEffectiveAnnotations } from '../core/annotations/effective.js';
import type { AnnotationConflict, ToolAnnotations, Trust } from '../core/annotations/types.js';
import { EXTENSION_FIELDS, HINT_FIELDS, isHintField } from '../core/annotations/types.js';
import { inferAnnotations } from '../core/inference/infer.js';
import type { InferenceResult } from '../core/inference/types.js';
import { namespacedName } from '../core/refs/names.js';
import { refId } from '../core/refs/ref-id.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/** The `_meta` key under which hintgate describes a tool to clients. */
export const TOOL_META_KEY = 'dev.hintgate/tool';

/** How the annotations of one server's tools are decided. */
export interface ServerAnnotationSettings {
  readonly trust: Trust;
  readonly defaultAnnotations?: ToolAnnotations | undefined;
}

/** A tool of one server before the flattened name (which depends on every server) is known. */
export interface ToolRecord {
  readonly server: string;
  readonly name: string;
  readonly namespacedName: string;
  readonly refId: string;
  readonly description: string | undefined;
  readonly inputSchema: unknown;
  readonly outputSchema: unknown;
  /** The tool exactly as the server listed it. */
  readonly tool: JsonObject;
  /** The annotations the server declared, as it declared them. */
  readonly declared: ToolAnnotations | undefined;
  readonly inference: InferenceResult;
  readonly effective: EffectiveAnnotations;
}

/** A tool in the catalog: its record, the name clients see, and what tools/list shows. */
export interface CatalogEntry extends ToolRecord {
  readonly flattenedName: string;
  /** The tool as the front's tools/list returns it. */
  readonly listed: JsonObject;
}

/** What hintgate adds under `_meta["dev.hintgate/tool"]`. */
export interface ToolMeta {
  readonly server: string;
  readonly name: string;
  readonly namespacedName: string;
  readonly refId: string;
  readonly extensions: JsonObject;
  readonly sources: Readonly<Record<string, string>>;
  readonly reasons: Readonly<Record<string, string>>;
  readonly conflicts: readonly AnnotationConflict[];
}

/**
 * Reads one listed tool into a record: declared annotations passed through, missing values
 * inferred, server defaults from config applied, conflicts detected for untrusted servers.
 * Returns undefined for an item without a usable name.
 */
export function toToolRecord(
  server: string,
  tool: JsonObject,
  settings: ServerAnnotationSettings,
): ToolRecord | undefined {
  const name = tool['name'];
  if (typeof name !== 'string' || name === '') return undefined;
  const description = typeof tool['description'] === 'string' ? tool['description'] : undefined;
  const inputSchema = tool['inputSchema'];
  const declared = isJsonObject(tool['annotations'])
    ? (tool['annotations'] as ToolAnnotations)
    : undefined;
  const inference = inferAnnotations({ name, description, inputSchema });
  const effective = resolveEffectiveAnnotations({
    inference,
    serverDefaults: settings.defaultAnnotations,
    declared: declared === undefined ? undefined : usableDeclared(declared),
    trust: settings.trust,
  });
  return {
    server,
    name,
    namespacedName: namespacedName(server, name),
    refId: refId(server, name, inputSchema),
    description,
    inputSchema,
    outputSchema: tool['outputSchema'],
    tool,
    declared,
    inference,
    effective,
  };
}

/** A record with its flattened name and tools/list form. */
export function toCatalogEntry(record: ToolRecord, flattenedName: string): CatalogEntry {
  return { ...record, flattenedName, listed: listedTool(record, flattenedName) };
}

/**
 * The tool as clients see it: every field the server sent, the flattened name, `annotations`
 * holding the effective MCP fields (title and the four hints) beside any other key the
 * server declared, and `_meta` keeping the server's own keys plus hintgate's description
 * (server, original name, refId, extension values, the source of every value, reasons and
 * conflicts).
 */
function listedTool(record: ToolRecord, flattenedName: string): JsonObject {
  const effective = record.effective.annotations;
  const annotations: JsonObject = { ...record.declared };
  if (typeof effective.title === 'string') annotations['title'] = effective.title;
  for (const field of HINT_FIELDS) annotations[field] = effective[field];
  const meta = isJsonObject(record.tool['_meta']) ? record.tool['_meta'] : {};
  return {
    ...record.tool,
    name: flattenedName,
    annotations,
    _meta: { ...meta, [TOOL_META_KEY]: toolMeta(record) },
  };
}

/** hintgate's description of a tool for clients. */
export function toolMeta(record: ToolRecord): ToolMeta {
  const extensions: JsonObject = {};
  const effective = record.effective.annotations;
  for (const field of EXTENSION_FIELDS) {
    if (effective[field] !== undefined) extensions[field] = effective[field];
  }
  const sources: Record<string, string> = {};
  const reasons: Record<string, string> = {};
  for (const [field, value] of Object.entries(record.effective.provenance)) {
    sources[field] = value.source;
    if (value.reason !== undefined) reasons[field] = value.reason;
  }
  return {
    server: record.server,
    name: record.name,
    namespacedName: record.namespacedName,
    refId: record.refId,
    extensions,
    sources,
    reasons,
    conflicts: record.effective.conflicts,
  };
}

/** Declared values of the wrong type take no part in the effective annotations. */
function usableDeclared(declared: ToolAnnotations): ToolAnnotations {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(declared)) {
    const bad =
      (isHintField(key) && typeof value !== 'boolean') ||
      (key === 'title' && typeof value !== 'string');
    if (bad) {
      copy ??= { ...declared };
      delete copy[key];
    }
  }
  return copy ?? declared;
}
