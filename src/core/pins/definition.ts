/**
 * A tool's definition as pinned: the fields a server controls and a model or a policy
 * reads (name, title, description, input and output schema, annotations, `_meta`), in one
 * canonical form so that reordering tools or object keys never reads as a change.
 */
import { canonicalJson, setMember } from '../util/canonical-json.js';
import { sha256Hex } from '../util/hash.js';

/** The pinned fields of one tool; absent fields are left out. */
export interface ToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** The fields of {@link ToolDefinition}, in the order diffs report them. */
export const DEFINITION_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  '_meta',
] as const;

/** One of {@link DEFINITION_FIELDS}. */
export type DefinitionField = (typeof DEFINITION_FIELDS)[number];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The pinned fields of a listed tool (anything else it carries is not part of its
 * definition). Undefined for an item without a usable name.
 */
export function toolDefinition(
  tool: Readonly<Record<string, unknown>>,
): ToolDefinition | undefined {
  const name = tool['name'];
  if (typeof name !== 'string' || name === '') return undefined;
  const definition: Record<string, unknown> = { name };
  if (typeof tool['title'] === 'string') definition['title'] = tool['title'];
  if (typeof tool['description'] === 'string') definition['description'] = tool['description'];
  if (tool['inputSchema'] !== undefined) definition['inputSchema'] = tool['inputSchema'];
  if (tool['outputSchema'] !== undefined) definition['outputSchema'] = tool['outputSchema'];
  if (isObject(tool['annotations'])) definition['annotations'] = tool['annotations'];
  if (isObject(tool['_meta'])) definition['_meta'] = tool['_meta'];
  return definition as unknown as ToolDefinition;
}

/**
 * A definition as canonical JSON: keys sorted at every depth, and the set-like arrays of
 * JSON Schema (`required`, a `type` list) sorted, so that equal definitions always give
 * equal text whatever order the server wrote them in.
 */
export function canonicalDefinition(definition: ToolDefinition): string {
  return canonicalJson(normalized(definition, undefined));
}

function normalized(value: unknown, key: string | undefined): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => normalized(item, undefined));
    const setLike =
      (key === 'required' || key === 'type') && items.every((item) => typeof item === 'string');
    return setLike ? [...items].sort() : items;
  }
  if (!isObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    setMember(copy, name, normalized(member, name));
  }
  return copy;
}

/** Hashes a canonical definition (lowercase hex). */
export type DefinitionHasher = (canonical: string) => string;

/**
 * The hash of a definition: SHA-256 of its canonical JSON. The hasher is pure JavaScript by
 * default; the gateway passes Node's, which is faster.
 */
export function definitionHash(
  definition: ToolDefinition,
  hasher: DefinitionHasher = sha256Hex,
): string {
  return hasher(canonicalDefinition(definition));
}
