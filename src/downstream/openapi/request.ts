/**
 * One call of an operation: the arguments placed in the path, query, headers, cookies and
 * body as the document says, the security scheme filled from configured credentials, the
 * request sent with Node's fetch, and the answer as an MCP tool result (JSON as text and
 * `structuredContent`; a non-2xx status as `isError` with the status and the body's message).
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { errorMessage } from '../../core/errors.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';
import type { BodyPlan } from './body.js';
import type { OperationPlan, ParameterPlan } from './operations.js';
import { isJsonType } from './operations.js';

/** What every call of one server shares. */
export interface CallSettings {
  /** Sent with every request (the config's `headers`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Secrets by security scheme name (the config's `credentials`). */
  readonly credentials: Readonly<Record<string, string>>;
  /** The document's `components.securitySchemes`. */
  readonly schemes: JsonObject;
  /** The longest one request may take (the call path may cancel it sooner). */
  readonly timeoutMs: number;
}

/** A tool result, as MCP's `CallToolResult`. */
export type ToolResult = JsonObject & { content: JsonObject[] };

const MESSAGE_LIMIT = 2_000;

/** Calls one operation; rejects only when `signal` aborts (the caller cancelled). */
export async function callOperation(
  plan: OperationPlan,
  args: JsonObject,
  settings: CallSettings,
  signal: AbortSignal,
): Promise<ToolResult> {
  const missing = plan.parameters.find((p) => p.in === 'path' && args[p.argument] === undefined);
  if (missing !== undefined) return failure(`missing the path argument "${missing.argument}"`);
  const request = buildRequest(plan, args, settings);
  let response: Response;
  let text: string;
  const limit = AbortSignal.timeout(settings.timeoutMs);
  try {
    response = await fetch(request.url, {
      method: plan.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.any([signal, limit]),
    });
    text = await response.text();
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (limit.aborted)
      return failure(`${plan.method} ${plan.path}: no answer within ${settings.timeoutMs} ms`);
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    return failure(`${plan.method} ${plan.path} failed: ${errorMessage(cause)}`);
  }
  return toResult(plan, response, text);
}

interface BuiltRequest {
  readonly url: string;
  readonly headers: Headers;
  readonly body: string | FormData | URLSearchParams | undefined;
}

function buildRequest(plan: OperationPlan, args: JsonObject, settings: CallSettings): BuiltRequest {
  let path = plan.path;
  const query = new URLSearchParams();
  const headers = new Headers(settings.headers);
  const cookies: string[] = [];
  for (const parameter of plan.parameters) {
    const value = args[parameter.argument];
    if (value === undefined || value === null) continue;
    switch (parameter.in) {
      case 'path':
        path = path.replaceAll(`{${parameter.name}}`, encodeURIComponent(scalar(value)));
        break;
      case 'query':
        addQuery(query, parameter, value);
        break;
      case 'header':
        headers.set(parameter.name, scalar(value));
        break;
      case 'cookie':
        cookies.push(`${parameter.name}=${encodeURIComponent(scalar(value))}`);
        break;
    }
  }
  applySecurity(plan, settings, headers, query, cookies);
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  if (!headers.has('accept')) headers.set('accept', 'application/json, */*;q=0.5');
  const body = plan.body === undefined ? undefined : bodyOf(plan.body, args, headers);
  const search = query.toString();
  const url = `${plan.baseUrl.replace(/\/+$/, '')}${path}${search === '' ? '' : `?${search}`}`;
  return { url, headers, body };
}

/** OpenAPI's default query style, `form`: arrays repeated (or comma-joined), objects spread. */
function addQuery(query: URLSearchParams, parameter: ParameterPlan, value: unknown): void {
  const style = parameter.style ?? 'form';
  const explode = parameter.explode ?? style === 'form';
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    if (explode) for (const item of items) query.append(parameter.name, item);
    else query.append(parameter.name, items.join(style === 'pipeDelimited' ? '|' : ','));
  } else if (isJsonObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (style === 'deepObject') {
      for (const [key, item] of entries) query.append(`${parameter.name}[${key}]`, scalar(item));
    } else if (explode) {
      for (const [key, item] of entries) query.append(key, scalar(item));
    } else {
      query.append(parameter.name, entries.flatMap(([key, item]) => [key, scalar(item)]).join(','));
    }
  } else {
    query.append(parameter.name, scalar(value));
  }
}

/**
 * The first alternative of the operation's security whose schemes all have credentials
 * (bearer, basic, or an API key in a header, query parameter or cookie). Without one the
 * request goes as it is (configured headers may carry the credentials), and the API's
 * answer says what is missing.
 */
