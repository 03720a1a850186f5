/**
 * The operations of a validated OpenAPI document as MCP tools: one per operation kept by
 * `include`/`exclude`, with a stable unique name, a description, an input schema (path,
 * query, header and cookie parameters, path-level ones included, and the request body) and
 * an output schema (the JSON success response), plus the plan a call follows.
 */
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';
import type { OpenApiDocument } from './document.js';
import { OpenApiDocumentError } from './document.js';
import { OPENAPI_META_KEY, hostKindOf } from './annotations.js';
import { bodyPlanOf } from './body.js';
import type { BodyPlan } from './body.js';
import type { SchemaDialect } from './schema.js';
import { SchemaCache, toJsonSchema } from './schema.js';

/** The methods OpenAPI path items hold, in the order tools are listed. */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Headers OpenAPI says are described elsewhere (and ignored as parameters). */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** Where a parameter goes. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** One parameter: the argument holding it and how it is written. */
export interface ParameterPlan {
  readonly argument: string;
  readonly name: string;
  readonly in: ParameterLocation;
  readonly style: string | undefined;
  readonly explode: boolean | undefined;
}

/** How one operation is called. */
export interface OperationPlan {
  readonly method: string;
  readonly path: string;
  readonly operationId: string | undefined;
  readonly tags: readonly string[];
  /** The base URL of this operation (config, else the operation's, path's or document's). */
  readonly baseUrl: string;
  readonly parameters: readonly ParameterPlan[];
  readonly body: BodyPlan | undefined;
  /** Alternatives, each the names of the schemes it needs together; empty: none needed. */
  readonly security: readonly (readonly string[])[];
  /** The success response is not an object: structured content is `{ result: body }`. */
  readonly wrapsResult: boolean;
  readonly outputSchema: JsonObject | undefined;
}

/** A tool and the plan its calls follow. */
export interface OpenApiTool {
  /** The tool as listed (name, title, description, schemas, annotations, `_meta`). */
  readonly tool: JsonObject;
  readonly plan: OperationPlan;
}

/** What {@link convertDocument} needs besides the document. */
export interface ConvertOptions {
  /** The configured base URL; else the document's `servers`. */
  readonly baseUrl?: string | undefined;
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
}

/** Operations of a document as tools, in document order. */
export function convertDocument(api: OpenApiDocument, options: ConvertOptions = {}): OpenApiTool[] {
  const { document } = api;
  const version: SchemaDialect = { version: api.version, cache: new SchemaCache() };
  const include = options.include?.map(compilePattern);
  const exclude = (options.exclude ?? []).map(compilePattern);
  const names = new Set<string>();
  const tools: OpenApiTool[] = [];
  const paths = isJsonObject(document['paths']) ? document['paths'] : {};
  const globalSecurity = document['security'];
  for (const [path, item] of Object.entries(paths)) {
    if (!isJsonObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isJsonObject(operation)) continue;
      const operationId = stringOf(operation['operationId']);
      const tags = Array.isArray(operation['tags']) ? operation['tags'].filter(isString) : [];
      const what = { method: method.toUpperCase(), path, operationId, tags };
      if (include !== undefined && !include.some((test) => test(what))) continue;
      if (exclude.some((test) => test(what))) continue;
      const baseUrl =
        options.baseUrl ??
        serverUrl(operation['servers'], api.source) ??
        serverUrl(item['servers'], api.source) ??
        serverUrl(document['servers'], api.source);
      if (baseUrl === undefined) {
        throw new OpenApiDocumentError(api.source, [
          'no base URL: the document lists no absolute "servers" URL; set "baseUrl" in the config',
        ]);
      }
      const name = uniqueName(names, operationId ?? derivedName(method, path));
      tools.push(
        toTool(
          name,
          { ...what, baseUrl },
          operation,
          item,
          version,
          operation['security'] ?? globalSecurity,
        ),
      );
    }
  }
  return tools;
}

