import type { EffectiveAnnotations } from '../core/annotations/effective.js';
import { resolveEffectiveAnnotations } from '../core/annotations/effective.js';
import type { AnnotationConflict, ToolAnnotations, Trust } from '../core/annotations/types.js';
import {
  EXTENSION_FIELDS,
  HINT_FIELDS,
  MCP_ANNOTATION_FIELDS,
  isHintField,
} from '../core/annotations/types.js';
import type { DetectedClassifier } from '../core/dynamic/detect.js';
import { detectArgumentClassifiers } from '../core/dynamic/detect.js';
import { inferAnnotations } from '../core/inference/infer.js';
import type { InferenceResult } from '../core/inference/types.js';
import { namespacedName } from '../core/refs/names.js';
import { refId } from '../core/refs/ref-id.js';
import { nodeSha256 } from './node-hash.js';
import { TOOL_RESOLUTION_EXTENSION, markDynamicTool } from '../mcp/dynamic-wire.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import type {
  DynamicSource,
  DynamicSpec,
  ScopedRule,
  ServerDynamicSettings,
} from './dynamic/spec.js';
import { dynamicSpecOf, worstCaseLayer } from './dynamic/spec.js';

/** The `_meta` key under which hintgate describes a tool to clients. */
export const TOOL_META_KEY = 'dev.hintgate/tool';

/** How the annotations of one server's tools are decided. */
export interface ServerAnnotationSettings {
  readonly trust: Trust;
  readonly defaultAnnotations?: ToolAnnotations | undefined;
  /**
   * How calls of its tools are resolved for their arguments (rules, classifiers, the server
   * itself). Without it the server's tools are static: no rule, classifier or forwarding.
   */
  readonly dynamic?: ServerDynamicSettings | undefined;
  /**
   * Inference of the server's own kind, for a tool it lists (an OpenAPI server's tools from
   * their HTTP method); undefined, or no answer for a tool, means inference from its words.
   */
  readonly infer?: ((tool: JsonObject) => InferenceResult | undefined) | undefined;
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
  /**
   * The annotations that hold for the tool as listed. For a dynamic tool, the worst case over
   * all arguments (fields made less safe than the static ones have source `dynamic`); a call
   * refines them for its own arguments.
   */
  readonly effective: EffectiveAnnotations;
  /** How its server's annotations are decided (to recompute with overrides). */
  readonly settings: ServerAnnotationSettings;
  /** The built-in classifiers that read its arguments, detected once from its input schema. */
  readonly detected: readonly DetectedClassifier[];
  /** How its calls are resolved for their arguments; undefined for a static tool. */
  readonly dynamic: DynamicSpec | undefined;
}

/** A tool in the catalog: its record, the name clients see, and what tools/list shows. */
export interface CatalogEntry extends ToolRecord {
  readonly flattenedName: string;
  /** The tool as the front's tools/list returns it. */
  readonly listed: JsonObject;
}

/**
 * hintgate's full description of a tool (the CLI's `tools --json`, the API): everything in
 * {@link ListedToolMeta} plus the reason behind every inferred value.
 */
export interface ToolMeta {
  readonly server: string;
  readonly name: string;
  readonly namespacedName: string;
  readonly refId: string;
  readonly extensions: JsonObject;
  readonly sources: Readonly<Record<string, string>>;
  readonly reasons: Readonly<Record<string, string>>;
  readonly conflicts: readonly AnnotationConflict[];
  /** Why the tool is dynamic, when it is: each source, and the same in sentences. */
  readonly dynamic?: {
    readonly sources: readonly DynamicSource[];
    readonly why: readonly string[];
  };
}

/**
 * What tools/list carries under `_meta["dev.hintgate/tool"]`: kept small, since it travels
 * with every tool of every listing. `extensions` and `conflicts` appear only when non-empty;
 * `overrides` names the scope (`global` or `toolset`) of each overridden field and `notes`
 * the names of the notes appended to the description. The reasons behind inferred values
 * stay in the catalog (`hintgate tools --explain`, `--json`).
 */
