/**
 * Validating a call's arguments against a tool's listed `inputSchema` with the SDK's JSON
 * Schema validator (ajv, dialect chosen by `$schema`, 2020-12 by default). The JSON
 * Schema is what `tools/list` serves, so one path works for tools registered with zod or
 * any Standard Schema on `McpServer` and for hand-written schemas on the low-level
 * `Server`. Compiled validators are kept per schema, by content, across server instances.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/server';
import { errorMessage } from '../core/errors.js';
import { canonicalJson } from '../core/util/canonical-json.js';
import type { ArgumentIssue } from './dynamic-wire.js';

/** The outcome of validating arguments. */
export type ArgumentsCheck =
  | { readonly kind: 'valid' }
  | { readonly kind: 'invalid'; readonly issues: readonly ArgumentIssue[] }
  /** The schema itself cannot be compiled: a fault of the server, not of the caller. */
  | { readonly kind: 'unusable-schema'; readonly message: string };

type Validate = (input: unknown) => { valid: boolean; errorMessage?: string | undefined };

/** Enough for every tool of a large server; beyond it the oldest schema is compiled again. */
const MAX_CACHED_SCHEMAS = 512;

const validator = new AjvJsonSchemaValidator();
const compiled = new Map<string, Validate>();
/**
 * The same validators by schema object: a caller that keeps its listed tools (a gateway's
 * catalog) pays for neither compiling nor canonicalizing the schema again on each request.
 */
const bySchema = new WeakMap<object, Validate>();

function validatorFor(schema: JsonSchemaType): Validate {
  const known = bySchema.get(schema);
  if (known !== undefined) return known;
  const key = canonicalJson(schema);
  const found = compiled.get(key);
  if (found !== undefined) {
    bySchema.set(schema, found);
    return found;
  }
  const validate: Validate = validator.getValidator(schema);
  if (compiled.size >= MAX_CACHED_SCHEMAS) {
    const oldest = compiled.keys().next();
    if (oldest.done !== true) compiled.delete(oldest.value);
  }
  compiled.set(key, validate);
  bySchema.set(schema, validate);
  return validate;
}

/**
 * The validator's message (`data/path must be string, data must have required property
 * 'x'`) as one issue per error, with the JSON pointer apart from the sentence.
 */
export function parseValidationMessage(message: string): ArgumentIssue[] {
  const parts = message.split(/, (?=data(?:\/| ))/);
  return parts.map((part) => {
    const match = /^data(\/\S*)? (.+)$/s.exec(part);
    return match === null
      ? { instancePath: '', message: part }
      : { instancePath: match[1] ?? '', message: match[2] ?? part };
  });
}

/**
 * Validates arguments against a listed input schema. A missing schema accepts any object
 * (MCP requires one, but a server may omit it); the arguments are never changed (no
 * defaults, no coercion).
 */
export function validateArguments(schema: unknown, args: unknown): ArgumentsCheck {
  if (schema === undefined) return { kind: 'valid' };
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { kind: 'unusable-schema', message: 'the input schema is not an object' };
  }
  let validate: Validate;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    return { kind: 'unusable-schema', message: errorMessage(error) };
  }
  const outcome = validate(args);
  if (outcome.valid) return { kind: 'valid' };
  return { kind: 'invalid', issues: parseValidationMessage(outcome.errorMessage ?? 'is invalid') };
}