function toTool(
  name: string,
  what: {
    method: string;
    path: string;
    operationId: string | undefined;
    tags: string[];
    baseUrl: string;
  },
  operation: JsonObject,
  item: JsonObject,
  version: SchemaDialect,
  security: unknown,
): OpenApiTool {
  const { parameters, properties, required } = parametersOf(item, operation, version);
  const body = bodyPlanOf(operation['requestBody'], version, new Set(Object.keys(properties)));
  if (body !== undefined) {
    Object.assign(properties, body.properties);
    required.push(...body.required);
  }
  const inputSchema: JsonObject = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
  const output = outputOf(operation['responses'], version);
  const summary = stringOf(operation['summary'])?.trim();
  const annotations = operation['x-mcp-annotations'];
  const tool: JsonObject = {
    name,
    ...(summary === undefined || summary === '' ? {} : { title: summary }),
    description: describe(what.method, what.path, summary, operation),
    inputSchema,
    ...(output === undefined ? {} : { outputSchema: output.schema }),
    ...(isJsonObject(annotations) ? { annotations } : {}),
    _meta: {
      [OPENAPI_META_KEY]: {
        method: what.method,
        path: what.path,
        ...(what.operationId === undefined ? {} : { operationId: what.operationId }),
        host: hostKindOf(what.baseUrl),
      },
    },
  };
  return {
    tool,
    plan: {
      ...what,
      parameters,
      body: body?.plan,
      security: securityOf(security),
      wrapsResult: output?.wraps ?? false,
      outputSchema: output?.schema,
    },
  };
}

/** Path-level parameters, overridden by the operation's of the same name and place. */
function parametersOf(item: JsonObject, operation: JsonObject, version: SchemaDialect) {
  const byKey = new Map<string, JsonObject>();
  for (const list of [item['parameters'], operation['parameters']]) {
    if (!Array.isArray(list)) continue;
    for (const parameter of list) {
      if (!isJsonObject(parameter) || !isString(parameter['name']) || !isString(parameter['in']))
        continue;
      byKey.set(`${parameter['in']}:${parameter['name']}`, parameter);
    }
  }
  const kept = [...byKey.values()].filter(
    (p) =>
      ['path', 'query', 'header', 'cookie'].includes(p['in'] as string) &&
      !(p['in'] === 'header' && RESERVED_HEADERS.has(String(p['name']).toLowerCase())),
  );
  const counts = new Map<string, number>();
  for (const p of kept) counts.set(p['name'] as string, (counts.get(p['name'] as string) ?? 0) + 1);
  const parameters: ParameterPlan[] = [];
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const p of kept) {
    const name = p['name'] as string;
    const location = p['in'] as ParameterLocation;
    // The same name in two places (`id` in the path and the query): both, told apart.
    const argument = (counts.get(name) ?? 0) > 1 ? `${location}_${name}` : name;
    const schema = toJsonSchema(p['schema'] ?? firstContentSchema(p['content']), version);
    const description = stringOf(p['description']);
    properties[argument] = {
      ...schema,
      ...(description === undefined ? {} : { description }),
      ...(p['deprecated'] === true ? { deprecated: true } : {}),
    };
    if (p['required'] === true || location === 'path') required.push(argument);
    parameters.push({
      argument,
      name,
      in: location,
      style: stringOf(p['style']),
      explode: typeof p['explode'] === 'boolean' ? p['explode'] : undefined,
    });
  }
  return { parameters, properties, required };
}

/** The JSON success response's schema, as an object schema (`{ result }` around others). */
function outputOf(
  responses: unknown,
  version: SchemaDialect,
): { schema: JsonObject; wraps: boolean } | undefined {
  if (!isJsonObject(responses)) return undefined;
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort();
  const response = codes.length === 0 ? undefined : responses[codes[0] as string];
  if (!isJsonObject(response) || !isJsonObject(response['content'])) return undefined;
  const json = Object.entries(response['content']).find(([type]) => isJsonType(type));
  if (json === undefined || !isJsonObject(json[1]) || json[1]['schema'] === undefined)
    return undefined;
  const schema = toJsonSchema(json[1]['schema'], version);
  const isObject =
    schema['type'] === 'object' ||
    (schema['type'] === undefined &&
      (isJsonObject(schema['properties']) || Array.isArray(schema['allOf'])));
  if (isObject) return { schema: { ...schema, type: 'object' }, wraps: false };
  return {
    schema: { type: 'object', properties: { result: schema }, required: ['result'] },
    wraps: true,
  };
}

