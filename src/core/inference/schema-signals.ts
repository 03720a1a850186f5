/**
 * Reading a tool's input schema: an `action`/`operation`/`method`/`mode` enum of verbs,
 * arguments that carry code or commands, dry-run and confirmation flags, URL arguments,
 * and the schema's size.
 */
import {
  ACTION_ARGUMENTS,
  ATTRIBUTE_URL_WORDS,
  CODE_ARGUMENTS,
  CODE_DESCRIPTION_PATTERN,
  CONFIRM_ARGUMENTS,
  DRY_RUN_ARGUMENTS,
  OUTPUT_ARGUMENTS,
  EXEC_ARGUMENTS,
  HTTP_METHOD_KINDS,
  HTTP_METHOD_PATTERN,
  QUERY_LANGUAGE_PATTERN,
  SHELL_ARGUMENTS,
  SQL_STATEMENT_KINDS,
  URL_ARGUMENT_WORDS,
  WRAPPER_ARGUMENTS,
  type VerbKind,
  KIND_SEVERITY,
} from './lexicon.js';
import { readName } from './name-signals.js';

export { KIND_SEVERITY };
import { tokenizeName } from './tokenize.js';

/** An argument that says something by its name. */
export interface ArgumentSignal {
  /** The argument's name as written in the schema. */
  readonly argument: string;
}

/** The action values of a many-action tool. */
export interface ActionSignal extends ArgumentSignal {
  /** The worst value (`delete_workflow_run_logs`) and the verb in it (`delete`). */
  readonly value: string;
  readonly word: string;
  readonly kind: VerbKind;
  /** True when every value that names a verb names a read. */
  readonly allRead: boolean;
  /** How many values the argument allows. */
  readonly count: number;
  /** True when the worst value is an HTTP method (`DELETE` in a `method` argument). */
  readonly http: boolean;
}

/** What an input schema says. */
export interface SchemaReading {
  readonly action: ActionSignal | undefined;
  /** An argument run as code or a command (`sql`, `command`, `script`, any HTTP `method`). */
  readonly exec: ArgumentSignal | undefined;
  /** An argument run by a shell or interpreter (`command`, `script`): it can reach anywhere. */
  readonly shell: ArgumentSignal | undefined;
  /** An argument that may be code (`code`, `function`): counts when the name is silent. */
  readonly code: ArgumentSignal | undefined;
  /** A dry-run flag (`dry_run`, `dryRun`): the tool writes unless asked not to. */
  readonly dryRun: ArgumentSignal | undefined;
  /** A `preview` flag. */
  readonly preview: ArgumentSignal | undefined;
  /** A confirmation or force flag (`confirm`, `force`). */
  readonly confirm: ArgumentSignal | undefined;
  /** An argument taking a URL. */
  readonly url: ArgumentSignal | undefined;
  /** An argument naming where output is saved (`outputDir`, `save_path`): the tool writes files. */
  readonly output: ArgumentSignal | undefined;
  /**
   * Top-level arguments (union branches included), nested objects at any depth, and
   * required arguments. Only top-level arguments are read for the other signals.
   */
  readonly properties: number;
  readonly nested: number;
  readonly required: number;
}

const EMPTY: SchemaReading = {
  action: undefined,
  exec: undefined,
  shell: undefined,
  code: undefined,
  dryRun: undefined,
  preview: undefined,
  confirm: undefined,
  url: undefined,
  output: undefined,
  properties: 0,
  nested: 0,
  required: 0,
};

/** Deeper nesting than this is not read (schemas can be large and recursive). */
const MAX_DEPTH = 4;

type JsonObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Lower case without `_` or `-`: `dry_run`, `dryRun` and `dry-run` are all `dryrun`. */
function normalize(name: string): string {
  const lower = name.toLowerCase();
  return lower.includes('_') || lower.includes('-')
    ? lower.replaceAll('_', '').replaceAll('-', '')
    : lower;
}

