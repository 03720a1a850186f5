/**
 * Which argument classifiers apply to a tool, read from its input schema once (when the
 * tool is listed), not per call.
 */
import { ACTION_ARGUMENTS } from '../inference/lexicon.js';
import { actionEffect } from '../classify/action.js';
import type { CallHints } from '../classify/hints.js';
import { CONSERVATIVE, worstHints } from '../classify/hints.js';
import { classifyHttpRequest } from '../classify/http.js';
import { formatJsonPointer } from './json-pointer.js';

/** The built-in classifiers. */
export type ClassifierKind = 'sql' | 'shell' | 'http' | 'action';

/** A classifier that applies to one argument of a tool. */
export interface DetectedClassifier {
  readonly kind: ClassifierKind;
  /** The argument, as an RFC 6901 pointer into the arguments (`/query`, `/request/method`). */
  readonly pointer: string;
  /** The same, as property names, to evaluate without parsing. */
  readonly path: readonly string[];
  /** `http`: the sibling argument holding the path or URL, if any. */
  readonly pathPointer?: readonly string[];
  /** `http`: the sibling argument holding the request body, if any. */
  readonly bodyPointer?: readonly string[];
  /** `action` and `http`: the values the schema allows (empty when it does not list them). */
  readonly values: readonly string[];
  /** The most conservative hints this classifier can return for the tool. */
  readonly worstCase: CallHints;
  /** Why it applies, in a sentence. */
  readonly why: string;
}

/** What else of the tool detection may read: its name and description. */
export interface DetectOptions {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
}

type JsonObject = Readonly<Record<string, unknown>>;

const MAX_DEPTH = 2;
const SQL_NAMES = new Set(['sql', 'sqlquery', 'sqlstatement', 'rawsql', 'sqlcommand', 'sqltext']);
const SQL_IF_DESCRIBED = new Set(['query', 'statement', 'statements', 'querytext', 'sqlstring']);
const SQL_HINT =
  /\b(?:sql|postgres(?:ql)?|mysql|mariadb|sqlite|plpgsql|t-sql|clickhouse|snowflake|duckdb|bigquery|redshift|cockroachdb)\b/i;
const NOT_SQL =
  /\b(?:cypher|graphql|promql|logql|traceql|sparql|mongo(?:db)?|jq|jmespath|lucene|kql|elasticsearch|search query|natural language)\b/i;
const SHELL_NAMES = new Set([
  'command',
  'cmd',
  'commandline',
  'shellcommand',
  'bashcommand',
  'shellscript',
  'bashscript',
]);
const SHELL_IF_DESCRIBED = new Set(['script', 'commands']);
const SHELL_HINT = /\b(?:shell|bash|zsh|sh|terminal|command line|command-line)\b/i;
const NOT_SHELL =
  /\b(?:kubectl|sql|cypher|javascript|typescript|python|redis|graphql|powershell|applescript)\b/i;
const METHOD_NAMES = new Set(['method', 'httpmethod', 'requestmethod', 'verb', 'httpverb']);
const PATH_NAMES = new Set([
  'path',
  'url',
  'endpoint',
  'uri',
  'route',
  'resource',
  'apipath',
  'urlpath',
  'href',
]);
const BODY_NAMES = new Set(['body', 'data', 'payload', 'json', 'requestbody']);
const HTTP_METHODS = new Set([
  'GET',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'CONNECT',
]);
const HTTP_DESCRIBED = /\bHTTP\b|\b(?:GET|POST|PUT|PATCH|DELETE)\b/;
const ACTION_DESCRIBED = /\b(?:actions?|operations?|perform)\b/i;
const FREE_ACTION_NAMES = new Set(['action', 'operation', 'op']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normalize(name: string): string {
  return name.toLowerCase().replaceAll('_', '').replaceAll('-', '');
}

function isType(schema: JsonObject, type: string): boolean {
  const declared = schema['type'];
  return (
    declared === undefined ||
    declared === type ||
    (Array.isArray(declared) && declared.includes(type))
  );
}

/** The string values an argument allows: `enum`, `const`, and unions of them. */
function allowedValues(schema: JsonObject): string[] {
  const values: string[] = [];
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues))
    for (const value of enumValues) if (typeof value === 'string') values.push(value);
  if (typeof schema['const'] === 'string') values.push(schema['const']);
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (Array.isArray(branches))
      for (const branch of branches) if (isObject(branch)) values.push(...allowedValues(branch));
  }
  return values;
}

