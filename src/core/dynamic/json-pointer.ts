/**
 * JSON Pointers (RFC 6901), parsed once and then evaluated against arguments.
 */

/** A parsed pointer: its reference tokens, unescaped (`~1` → `/`, `~0` → `~`). */
export type JsonPointer = readonly string[];

/** A pointer that failed to parse, and why. */
export interface PointerError {
  readonly error: string;
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;
const BAD_ESCAPE = /~(?![01])/;

/**
 * Parses a JSON Pointer: `""` is the whole document, otherwise it starts with `/` and each
 * token has `~1` for `/` and `~0` for `~` (decoded in that order, as RFC 6901 requires, so
 * `~01` is `~1`). A `~` followed by anything else is an error.
 *
 * @example parseJsonPointer('/a~1b/c~0d') // ['a/b', 'c~d']
 */
export function parseJsonPointer(pointer: string): JsonPointer | PointerError {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return { error: 'a JSON Pointer is empty or starts with "/"' };
  if (BAD_ESCAPE.test(pointer))
    return { error: '"~" must be followed by 0 or 1 in a JSON Pointer' };
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** True when `parsed` is an error rather than a pointer. */
export function isPointerError(parsed: JsonPointer | PointerError): parsed is PointerError {
  return !Array.isArray(parsed);
}

/**
 * The value a pointer refers to, or `undefined` when there is none. Only own properties
 * count (`/constructor` finds nothing in `{}`); array tokens must be canonical indexes
 * (`0`, `12`; not `01` or `-`).
 */
export function resolveJsonPointer(document: unknown, pointer: JsonPointer): unknown {
  let current: unknown = document;
  for (const token of pointer) {
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(token)) return undefined;
      current = (current as readonly unknown[])[Number(token)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, token)) {
      current = (current as Readonly<Record<string, unknown>>)[token];
    } else {
      return undefined;
    }
  }
  return current;
}

/** Builds the pointer of a property path (`['request', 'method']` → `/request/method`). */
export function formatJsonPointer(tokens: readonly string[]): string {
  return tokens.map((token) => `/${token.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