function hasType(schema: JsonObject, type: string): boolean {
  const declared = schema['type'];
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

function pushStrings(into: string[], values: unknown): void {
  if (!Array.isArray(values)) return;
  for (const value of values) if (typeof value === 'string') into.push(value);
}

const VALUE_UNION_KEYS = ['anyOf', 'oneOf'] as const;

/** The string values an argument allows: `enum`, `const`, unions of them, array items. */
function allowedValues(schema: JsonObject): string[] {
  const values: string[] = [];
  pushStrings(values, schema['enum']);
  if (typeof schema['const'] === 'string') values.push(schema['const']);
  for (const key of VALUE_UNION_KEYS) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) if (isObject(branch)) values.push(...allowedValues(branch));
  }
  const items = schema['items'];
  if (isObject(items)) values.push(...allowedValues(items));
  return values;
}

interface ValueKind {
  readonly kind: VerbKind;
  readonly word: string;
}

/**
 * Classifies one action value: an HTTP method, an SQL statement or a name-like verb. A
 * value that is a bare verb acts on what the tool's name names (`close` in `browser_tabs`
 * closes tabs), so `objects`, the name's words, are read as its objects.
 */
export function classifyActionValue(
  value: string,
  httpMethods = false,
  objects: readonly string[] = [],
): ValueKind | undefined {
  const lower = value.toLowerCase();
  const method = httpMethods ? HTTP_METHOD_KINDS.get(lower) : undefined;
  if (method !== undefined) return { kind: method, word: lower };
  const statement = SQL_STATEMENT_KINDS.get(lower);
  if (statement !== undefined) return { kind: statement, word: lower };
  const tokens = tokenizeName(value);
  const reading = readName(tokens.length === 1 ? [...tokens, ...objects] : tokens);
  let worst: ValueKind | undefined;
  for (const verb of [reading.primary, ...reading.conjoined]) {
    if (verb === undefined || verb.kind === 'vague') continue;
    if (worst === undefined || KIND_SEVERITY[verb.kind] > KIND_SEVERITY[worst.kind]) {
      worst = { kind: verb.kind, word: verb.word };
    }
  }
  if (reading.force) return { kind: 'destructive', word: 'force' };
  return worst;
}

interface Accumulator {
  action: ActionSignal | undefined;
  exec: ArgumentSignal | undefined;
  shell: ArgumentSignal | undefined;
  code: ArgumentSignal | undefined;
  dryRun: ArgumentSignal | undefined;
  preview: ArgumentSignal | undefined;
  confirm: ArgumentSignal | undefined;
  url: ArgumentSignal | undefined;
  output: ArgumentSignal | undefined;
  /** An own argument that may wrap all the others (`params`, `request`). */
  wrapper: JsonObject | undefined;
  nested: number;
  /** The tool name's words, the objects of bare-verb action values. */
  readonly objects: readonly string[];
}

function readAction(
  acc: Accumulator,
  argument: string,
  values: readonly string[],
  objects: readonly string[],
): void {
  const httpMethods = normalize(argument) === 'method';
  let worst: ValueKind | undefined;
  let worstValue = '';
  let allRead = true;
  let classified = 0;
  for (const value of values) {
    const kind = classifyActionValue(value, httpMethods, objects);
    if (kind === undefined) continue;
    classified++;
    if (kind.kind !== 'read') allRead = false;
    if (worst === undefined || KIND_SEVERITY[kind.kind] > KIND_SEVERITY[worst.kind]) {
      worst = kind;
      worstValue = value;
    }
  }
  if (worst === undefined || classified === 0) return;
  const previous = acc.action;
  if (previous === undefined || KIND_SEVERITY[worst.kind] > KIND_SEVERITY[previous.kind]) {
    acc.action = {
      argument,
      value: worstValue,
      word: worst.word,
      kind: worst.kind,
      allRead: allRead && (previous?.allRead ?? true),
      count: values.length,
      http: httpMethods && HTTP_METHOD_KINDS.has(worstValue.toLowerCase()),
    };
  } else if (!allRead && previous.allRead) {
    acc.action = { ...previous, allRead: false };
  }
}

function hasAllowedValues(schema: JsonObject): boolean {
  return (
    schema['enum'] !== undefined ||
    schema['const'] !== undefined ||
    schema['anyOf'] !== undefined ||
    schema['oneOf'] !== undefined ||
    isObject(schema['items'])
  );
}