export interface ListedToolMeta {
  readonly server: string;
  readonly name: string;
  readonly namespacedName: string;
  readonly refId: string;
  readonly sources: Readonly<Record<string, string>>;
  readonly extensions?: JsonObject;
  readonly conflicts?: readonly AnnotationConflict[];
  readonly overrides?: Readonly<Record<string, OverrideScopeName>>;
  readonly notes?: readonly string[];
  /**
   * For a tool listed with `dynamicAnnotations: true`: why, one entry per source (the server
   * itself with its method, a rule by label and scope, a classifier with the argument it reads).
   */
  readonly dynamic?: readonly DynamicSource[];
}

/** Where an override came from: the global overrides or the equipped toolset's. */
export type OverrideScopeName = 'global' | 'toolset';

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
  const inference = settings.infer?.(tool) ?? inferAnnotations({ name, description, inputSchema });
  const namespaced = namespacedName(server, name);
  const detected =
    settings.dynamic?.classifiers === true
      ? detectArgumentClassifiers(inputSchema, { name, description })
      : [];
  const { effective, dynamic } = annotationsOf(
    { namespacedName: namespaced, tool, inference, declared, settings, detected },
    undefined,
    undefined,
  );
  return {
    server,
    name,
    namespacedName: namespaced,
    refId: refId(server, name, inputSchema, nodeSha256),
    description,
    inputSchema,
    outputSchema: tool['outputSchema'],
    tool,
    declared,
    inference,
    effective,
    settings,
    detected,
    dynamic,
  };
}

/**
 * A tool's effective annotations (with the user's overrides, when given) and how its calls
 * are resolved (with a toolset's rules, when given). A dynamic tool's effective annotations
 * are its worst case: the static ones, made less safe where a rule, a classifier or the
 * server's own answers could be.
 */
function annotationsOf(
  record: Pick<
    ToolRecord,
    'namespacedName' | 'tool' | 'inference' | 'declared' | 'settings' | 'detected'
  >,
  overrides: ToolAnnotations | undefined,
  extraRules: readonly ScopedRule[] | undefined,
): { effective: EffectiveAnnotations; dynamic: DynamicSpec | undefined } {
  const { settings } = record;
  const input = {
    inference: record.inference,
    serverDefaults: settings.defaultAnnotations,
    declared: record.declared === undefined ? undefined : usableDeclared(record.declared),
    overrides,
    trust: settings.trust,
  };
  const effective = resolveEffectiveAnnotations(input);
  const dynamic =
    settings.dynamic === undefined
      ? undefined
      : dynamicSpecOf({
          namespacedName: record.namespacedName,
          tool: record.tool,
          trust: settings.trust,
          settings: settings.dynamic,
          detected: record.detected,
          extraRules,
          bound: effective.annotations,
        });
  if (dynamic === undefined) return { effective, dynamic };
  const layer = worstCaseLayer(dynamic);
  if (Object.keys(layer.annotations).length === 0) return { effective, dynamic };
  return {
    effective: resolveEffectiveAnnotations({
      ...input,
      dynamic: layer.annotations,
      dynamicReasons: layer.reasons,
    }),
    dynamic,
  };
}

/** A record with its flattened name and tools/list form. */
export function toCatalogEntry(record: ToolRecord, flattenedName: string): CatalogEntry {
  return { ...record, flattenedName, listed: listedTool(record, flattenedName) };
}

/** What a view changes about one tool: override fields (with their scope) and notes. */
export interface EntryAdjustments {
  /** Merged override fields; the toolset's win over the global ones field by field. */
  readonly overrides?: ToolAnnotations | undefined;
  readonly overrideScopes?: Readonly<Record<string, OverrideScopeName>> | undefined;
  /** The description the model sees, notes appended (undefined: unchanged). */
  readonly description?: string | undefined;
  readonly noteNames?: readonly string[] | undefined;
  /** The toolset's dynamic-annotation rules that apply to the tool, before the config's. */
  readonly rules?: readonly ScopedRule[] | undefined;
}