/** A JSON media type: `application/json`, `application/problem+json`, `…; charset=utf-8`. */
export function isJsonType(mediaType: string): boolean {
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json') || type === '*/*';
}

function firstContentSchema(content: unknown): unknown {
  if (!isJsonObject(content)) return undefined;
  const first = Object.values(content)[0];
  return isJsonObject(first) ? first['schema'] : undefined;
}

function describe(
  method: string,
  path: string,
  summary: string | undefined,
  operation: JsonObject,
): string {
  const description = stringOf(operation['description'])?.trim();
  const parts = [summary, description].filter(
    (part): part is string => part !== undefined && part !== '',
  );
  const unique =
    parts.length === 2 && parts[1]?.startsWith(parts[0] ?? '') === true ? [parts[1]] : parts;
  const text = unique.length === 0 ? `${method} ${path}` : unique.join('\n\n');
  return operation['deprecated'] === true ? `Deprecated. ${text}` : text;
}

function securityOf(requirements: unknown): string[][] {
  if (!Array.isArray(requirements)) return [];
  return requirements.filter(isJsonObject).map((requirement) => Object.keys(requirement));
}

/**
 * The first `servers` entry's URL, variables replaced by their defaults, resolved against
 * the document's own URL when relative (a file's relative URL cannot be used).
 */
function serverUrl(servers: unknown, source: string): string | undefined {
  if (!Array.isArray(servers) || !isJsonObject(servers[0])) return undefined;
  const server = servers[0];
  let url = stringOf(server['url']);
  if (url === undefined) return undefined;
  const variables = isJsonObject(server['variables']) ? server['variables'] : {};
  url = url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isJsonObject(variable) && isString(variable['default']) ? variable['default'] : whole;
  });
  try {
    return new URL(url, /^https?:\/\//i.test(source) ? source : undefined).href;
  } catch {
    return undefined;
  }
}

const MAX_NAME = 64;

/** `get_pets_by_petId_photos` for GET /pets/{petId}/photos; `get_root` for GET /. */
export function derivedName(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment);
      return parameter === null ? segment : `by_${parameter[1] ?? ''}`;
    });
  return [method.toLowerCase(), ...(words.length === 0 ? ['root'] : words)].join('_');
}

/** Letters, digits, `_`, `-` and `.` only, at most 64 characters; `_2`, `_3`… on a repeat. */
function uniqueName(taken: Set<string>, wanted: string): string {
  const base =
    wanted
      .replace(/[^A-Za-z0-9_.-]+/g, '_')
      .replace(/^[_.-]+|[_.-]+$/g, '')
      .slice(0, MAX_NAME) || 'operation';
  let name = base;
  for (let n = 2; taken.has(name); n++)
    name = `${base.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
  taken.add(name);
  return name;
}

type OperationTest = (what: {
  method: string;
  path: string;
  operationId: string | undefined;
  tags: readonly string[];
}) => boolean;

/**
 * `include`/`exclude` entries: `/path/glob` or `METHOD /path/glob` (`*` within one segment,
 * `**` across segments, `{id}` literal), else an operationId or a tag.
 */
export function compilePattern(pattern: string): OperationTest {
  const withMethod = /^([A-Za-z]+)\s+(\/.*)$/.exec(pattern.trim());
  const method = withMethod?.[1]?.toUpperCase();
  const glob = withMethod?.[2] ?? (pattern.startsWith('/') ? pattern : undefined);
  if (glob === undefined) {
    return (what) => what.operationId === pattern || what.tags.includes(pattern);
  }
  const source = glob
    .split(/(\*\*|\*)/)
    .map((part) =>
      part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  const regex = new RegExp(`^${source}$`);
  return (what) => (method === undefined || what.method === method) && regex.test(what.path);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