/** Cheap test, on the normalized name, before splitting it into words for URL words. */
function mayNameUrl(norm: string): boolean {
  return norm.includes('url') || norm.includes('href') || norm.includes('web');
}

/** A value quoted in prose: 'update', "delete" or `create`. Compiled once. */
const QUOTED_VALUE = /['"`]([A-Za-z][\w-]{1,40})['"`]/g;
/** At most this many quoted values are read from an argument's description. */
const MAX_QUOTED_VALUES = 24;

/**
 * The values an action argument's description lists in quotes when its schema has no
 * enum ("The action to perform: 'update' (set parameters), 'check' …"), two at least.
 */
function quotedValues(description: string): string[] {
  const values: string[] = [];
  if (!description.includes("'") && !description.includes('"') && !description.includes('`')) {
    return values;
  }
  for (const match of description.matchAll(QUOTED_VALUE)) {
    values.push(match[1] as string);
    if (values.length >= MAX_QUOTED_VALUES) break;
  }
  // One quoted word is an example, not a list of the actions allowed.
  return values.length >= 2 ? values : [];
}

/** What an argument's name (normalized) can make it, as bits: one lookup per argument. */
const WRAPPER = 1;
const ACTION = 2;
const EXEC = 4;
const SHELL = 8;
const OUTPUT = 16;
const QUERY = 32;
const METHOD = 64;
const CODE = 128;
const DRY_RUN = 256;
const PREVIEW = 512;
const CONFIRM = 1024;

function buildArgumentRoles(): ReadonlyMap<string, number> {
  const roles = new Map<string, number>();
  const mark = (names: Iterable<string>, bit: number): void => {
    for (const name of names) roles.set(name, (roles.get(name) ?? 0) | bit);
  };
  mark(WRAPPER_ARGUMENTS, WRAPPER);
  mark(ACTION_ARGUMENTS, ACTION);
  mark(EXEC_ARGUMENTS, EXEC);
  mark(SHELL_ARGUMENTS, SHELL);
  mark(OUTPUT_ARGUMENTS, OUTPUT);
  mark(['query'], QUERY);
  mark(['method', 'httpmethod'], METHOD);
  mark(CODE_ARGUMENTS, CODE);
  mark(DRY_RUN_ARGUMENTS, DRY_RUN);
  mark(['preview'], PREVIEW);
  mark(CONFIRM_ARGUMENTS, CONFIRM);
  return roles;
}

const ARGUMENT_ROLES = buildArgumentRoles();

/** Roles read from a text argument, and from a boolean one. */
const TEXT_ROLES = EXEC | OUTPUT | QUERY | METHOD | CODE;
const FLAG_ROLES = DRY_RUN | PREVIEW | CONFIRM;

function readArgument(acc: Accumulator, argument: string, schema: JsonObject): void {
  const norm = normalize(argument);
  const roles = ARGUMENT_ROLES.get(norm) ?? 0;
  if (roles !== 0) readRoles(acc, argument, schema, roles);
  if (acc.url === undefined && mayNameUrl(norm)) {
    const argumentWords = tokenizeName(argument);
    if (
      argumentWords.some((word) => URL_ARGUMENT_WORDS.has(word)) &&
      !argumentWords.some((word) => ATTRIBUTE_URL_WORDS.has(word))
    ) {
      acc.url = { argument };
    }
  }
}

/** Reads an argument whose name gives it a role (`roles`, bits of `ARGUMENT_ROLES`). */
function readRoles(acc: Accumulator, argument: string, schema: JsonObject, roles: number): void {
  if ((roles & WRAPPER) !== 0 && isObject(schema['properties'])) acc.wrapper ??= schema;
  if ((roles & ACTION) !== 0) {
    const listed = allowedValues(schema);
    const described = schema['description'];
    // A command argument runs what it is given: its quoted examples are not a list of actions.
    const values =
      listed.length > 0 || typeof described !== 'string' || (roles & EXEC) !== 0
        ? listed
        : quotedValues(described);
    if (values.length > 0) {
      readAction(acc, argument, values, acc.objects);
      return;
    }
  }
  if ((roles & (TEXT_ROLES | FLAG_ROLES)) === 0) return;
  const text = schema['type'] === undefined || hasType(schema, 'string');
  if (text && !hasAllowedValues(schema)) {
    const description = typeof schema['description'] === 'string' ? schema['description'] : '';
    if ((roles & EXEC) !== 0) {
      acc.exec ??= { argument };
      if ((roles & SHELL) !== 0) acc.shell ??= { argument };
    } else if ((roles & OUTPUT) !== 0) {
      acc.output ??= { argument };
    } else if ((roles & QUERY) !== 0) {
      if (QUERY_LANGUAGE_PATTERN.test(description)) acc.exec ??= { argument };
    } else if ((roles & METHOD) !== 0) {
      if (HTTP_METHOD_PATTERN.test(description)) acc.exec ??= { argument };
    } else if ((roles & CODE) !== 0) {
      // `code` is as often an identifier (a project code, a country code): its description
      // says which.
      if (description === '' || CODE_DESCRIPTION_PATTERN.test(description))
        acc.code ??= { argument };
    }
  } else if (hasType(schema, 'boolean')) {
    if ((roles & DRY_RUN) !== 0) acc.dryRun ??= { argument };
    else if ((roles & PREVIEW) !== 0) acc.preview ??= { argument };
    else if ((roles & CONFIRM) !== 0) acc.confirm ??= { argument };
  }
}

const UNION_KEYS = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * Walks a schema's properties, counting them; `own` is true for the tool's own arguments
 * (top level, union branches included), the only ones read for signals: nested options
 * are settings.
 */
function visit(acc: Accumulator, schema: JsonObject, depth: number, own: boolean): number {
  let count = 0;
  const properties = schema['properties'];
  if (isObject(properties)) {
    for (const argument in properties) {
      const property = properties[argument];
      if (!isObject(property)) continue;
      count++;
      if (own) readArgument(acc, argument, property);
      if (depth >= MAX_DEPTH) continue;
      const items = property['items'];
      const inner = isObject(items) && hasType(items, 'object') ? items : property;
      if (isObject(inner['properties'])) {
        acc.nested++;
        visit(acc, inner, depth + 1, false);
      }
    }
  }
  if (depth >= MAX_DEPTH) return count;
  for (const key of UNION_KEYS) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (isObject(branch)) count += visit(acc, branch, depth + 1, own);
    }
  }
  return count;
}

