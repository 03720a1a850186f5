/**
 * An operation's request body as tool arguments: an object body's properties beside the
 * parameters when that is unambiguous, else the whole body under one argument.
 */
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';
import type { SchemaDialect } from './schema.js';
import { toJsonSchema } from './schema.js';

/** How a call's arguments become the request body. */
export type BodyPlan =
  | {
      readonly kind: 'flat';
      readonly mediaType: string;
      /** The arguments that are the body's properties. */
      readonly arguments: readonly string[];
    }
  | { readonly kind: 'whole'; readonly mediaType: string; readonly argument: string };

/** The body's plan, and the input schema properties (and required ones) it adds. */
export interface BodyArguments {
  readonly plan: BodyPlan;
  readonly properties: JsonObject;
  readonly required: readonly string[];
}

/** Media types hintgate can write, best first. */
const PREFERRED = [
  'json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
];

/**
 * The body's arguments. Flattened when the body is an object schema with named properties
 * (and nothing that composes or extends it), none of them named like a parameter, and the
 * body is required (else its required properties would be required without a body); under
 * `body` (or `requestBody`, when a parameter is named `body`) otherwise.
 */
export function bodyPlanOf(
  requestBody: unknown,
  version: SchemaDialect,
  parameterNames: ReadonlySet<string>,
): BodyArguments | undefined {
  if (!isJsonObject(requestBody) || !isJsonObject(requestBody['content'])) return undefined;
  const content = requestBody['content'];
  const mediaType = chooseMediaType(Object.keys(content));
  if (mediaType === undefined) return undefined;
  const media = content[mediaType];
  const schema = toJsonSchema(isJsonObject(media) ? media['schema'] : undefined, version);
  const required = requestBody['required'] === true;
  const properties = schema['properties'];
  const flat =
    required &&
    !mediaType.startsWith('text/') &&
    (schema['type'] === 'object' || schema['type'] === undefined) &&
    isJsonObject(properties) &&
    Object.keys(properties).length > 0 &&
    !['allOf', 'anyOf', 'oneOf', 'patternProperties', 'not', 'if'].some((key) => key in schema) &&
    (schema['additionalProperties'] === undefined || schema['additionalProperties'] === false) &&
    Object.keys(properties).every((name) => !parameterNames.has(name));
  if (flat) {
    const names = Object.keys(properties);
    const needed = Array.isArray(schema['required'])
      ? schema['required'].filter((name): name is string => names.includes(String(name)))
      : [];
    return {
      plan: { kind: 'flat', mediaType, arguments: names },
      properties: { ...properties },
      required: needed,
    };
  }
  const argument = parameterNames.has('body') ? 'requestBody' : 'body';
  const description =
    typeof requestBody['description'] === 'string' ? requestBody['description'] : undefined;
  return {
    plan: { kind: 'whole', mediaType, argument },
    properties: {
      [argument]: description === undefined ? schema : { ...schema, description },
    },
    required: required ? [argument] : [],
  };
}

function chooseMediaType(types: readonly string[]): string | undefined {
  for (const wanted of PREFERRED) {
    const found = types.find((type) =>
      wanted === 'json' ? /json/i.test(type) : type.toLowerCase().startsWith(wanted),
    );
    if (found !== undefined) return found;
  }
  return types[0];
}
