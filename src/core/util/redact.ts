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

/** Values that look like credentials wherever they appear: bearer tokens and URL passwords. */
const SECRET_VALUES: readonly [RegExp, string][] = [
  [/\b(Bearer\s+)\S+/gi, `$1${REDACTED}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  // Well-known token shapes: GitHub, Slack, OpenAI/Anthropic-style keys, AWS access keys.
  [
    /\b(gh[pousr]_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16})\b/g,
    REDACTED,
  ],
];

/**
 * A command line (its words) with secrets masked, for logs: the value of an option whose
 * name looks secret (`--password=…`, `--api-key …`, `-p`'s value is not guessed), a
 * `NAME=value` word with a secret-looking name, bearer tokens, passwords inside URLs and
 * well-known token shapes.
 *
 * @example redactCommandLine(['db', '--password=hunter2']) // 'db --password=[redacted]'
 */
export function redactCommandLine(words: readonly string[]): string {
  const out: string[] = [];
  let hideNext = false;
  for (const word of words) {
    if (hideNext) {
      out.push(REDACTED);
      hideNext = false;
      continue;
    }
    const option = /^(--?[A-Za-z0-9][\w-]*)(=)?/.exec(word);
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word);
    if (option !== null && isSecretKey(option[1]!.replace(/^-+/, ''))) {
      if (option[2] === '=') out.push(`${option[0]}${REDACTED}`);
      else {
        out.push(word);
        hideNext = true;
      }
      continue;
    }
    if (assignment !== null && isSecretKey(assignment[1]!)) {
      out.push(`${assignment[0]}${REDACTED}`);
      continue;
    }
    out.push(redactSecretText(word));
  }
  return out.join(' ');
}

/** `text` with bearer tokens, URL passwords and well-known token shapes masked. */
export function redactSecretText(text: string): string {
  let result = text;
  for (const [pattern, replacement] of SECRET_VALUES) result = result.replace(pattern, replacement);
  return result;
}
