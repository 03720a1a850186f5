/**
 * The HTTP classifier: a request's method (RFC 9110 semantics), with its path in the
 * reason, and, for a GraphQL endpoint, the operations of the document it posts.
 */
import { graphqlFindings } from './graphql.js';
import type { CallHints, ClassifierResult, Finding } from './hints.js';
import {
  ADDITIVE,
  CONSERVATIVE,
  DESTRUCTIVE,
  DESTRUCTIVE_IDEMPOTENT,
  READ,
  combineFindings,
  excerpt,
  finding,
} from './hints.js';

/** What a method does. */
export interface HttpMethodEffect {
  readonly method: string;
  readonly hints: CallHints;
  readonly phrase: string;
}

/**
 * The method table. Safe methods (GET, HEAD, OPTIONS, TRACE) are read-only and idempotent;
 * PUT replaces the target (destructive, idempotent); DELETE removes it (destructive,
 * idempotent); POST creates or submits (additive, not idempotent); PATCH changes the
 * target in place (destructive, and not idempotent: a patch may append or increment).
 * CONNECT and unknown methods are conservative.
 */
const METHODS: ReadonlyMap<string, readonly [CallHints, string]> = new Map([
  ['GET', [READ, 'is a safe method: it only reads']],
  ['HEAD', [READ, 'is a safe method: it only reads']],
  ['OPTIONS', [READ, 'is a safe method: it only reads']],
  ['TRACE', [READ, 'is a safe method: it only reads']],
  ['PUT', [DESTRUCTIVE_IDEMPOTENT, 'replaces the target: destructive, and idempotent']],
  ['DELETE', [DESTRUCTIVE_IDEMPOTENT, 'removes the target: destructive, and idempotent']],
  ['POST', [ADDITIVE, 'creates or submits: additive, not idempotent']],
  ['PATCH', [DESTRUCTIVE, 'changes the target in place: destructive, not idempotent']],
]);

/** A path that names a GraphQL endpoint (`/graphql`, `/api/graphql?x`). */
const GRAPHQL_PATH = /\/graphql(?:[/?#]|$)/i;

/** The effect of an HTTP method (any case); `undefined` for a method not in the table. */
export function httpMethodEffect(method: string): HttpMethodEffect | undefined {
  const upper = method.trim().toUpperCase();
  const known = METHODS.get(upper);
  return known === undefined ? undefined : { method: upper, hints: known[0], phrase: known[1] };
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The GraphQL documents in a request body: a string, `{ query }`, or a batch of them. */
function documentsOf(body: unknown): string[] | undefined {
  if (typeof body === 'string') {
    const trimmed = body.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        const documents = documentsOf(parsed);
        if (documents !== undefined) return documents;
      } catch {
        // Not JSON: a document written directly, such as the shorthand `{ viewer { login } }`.
      }
    }
    return trimmed === '' ? undefined : [trimmed];
  }
  if (Array.isArray(body)) {
    const documents = body.map((item) => documentsOf(item));
    return documents.every((item) => item !== undefined) ? documents.flat() : undefined;
  }
  if (isRecord(body) && typeof body['query'] === 'string') return [body['query']];
  return undefined;
}

/**
 * Classifies an HTTP request by its method, naming the path in the reason
 * (`DELETE /repos/{owner}/{repo}`). A POST to a GraphQL path (`…/graphql`) is read from its
 * body instead: queries only read, mutations by the verbs of their fields, an unreadable
 * body is conservative. An unknown method is conservative too.
 *
 * @example classifyHttpRequest('DELETE', '/repos/{owner}/{repo}')?.annotations
 * // { readOnlyHint: false, destructiveHint: true, idempotentHint: true }
 */
export function classifyHttpRequest(
  method: string,
  path?: string,
  body?: unknown,
): ClassifierResult | undefined {
  const known = httpMethodEffect(method);
  const upper = method.trim().toUpperCase();
  const target = path === undefined || path === '' ? upper : `${upper} ${excerpt(path, 80)}`;
  const label = `HTTP \`${target}\``;
  if (upper === '') return undefined;
  if (known === undefined) {
    return combineFindings([
      finding(CONSERVATIVE, upper, 'http-unknown', `${label} uses a method hintgate does not know`),
    ]);
  }
  if (upper === 'POST' && path !== undefined && GRAPHQL_PATH.test(path)) {
    const documents = documentsOf(body);
    const findings: Finding[] =
      documents === undefined
        ? [
            finding(
              CONSERVATIVE,
              'POST',
              'graphql-unknown',
              `${label} posts a GraphQL request hintgate cannot read`,
            ),
          ]
        : documents.flatMap((document) => graphqlFindings(document, label));
    return (
      combineFindings(findings) ??
      combineFindings([
        finding(
          CONSERVATIVE,
          'POST',
          'graphql-unknown',
          `${label} posts an empty GraphQL document`,
        ),
      ])
    );
  }
  const rule = `http-${upper.toLowerCase()}`;
  return combineFindings([finding(known.hints, upper, rule, `${label} ${known.phrase}`)]);
}
