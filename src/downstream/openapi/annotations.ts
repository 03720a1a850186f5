/**
 * The annotations of an OpenAPI operation's tool, inferred from its HTTP method by the
 * published table (`inferFromHttpMethod`, RFC 9110's semantics):
 *
 * | method             | readOnly | destructive | idempotent |
 * | ------------------ | -------- | ----------- | ---------- |
 * | GET, HEAD, OPTIONS | true     | false       | true       |
 * | PUT                | false    | true        | true       |
 * | PATCH              | false    | true        | false      |
 * | DELETE             | false    | true        | true       |
 * | POST               | false    | false*      | false      |
 *
 * (*) unless the operation's words (name, description, schema) say it destroys, as core
 * inference reads them. `openWorldHint` follows the host of the base URL: true for an
 * external host, false for loopback or a private network. Any other method is read from
 * its words alone. The values are `inferred`, each with its reason; an operation's
 * `x-mcp-annotations` are its declared annotations, and user overrides rank above both.
 */
import type { InferenceReason, InferenceResult } from '../../core/inference/types.js';
import { inferFromHttpMethod } from '../../core/inference/http-method.js';
import { inferAnnotations } from '../../core/inference/infer.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';

/** The `_meta` key under which an operation's tool says what it calls. */
export const OPENAPI_META_KEY = 'dev.hintgate/openapi';

/** Where an API lives, as far as `openWorldHint` is concerned. */
export type HostKind = 'loopback' | 'private' | 'external';

/** What an operation's tool carries under {@link OPENAPI_META_KEY}. */
export interface OpenApiToolMeta {
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  readonly host: HostKind;
}

/**
 * The inferred annotations of a tool made from an OpenAPI operation (see the table above),
 * or undefined for a tool that is not one (no {@link OPENAPI_META_KEY} in its `_meta`).
 * Only tools of `openapi` servers are read this way: hintgate lists those itself.
 */
export function inferOpenApiAnnotations(tool: JsonObject): InferenceResult | undefined {
  const meta = openApiMetaOf(tool);
  const name = tool['name'];
  if (meta === undefined || typeof name !== 'string') return undefined;
  const description = typeof tool['description'] === 'string' ? tool['description'] : undefined;
  const words = inferAnnotations({ name, description, inputSchema: tool['inputSchema'] });
  const byMethod = inferFromHttpMethod(meta.method);
  const annotations = { ...words.annotations, ...byMethod.annotations };
  const reasons: Record<string, InferenceReason | undefined> = {
    ...words.reasons,
    ...byMethod.reasons,
  };
  if (meta.method === 'POST' && words.annotations.destructiveHint === true) {
    annotations.destructiveHint = true;
    reasons['destructiveHint'] = words.reasons['destructiveHint'];
  }
  // The operation's summary is its title (the words' humanized name is a guess).
  const title = tool['title'];
  if (typeof title === 'string' && title !== '') {
    annotations.title = title;
    reasons['title'] = {
      part: 'description',
      word: title,
      rule: 'openapi-summary',
      strength: 'weak',
      text: "the operation's summary",
    };
  }
  annotations.openWorldHint = meta.host === 'external';
  reasons['openWorldHint'] = {
    part: 'method',
    word: meta.host,
    rule: 'openapi-host',
    strength: 'weak',
    text: HOST_REASONS[meta.host],
  };
  return { annotations, reasons };
}

const HOST_REASONS: Readonly<Record<HostKind, string>> = {
  external: 'the API is on an external host',
  private: 'the API is on a private network',
  loopback: 'the API is on this machine (loopback)',
};

function openApiMetaOf(tool: JsonObject): OpenApiToolMeta | undefined {
  const meta = tool['_meta'];
  const ours = isJsonObject(meta) ? meta[OPENAPI_META_KEY] : undefined;
  if (!isJsonObject(ours) || typeof ours['method'] !== 'string' || typeof ours['path'] !== 'string')
    return undefined;
  const host = ours['host'];
  return {
    method: ours['method'].toUpperCase(),
    path: ours['path'],
    host: host === 'loopback' || host === 'private' ? host : 'external',
  };
}

/** Loopback, a private network (RFC 1918, unique local, `.local`, `.internal`), or external. */
export function hostKindOf(url: string): HostKind {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return 'external';
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return 'loopback';
  if (/^127\./.test(host) || host === '0.0.0.0') return 'loopback';
  if (
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    /^169\.254\./.test(host) ||
    /^f[cd][0-9a-f]{2}:/.test(host) ||
    /^fe80:/.test(host) ||
    host.endsWith('.local') ||
    host.endsWith('.internal') ||
    host.endsWith('.lan') ||
    (!host.includes('.') && !host.includes(':'))
  )
    return 'private';
  return 'external';
}