function accumulator(objects: readonly string[]): Accumulator {
  return {
    action: undefined,
    exec: undefined,
    shell: undefined,
    code: undefined,
    dryRun: undefined,
    preview: undefined,
    confirm: undefined,
    url: undefined,
    output: undefined,
    wrapper: undefined,
    nested: 0,
    objects,
  };
}

/**
 * Reads a JSON Schema object. An action argument's values are classified like names
 * (`get_workflow` → read, `delete_workflow_run_logs` → destructive) and the worst one is
 * kept; a `method` argument's values may be HTTP methods. `nameTokens`, the tool name's
 * lower-case words, are the objects of bare-verb values. Anything that is not an object
 * schema reads as an empty one.
 */
export function readSchema(schema: unknown, nameTokens: readonly string[] = []): SchemaReading {
  if (!isObject(schema)) return EMPTY;
  let acc = accumulator(nameTokens);
  let properties = visit(acc, schema, 0, true);
  // A lone `params` or `request` object wraps the tool's arguments (a lone `options` object
  // stays settings): read again from inside it.
  const wrapped = properties === 1 ? acc.wrapper : undefined;
  if (wrapped !== undefined) {
    acc = accumulator(nameTokens);
    properties = visit(acc, wrapped, 0, true);
  }
  const required = schema['required'];
  return {
    action: acc.action,
    exec: acc.exec,
    shell: acc.shell,
    code: acc.code,
    dryRun: acc.dryRun,
    preview: acc.preview,
    confirm: acc.confirm,
    url: acc.url,
    output: acc.output,
    properties,
    nested: acc.nested,
    required: Array.isArray(required) ? required.length : 0,
  };
}