/**
 * A new entry for one view of the catalog: the effective annotations recomputed with the
 * `override` layer, and the listed form with the hydrated description and `_meta` saying
 * which fields were overridden and which notes were added. The entry given is not changed.
 */
export function adjustEntry(entry: CatalogEntry, adjustments: EntryAdjustments): CatalogEntry {
  const { overrides, description, noteNames, overrideScopes, rules } = adjustments;
  const hasOverrides = overrides !== undefined && Object.keys(overrides).length > 0;
  const hasRules = rules !== undefined && rules.length > 0;
  const { effective, dynamic } =
    hasOverrides || hasRules
      ? annotationsOf(entry, hasOverrides ? overrides : undefined, rules)
      : entry;
  const record: ToolRecord = { ...entry, effective, dynamic };
  const listed = listedTool(record, entry.flattenedName, {
    ...(hasOverrides && overrideScopes !== undefined ? { overrides: overrideScopes } : {}),
    ...(noteNames !== undefined && noteNames.length > 0 ? { notes: noteNames } : {}),
  });
  if (description !== undefined) listed['description'] = description;
  return { ...record, flattenedName: entry.flattenedName, listed };
}

/**
 * The tool as clients see it: every field the server sent, the flattened name, `annotations`
 * holding the effective MCP fields (title and the four hints) beside any other key the
 * server declared, and `_meta` keeping the server's own keys plus hintgate's small
 * description ({@link ListedToolMeta}).
 */
function listedTool(
  record: ToolRecord,
  flattenedName: string,
  extra: Pick<ListedToolMeta, 'overrides' | 'notes'> = {},
): JsonObject {
  const effective = record.effective.annotations;
  // One key order for every tool (title, the hints, then other declared keys): clients parse
  // thousands of these, and objects of one shape parse faster.
  const annotations: JsonObject = {};
  if (typeof effective.title === 'string') annotations['title'] = effective.title;
  for (const field of HINT_FIELDS) annotations[field] = effective[field];
  for (const [key, value] of Object.entries(record.declared ?? {})) {
    if (!(key in annotations)) annotations[key] = value;
  }
  // The server's own resolution markers are not passed on: hintgate answers these requests
  // itself, and marks the tools it resolves (the extension's marker only for clients that
  // negotiated it, see `withResolvableMarker`).
  const { [TOOL_RESOLUTION_EXTENSION]: _marker, ...meta } = isJsonObject(record.tool['_meta'])
    ? record.tool['_meta']
    : {};
  const { dynamicAnnotations: _flag, ...tool } = record.tool;
  const dynamic = record.dynamic === undefined ? {} : { dynamic: record.dynamic.sources };
  return {
    ...tool,
    name: flattenedName,
    ...(record.dynamic === undefined ? {} : { dynamicAnnotations: true }),
    annotations,
    _meta: { ...meta, [TOOL_META_KEY]: { ...listedToolMeta(record), ...extra, ...dynamic } },
  };
}

/** Sources a client cannot act on: hintgate's own reading of the tool, and MCP's defaults. */
const DERIVED_SOURCES: ReadonlySet<string> = new Set(['inferred', 'spec-default']);

/** Compact listed tools, one per listed object. */
const COMPACT = new WeakMap<JsonObject, JsonObject>();

/**
 * A listed tool as a client that did not ask for provenance sees it: the effective
 * `annotations` and everything the server sent, and under `_meta["dev.hintgate/tool"]` only
 * what a client could act on and not read elsewhere: the extension values someone set (the
 * server, config defaults or an override; not hintgate's own inferences) and any conflict.
 * The key is left out when there are none, which is most tools. The names, refId, sources,
 * notes and override scopes are served to clients declaring `PROVENANCE_CAPABILITY` and by
 * `hintgate tools`. Made once per listed object.
 */