function describedAs(schema: JsonObject, tool: DetectOptions, pattern: RegExp): boolean {
  const own = typeof schema['description'] === 'string' ? schema['description'] : '';
  return pattern.test(own) || pattern.test(tool.description ?? '') || pattern.test(tool.name ?? '');
}

function ownDescription(schema: JsonObject): string {
  return typeof schema['description'] === 'string' ? schema['description'] : '';
}

function actionWorstCase(values: readonly string[]): CallHints | undefined {
  const found = values.flatMap((value) => actionEffect(value)?.hints ?? []);
  return found.length > 0 && found.length * 2 >= values.length ? worstHints(found) : undefined;
}

function sibling(
  properties: JsonObject,
  names: ReadonlySet<string>,
  path: readonly string[],
): string[] | undefined {
  for (const key of Object.keys(properties)) if (names.has(normalize(key))) return [...path, key];
  return undefined;
}

/** Detection for one property among its siblings. */
function detectProperty(
  key: string,
  schema: JsonObject,
  properties: JsonObject,
  path: readonly string[],
  tool: DetectOptions,
): DetectedClassifier | undefined {
  const name = normalize(key);
  const at = [...path, key];
  const pointer = formatJsonPointer(at);
  const base = { pointer, path: at };
  const items = schema['items'];
  const values = allowedValues(isObject(items) && schema['type'] === 'array' ? items : schema);
  const text = isType(schema, 'string');
  if (METHOD_NAMES.has(name)) {
    const pathPointer = sibling(properties, PATH_NAMES, path);
    const allHttp =
      values.length > 0 && values.every((value) => HTTP_METHODS.has(value.toUpperCase()));
    if (
      allHttp ||
      (values.length === 0 &&
        text &&
        pathPointer !== undefined &&
        HTTP_DESCRIBED.test(ownDescription(schema)))
    ) {
      const results = values.flatMap((value) => classifyHttpRequest(value)?.annotations ?? []);
      const bodyPointer = sibling(properties, BODY_NAMES, path);
      return {
        kind: 'http',
        ...base,
        ...(pathPointer === undefined ? {} : { pathPointer }),
        ...(bodyPointer === undefined ? {} : { bodyPointer }),
        values,
        worstCase: values.length === 0 ? CONSERVATIVE : worstHints(results),
        why: `argument \`${key}\` takes an HTTP method${pathPointer === undefined ? '' : ` and \`${pathPointer.at(-1) ?? ''}\` its path`}`,
      };
    }
  }
  if (ACTION_ARGUMENTS.has(name) && values.length > 0) {
    const worstCase = actionWorstCase(values);
    if (worstCase === undefined) return undefined;
    return {
      kind: 'action',
      ...base,
      values,
      worstCase,
      why: `argument \`${key}\` selects an action by verb (${values.slice(0, 6).join(', ')})`,
    };
  }
  if (!text || values.length > 0) return undefined;
  if (
    SHELL_NAMES.has(name) ||
    (SHELL_IF_DESCRIBED.has(name) && describedAs(schema, tool, SHELL_HINT))
  ) {
    if (NOT_SHELL.test(ownDescription(schema))) return undefined;
    return {
      kind: 'shell',
      ...base,
      values,
      worstCase: { ...CONSERVATIVE, openWorldHint: true },
      why: `argument \`${key}\` takes a shell command`,
    };
  }
  if (SQL_NAMES.has(name) || (SQL_IF_DESCRIBED.has(name) && describedAs(schema, tool, SQL_HINT))) {
    if (NOT_SQL.test(ownDescription(schema))) return undefined;
    return {
      kind: 'sql',
      ...base,
      values,
      worstCase: CONSERVATIVE,
      why: `argument \`${key}\` takes SQL`,
    };
  }
  if (
    FREE_ACTION_NAMES.has(name) ||
    (ACTION_ARGUMENTS.has(name) && ACTION_DESCRIBED.test(ownDescription(schema)))
  ) {
    return {
      kind: 'action',
      ...base,
      values,
      worstCase: CONSERVATIVE,
      why: `argument \`${key}\` names an action to perform`,
    };
  }
  return undefined;
}

