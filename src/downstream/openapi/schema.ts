/**
 * OpenAPI schema objects as the JSON Schema MCP tools carry (2020-12): OpenAPI 3.0's
 * `nullable` and boolean `exclusiveMinimum`/`exclusiveMaximum` rewritten, keywords that are
 * OpenAPI's own (`discriminator`, `xml`, `externalDocs`, `example`) left out, and recursion
 * (a schema inside itself) cut where it repeats. Inputs are never changed.
 */
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';

/** Keywords holding one schema. */
const ONE_SCHEMA = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contentSchema',
]);
/** Keywords holding a list of schemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords holding schemas by name. */
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
/** OpenAPI's own keywords, meaningless (or unknown) to a JSON Schema validator. */
const DROPPED = new Set(['nullable', 'discriminator', 'xml', 'externalDocs', 'example', '$ref']);

/**
 * The JSON Schema for an OpenAPI schema object; `{}` (anything) for a missing one. A schema
 * met again inside itself becomes `{ description: "(recursive: …)" }`.
 */
export function toJsonSchema(schema: unknown, dialect: SchemaDialect): JsonObject {
  return convert(schema, dialect.version, {
    ancestors: new Set(),
    stops: 0,
    shared: dialect.cache,
  });
}

/** The document's OpenAPI version, and the conversions its tools share. */
export interface SchemaDialect {
  readonly version: '3.0' | '3.1';
  readonly cache: SchemaCache;
}

/**
 * Conversions of schema objects whose result does not depend on where they are met (no
 * recursion cut inside): a document's shared schemas are converted once, and their results
 * shared between tools (they are never changed afterwards).
 */
export class SchemaCache {
  readonly results = new WeakMap<object, JsonObject>();
}

interface Walk {
  readonly ancestors: Set<object>;
  /** Recursion cuts made so far: a subtree with none is the same wherever it is met. */
  stops: number;
  readonly shared: SchemaCache;
}

function convert(schema: unknown, version: '3.0' | '3.1', walk: Walk): JsonObject {
  if (schema === true || schema === undefined) return {};
  if (schema === false) return { not: {} };
  if (!isJsonObject(schema)) return {};
  const known = walk.shared.results.get(schema);
  if (known !== undefined) return known;
  if (walk.ancestors.has(schema)) {
    walk.stops++;
    return recursionStop(schema);
  }
  // A $ref left in place is one the parser could not inline (recursion): anything goes.
  if (typeof schema['$ref'] === 'string' && Object.keys(schema).length === 1)
    return { description: `(recursive: ${schema['$ref']})` };
  const stopsBefore = walk.stops;
  const { ancestors } = walk;
  ancestors.add(schema);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (ONE_SCHEMA.has(key) && (isJsonObject(value) || typeof value === 'boolean')) {
      out[key] = convert(value, version, walk);
    } else if ((SCHEMA_LISTS.has(key) || key === 'items') && Array.isArray(value)) {
      out[key] = value.map((item) => convert(item, version, walk));
    } else if (SCHEMA_MAPS.has(key) && isJsonObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, convert(item, version, walk)]),
      );
    } else {
      out[key] = value;
    }
  }
  ancestors.delete(schema);
  if (version === '3.0') openApi30Keywords(schema, out);
  if (walk.stops === stopsBefore) walk.shared.results.set(schema, out);
  return out;
}

/** OpenAPI 3.0's forms of `null` and exclusive bounds, as JSON Schema 2020-12 writes them. */
function openApi30Keywords(schema: JsonObject, out: JsonObject): void {
  if (schema['nullable'] === true) {
    const type: unknown = out['type'];
    if (typeof type === 'string') out['type'] = [type, 'null'];
    else if (Array.isArray(type) && !type.includes('null'))
      out['type'] = [...(type as string[]), 'null'];
    const values: unknown = out['enum'];
    if (Array.isArray(values) && !values.includes(null))
      out['enum'] = [...(values as JsonObject[]), null];
  }
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag] === true && typeof out[bound] === 'number') {
      out[flag] = out[bound];
      delete out[bound];
    } else {
      delete out[flag];
    }
  }
}

function recursionStop(schema: JsonObject): JsonObject {
  const title = typeof schema['title'] === 'string' ? schema['title'] : undefined;
  return {
    description:
      title === undefined ? '(recursive: the enclosing schema)' : `(recursive: ${title})`,
  };
}