export function compactListed(listed: JsonObject): JsonObject {
  let compact = COMPACT.get(listed);
  if (compact !== undefined) return compact;
  const meta = isJsonObject(listed['_meta']) ? listed['_meta'] : undefined;
  const full = meta?.[TOOL_META_KEY];
  if (meta === undefined || !isJsonObject(full)) {
    compact = listed;
  } else {
    const { [TOOL_META_KEY]: _full, ...others } = meta;
    const kept: JsonObject = {};
    const sources = isJsonObject(full['sources']) ? full['sources'] : {};
    if (isJsonObject(full['extensions'])) {
      const extensions: JsonObject = {};
      for (const [field, value] of Object.entries(full['extensions'])) {
        const source = sources[field];
        if (typeof source !== 'string' || !DERIVED_SOURCES.has(source)) extensions[field] = value;
      }
      if (Object.keys(extensions).length > 0) kept['extensions'] = extensions;
    }
    if (full['conflicts'] !== undefined) kept['conflicts'] = full['conflicts'];
    const { _meta: _old, ...tool } = listed;
    const rest: JsonObject =
      Object.keys(kept).length === 0 ? others : { ...others, [TOOL_META_KEY]: kept };
    compact = Object.keys(rest).length === 0 ? tool : { ...tool, _meta: rest };
  }
  COMPACT.set(listed, compact);
  return compact;
}

/** Listed tools with the extension's marker added, one per listed object. */
const RESOLVABLE = new WeakMap<JsonObject, JsonObject>();

/**
 * A listed tool as a client that negotiated the tool-resolution extension sees it: a dynamic
 * tool gets `_meta["io.modelcontextprotocol/tool-resolution"] = { resolvable: true }`; any
 * other tool is returned as it is. Made once per listed object.
 */
export function withResolvableMarker(listed: JsonObject): JsonObject {
  if (listed['dynamicAnnotations'] !== true) return listed;
  let marked = RESOLVABLE.get(listed);
  if (marked === undefined) {
    marked = markDynamicTool(listed, { annotations: true, resolvable: true });
    RESOLVABLE.set(listed, marked);
  }
  return marked;
}

/** The order of `sources` keys in listings: the MCP fields, then the extensions. */
const SOURCE_ORDER: readonly string[] = [...MCP_ANNOTATION_FIELDS, ...EXTENSION_FIELDS];

/** The small description of a tool that tools/list carries. */
export function listedToolMeta(record: ToolRecord): ListedToolMeta {
  const { provenance } = record.effective;
  const sources: Record<string, string> = {};
  for (const field of SOURCE_ORDER) {
    const source = provenance[field]?.source;
    if (source !== undefined) sources[field] = source;
  }
  for (const [field, value] of Object.entries(provenance)) {
    if (value !== undefined) sources[field] ??= value.source;
  }
  const extensions = extensionValues(record);
  const { conflicts } = record.effective;
  return {
    server: record.server,
    name: record.name,
    namespacedName: record.namespacedName,
    refId: record.refId,
    sources,
    ...(Object.keys(extensions).length === 0 ? {} : { extensions }),
    ...(conflicts.length === 0 ? {} : { conflicts }),
  };
}

function extensionValues(record: ToolRecord): JsonObject {
  const extensions: JsonObject = {};
  const effective = record.effective.annotations;
  for (const field of EXTENSION_FIELDS) {
    if (effective[field] !== undefined) extensions[field] = effective[field];
  }
  return extensions;
}

/** hintgate's description of a tool for clients. */
export function toolMeta(record: ToolRecord): ToolMeta {
  const extensions = extensionValues(record);
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
    ...(record.dynamic === undefined
      ? {}
      : { dynamic: { sources: record.dynamic.sources, why: record.dynamic.why } }),
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
