/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/** Key words that mark a value as secret wherever they appear in a key. */
const SECRET_FRAGMENTS = /password|passwd|passphrase|secret|token|authorization|cookie|credential/;
/** Key words that mark a value as secret when they are a whole word of the key. */
const SECRET_WORDS = new Set(['key', 'apikey', 'pwd', 'auth', 'bearer', 'jwt', 'otp']);
const WORD_BOUNDARY = /(?<=[a-z0-9])(?=[A-Z])|[^A-Za-z0-9]+/;
/** Deeper values are cut off (arguments are data from a model, not adversarial depth). */
const MAX_DEPTH = 32;

/**
 * True for a key whose value should never be stored: it contains `password`, `secret`,
 * `token`, `authorization`, `cookie` or `credential` (any case), or one of its words
 * (camelCase, snake_case, kebab-case) is `key`, `apiKey`, `auth` and the like. `keyword`
 * or `monkey` are not secret; `apiKey`, `x-api-key`, `access_token` are.
 *
 * @example isSecretKey('X-Api-Key') // true
 */
export function isSecretKey(key: string): boolean {
  let secret = KNOWN_KEYS.get(key);
  if (secret === undefined) {
    secret = classifyKey(key);
    // Argument names repeat from call to call: remember them (a bounded number).
    if (KNOWN_KEYS.size >= MAX_KNOWN_KEYS) KNOWN_KEYS.clear();
    KNOWN_KEYS.set(key, secret);
  }
  return secret;
}

const KNOWN_KEYS = new Map<string, boolean>();
const MAX_KNOWN_KEYS = 10_000;

function classifyKey(key: string): boolean {
  if (SECRET_FRAGMENTS.test(key.toLowerCase())) return true;
  for (const word of key.split(WORD_BOUNDARY)) {
    if (SECRET_WORDS.has(word.toLowerCase())) return true;
  }
  return false;
}

/**
 * A copy of `value` with the value under every secret-looking key (see {@link isSecretKey}),
 * at any depth, replaced by `"[redacted]"`. The input is not modified; values that need no
 * change are shared with it.
 *
 * @example redactSecrets({ user: 'a', auth: { password: 'p' } }) // { user: 'a', auth: '[redacted]' }
 */
export function redactSecrets(value: unknown): unknown {
  return redact(value, 0);
}

function redact(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) {
    const items = value as readonly unknown[];
    let copy: unknown[] | undefined;
    for (let index = 0; index < items.length; index++) {
      const item = items[index];
      const next = redact(item, depth + 1);
      if (next !== item) (copy ??= [...items])[index] = next;
    }
    return copy ?? value;
  }
  const source = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(source)) {
    const item = source[key];
    const next = isSecretKey(key) ? REDACTED : redact(item, depth + 1);
    if (next !== item) (copy ??= { ...source })[key] = next;
  }
  return copy ?? value;
}