function applySecurity(
  plan: OperationPlan,
  settings: CallSettings,
  headers: Headers,
  query: URLSearchParams,
  cookies: string[],
): void {
  const usable = plan.security.find((names) =>
    names.every((name) => settings.credentials[name] !== undefined),
  );
  for (const name of usable ?? []) {
    const scheme = settings.schemes[name];
    const secret = settings.credentials[name] as string;
    if (!isJsonObject(scheme)) continue;
    const type = String(scheme['type']).toLowerCase();
    if (type === 'http') {
      const kind = String(scheme['scheme']).toLowerCase();
      if (kind === 'basic')
        headers.set('authorization', `Basic ${Buffer.from(secret).toString('base64')}`);
      else
        headers.set(
          'authorization',
          `${kind === 'bearer' ? 'Bearer' : String(scheme['scheme'])} ${secret}`,
        );
    } else if (type === 'apikey' && typeof scheme['name'] === 'string') {
      if (scheme['in'] === 'query') query.set(scheme['name'], secret);
      else if (scheme['in'] === 'cookie')
        cookies.push(`${scheme['name']}=${encodeURIComponent(secret)}`);
      else headers.set(scheme['name'], secret);
    } else if (type === 'oauth2' || type === 'openidconnect') {
      headers.set('authorization', `Bearer ${secret}`);
    }
  }
}

function bodyOf(
  plan: BodyPlan,
  args: JsonObject,
  headers: Headers,
): string | FormData | URLSearchParams | undefined {
  let value: unknown;
  if (plan.kind === 'whole') {
    value = args[plan.argument];
  } else {
    const fields = plan.arguments.filter((name) => args[name] !== undefined);
    value =
      fields.length === 0
        ? undefined
        : Object.fromEntries(fields.map((name) => [name, args[name]]));
  }
  if (value === undefined) return undefined;
  const type = plan.mediaType.toLowerCase();
  if (
    type.startsWith('application/x-www-form-urlencoded') ||
    type.startsWith('multipart/form-data')
  ) {
    const form = type.startsWith('multipart') ? new FormData() : new URLSearchParams();
    if (isJsonObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (item !== undefined)
          form.append(key, typeof item === 'object' ? JSON.stringify(item) : scalar(item));
      }
    }
    // fetch sets the content type (with the multipart boundary) itself.
    return form;
  }
  headers.set('content-type', plan.mediaType);
  if (isJsonType(type)) return JSON.stringify(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

function toResult(plan: OperationPlan, response: Response, text: string): ToolResult {
  const type = response.headers.get('content-type') ?? '';
  let json: unknown;
  if (isJsonType(type) && text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  const status = `HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
  if (!response.ok) {
    return failure(`${plan.method} ${plan.path} answered ${status}: ${messageOf(json, text)}`);
  }
  const content = [{ type: 'text', text: text === '' ? status : text }];
  if (plan.outputSchema === undefined || json === undefined) return { content };
  const structured: unknown = plan.wrapsResult ? { result: json } : json;
  const problem = checkOutput(plan.outputSchema, structured);
  if (problem !== undefined) {
    return failure(
      `${plan.method} ${plan.path} answered ${status}, but its body does not match the documented response schema (${problem}): ${text.slice(0, MESSAGE_LIMIT)}`,
    );
  }
  return { content, structuredContent: structured };
}

/** The error's own words: `message`, `error`, `detail` or `title` of a JSON body, else the text. */
function messageOf(json: unknown, text: string): string {
  if (isJsonObject(json)) {
    const error = json['error'];
    const errors = json['errors'];
    const candidates = [
      json['message'],
      typeof error === 'string' ? error : isJsonObject(error) ? error['message'] : undefined,
      json['detail'],
      json['title'],
      Array.isArray(errors) && isJsonObject(errors[0]) ? errors[0]['message'] : undefined,
    ];
    const found = candidates.find((c): c is string => typeof c === 'string' && c !== '');
    if (found !== undefined) return found.slice(0, MESSAGE_LIMIT);
  }
  const trimmed = text.trim();
  return trimmed === '' ? '(no body)' : trimmed.slice(0, MESSAGE_LIMIT);
}

function failure(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

const validator = new AjvJsonSchemaValidator();
const validators = new WeakMap<JsonObject, (value: unknown) => string | undefined>();

/** Undefined when `value` matches `schema`, else the validator's message. */
function checkOutput(schema: JsonObject, value: unknown): string | undefined {
  let check = validators.get(schema);
  if (check === undefined) {
    try {
      const validate = validator.getValidator(schema);
      check = (input) => {
        const result = validate(input);
        return result.valid ? undefined : (result.errorMessage ?? 'invalid');
      };
    } catch {
      // A schema the validator cannot compile checks nothing.
      check = () => undefined;
    }
    validators.set(schema, check);
  }
  return check(value);
}