function visit(
  schema: JsonObject,
  path: readonly string[],
  tool: DetectOptions,
  into: DetectedClassifier[],
  depth: number,
): void {
  const properties = schema['properties'];
  if (isObject(properties)) {
    for (const [key, property] of Object.entries(properties)) {
      if (!isObject(property)) continue;
      const found = detectProperty(key, property, properties, path, tool);
      if (found !== undefined) into.push(found);
      else if (depth < MAX_DEPTH && isObject(property['properties']))
        visit(property, [...path, key], tool, into, depth + 1);
    }
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[key];
    if (Array.isArray(branches))
      for (const branch of branches) if (isObject(branch)) visit(branch, path, tool, into, depth);
  }
}

/** Merges detections of one argument found in several schema branches (`oneOf` variants). */
function merge(found: readonly DetectedClassifier[]): DetectedClassifier[] {
  const merged = new Map<string, DetectedClassifier>();
  for (const item of found) {
    const key = `${item.kind} ${item.pointer}`;
    const previous = merged.get(key);
    if (previous === undefined) {
      merged.set(key, item);
      continue;
    }
    const values = [...new Set([...previous.values, ...item.values])];
    const worstCase = worstHints([previous.worstCase, item.worstCase]);
    merged.set(key, { ...previous, values, worstCase });
  }
  return [...merged.values()];
}

/**
 * Finds the arguments of a tool that a built-in classifier can read, from its input
 * schema (top-level properties, `anyOf`/`oneOf`/`allOf` branches, and objects nested two
 * levels deep):
 * - `sql`: a string argument named `sql` (`sql_query`, `rawSql`…), or `query`/`statement`
 *   when its description, the tool's description or the tool's name says SQL (and does not
 *   name another query language such as Cypher or PromQL);
 * - `shell`: a string argument named `command`/`cmd` (`commandLine`, `bash_command`…), or
 *   `script` described as a shell script, unless its description names another language
 *   (`kubectl`, `python`); arrays of words are not read;
 * - `http`: a `method` argument whose values are HTTP methods (or, without values, one
 *   described as HTTP next to a `path`/`url`/`endpoint` argument), with that path and a
 *   `body`/`data`/`payload` sibling when present;
 * - `action`: an `action`/`operation`/`method`/`mode`/`command` argument whose listed values
 *   are at least half verbs (`get_workflow`, `delete`), or `action`/`operation`/`op` free
 *   text, or one described as an action to perform.
 * Each comes with the worst case it can return, for a tool's worst-case static annotations.
 *
 * @example detectArgumentClassifiers({ type: 'object', properties: { sql: { type: 'string' } } })
 * // [{ kind: 'sql', pointer: '/sql', … }]
 */
export function detectArgumentClassifiers(
  inputSchema: unknown,
  tool: DetectOptions = {},
): DetectedClassifier[] {
  if (!isObject(inputSchema)) return [];
  const found: DetectedClassifier[] = [];
  visit(inputSchema, [], tool, found, 0);
  return merge(found);
}
