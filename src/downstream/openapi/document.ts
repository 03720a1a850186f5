/**
 * Reading an OpenAPI document: parsed (JSON or YAML), validated against the OpenAPI 3.0 or
 * 3.1 schema and `$ref`s resolved (in the document, in relative files, at URLs) by
 * `@readme/openapi-parser`. What is wrong is reported with where it is in the document.
 */
import { dereference, validate } from '@readme/openapi-parser';
import { HintgateError, errorMessage } from '../../core/errors.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';

/** A validated document, every `$ref` resolved (recursive schemas are cyclic objects). */
export interface OpenApiDocument {
  /** The file path or URL it was read from. */
  readonly source: string;
  readonly version: '3.0' | '3.1';
  readonly document: JsonObject;
}

/** A document that cannot be used: `problems` says what is wrong and where. */
export class OpenApiDocumentError extends HintgateError {
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
    options?: ErrorOptions,
  ) {
    super('CONFIG_INVALID', `${source}: ${problems.join('; ')}`, { source, problems }, options);
  }
}

/** Options of {@link loadOpenApiDocument}. */
export interface LoadDocumentOptions {
  /** How long fetching a document (or a file it refers to) over HTTP may take. */
  readonly timeoutMs: number;
}

/**
 * Reads, validates and dereferences an OpenAPI 3.0 or 3.1 document from a file path or an
 * http(s) URL. Throws {@link OpenApiDocumentError} naming each problem (a validation error
 * with the path of the key in the document: `paths./pets.get.responses.200: must have
 * required property 'description'`), a file that cannot be read, or a Swagger 2.0 document.
 */
export async function loadOpenApiDocument(
  source: string,
  options: LoadDocumentOptions,
): Promise<OpenApiDocument> {
  const parserOptions = {
    resolve: { http: { timeout: options.timeoutMs } },
    validate: { errors: { colorize: false } },
  };
  let result: Awaited<ReturnType<typeof validate>>;
  try {
    result = await validate(source, parserOptions);
  } catch (error) {
    throw new OpenApiDocumentError(source, [readable(errorMessage(error))], { cause: error });
  }
  if (!result.valid) {
    const located = await locateProblems(source, result.errors);
    const more = result.additionalErrors > 0 ? [`and ${result.additionalErrors} more`] : [];
    throw new OpenApiDocumentError(source, [...located, ...more]);
  }
  if (result.specification === 'Swagger') {
    throw new OpenApiDocumentError(source, [
      'Swagger 2.0 documents are not supported: convert it to OpenAPI 3 first',
    ]);
  }
  const document: unknown = await dereference(source, {
    ...parserOptions,
    dereference: { circular: true },
  });
  if (!isJsonObject(document)) throw new OpenApiDocumentError(source, ['not an object']);
  const version = String(document['openapi']).startsWith('3.1') ? '3.1' : '3.0';
  return { source, version, document };
}

/** The library's messages carry a code frame of the document as JSON: kept as a path. */
async function locateProblems(
  source: string,
  errors: readonly { message: string }[],
): Promise<string[]> {
  let lines: string[] | undefined;
  try {
    // The frame numbers lines of the document as validated: dereferenced, recursion left as $ref.
    const shown: unknown = await dereference(source, { dereference: { circular: 'ignore' } });
    lines = documentPaths(shown);
  } catch {
    lines = undefined;
  }
  return errors.map((error) => {
    const [first = '', ...frame] = error.message.split('\n');
    const marker = frame.map((line) => /^>\s*(\d+)\s*\|/.exec(line)).find((m) => m !== null);
    const at = marker === undefined || lines === undefined ? undefined : lines[Number(marker[1])];
    const sentence = first.replace(/^[A-Z_]+ /, '');
    if (at !== undefined) return `${at === '' ? '(top level)' : at}: ${sentence}`;
    return readable(error.message);
  });
}

/**
 * For each line of `JSON.stringify(value, null, 2)` (numbered from 1), the dotted path of
 * the key or item that line opens.
 */
export function documentPaths(value: unknown): string[] {
  const paths: string[] = [''];
  const walk = (node: unknown, path: string): void => {
    paths.push(path);
    if (node === null || typeof node !== 'object') return;
    const entries = Array.isArray(node)
      ? node.map((item, index) => [String(index), item] as const)
      : Object.entries(node).filter(([, item]) => item !== undefined && typeof item !== 'function');
    if (entries.length === 0) return;
    for (const [key, item] of entries) walk(item, path === '' ? key : `${path}.${key}`);
    paths.push(path);
  };
  walk(value, '');
  return paths;
}

/** The first lines of a message, without the library's code frame. */
function readable(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^[>|\d-]/.test(line))
    .slice(0, 3)
    .join(' ');
}
