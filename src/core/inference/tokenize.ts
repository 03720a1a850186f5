/**
 * Splitting tool names and descriptions into words, before any lexicon lookup.
 *
 * Both scanners walk the string once by character code: no regular expression runs per
 * call, and the only allocations are the words themselves.
 */

/** Character classes the scanners distinguish. */
const SEPARATOR = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;

/** The class of every ASCII character, built once. */
const ASCII_CLASS = new Uint8Array(128).map((_, code) => {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  return SEPARATOR;
});

function classOf(code: number): number {
  if (code < 128) return ASCII_CLASS[code] as number;
  // Letters outside ASCII (é, ß, ü, Greek, Cyrillic, kana, CJK, Hangul) belong to words,
  // with no case boundary; punctuation such as ’ — “ and emoji separate them.
  const letter =
    (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7) ||
    (code >= 0x370 && code <= 0x52f) ||
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xac00 && code <= 0xd7af);
  return letter ? LOWER : SEPARATOR;
}

/** True when `name[at]` is the `s` of an acronym's plural: `URLs`, `IDs`, `APIsList`. */
function isAcronymPlural(name: string, at: number): boolean {
  return (
    name.charCodeAt(at) === 115 &&
    (at + 1 >= name.length || classOf(name.charCodeAt(at + 1)) !== LOWER)
  );
}

/**
 * Splits a tool name into its words as written, keeping their case. Separators are any
 * character that is not a letter or digit (`_`, `-`, `.`, `/`, `:`, spaces); inside a run,
 * a word starts at a lower-to-upper change (`getUser`), at the last capital of an acronym
 * that is followed by a lower-case letter (`getHTTPResponse` → get, HTTP, Response; but
 * `fetchURLs` → fetch, URLs) and at
 * every change between letters and digits (`v2Api` → v, 2, Api).
 *
 * @example splitNameParts('getHTTPResponse') // ['get', 'HTTP', 'Response']
 */
export function splitNameParts(name: string): string[] {
  const parts: string[] = [];
  const length = name.length;
  let start = -1;
  let previous = SEPARATOR;
  for (let i = 0; i < length; i++) {
    const code = name.charCodeAt(i);
    // Inside a word, a lower-case letter after a letter starts nothing: the common case.
    if (code >= 97 && code <= 122 && start >= 0 && previous !== DIGIT) {
      previous = LOWER;
      continue;
    }
    const current = classOf(code);
    if (current === SEPARATOR) {
      if (start >= 0) parts.push(name.slice(start, i));
      start = -1;
      previous = SEPARATOR;
      continue;
    }
    if (start < 0) {
      start = i;
    } else if (
      (previous === LOWER && current === UPPER) ||
      (previous === DIGIT) !== (current === DIGIT) ||
      (previous === UPPER &&
        current === UPPER &&
        i + 1 < length &&
        classOf(name.charCodeAt(i + 1)) === LOWER &&
        !isAcronymPlural(name, i + 1))
    ) {
      parts.push(name.slice(start, i));
      start = i;
    }
    previous = current;
  }
  if (start >= 0) parts.push(name.slice(start));
  return parts;
}

/**
 * Splits a tool name into lower-case words: camelCase, PascalCase (with acronyms),
 * snake_case, kebab-case, dotted and mixed names, with digits as words of their own.
 *
 * @example tokenizeName('repo.delete_fileV2') // ['repo', 'delete', 'file', 'v', '2']
 */
export function tokenizeName(name: string): string[] {
  const parts = splitNameParts(name);
  for (let i = 0; i < parts.length; i++) parts[i] = (parts[i] as string).toLowerCase();
  return parts;
}

/** A description split into words: parallel arrays, one entry per word, in order. */
export interface TokenizedText {
  /**
   * The words in lower case, apostrophes inside kept (`doesn't`; `’` is written `'`). A
   * word's index in this array is its position.
   */
  readonly words: readonly string[];
  /**
   * The clause of each word: a new one starts after `.`, `!`, `?` or `;` followed by a
   * space, and at every line break. Negation never reaches across clauses.
   */
  readonly clauses: readonly number[];
  /** Per word, `TOKEN_CODE` and `TOKEN_LISTED` bits. */
  readonly flags: readonly number[];
}

/**
 * The word is an identifier, not prose: written with `_` or a dot inside,
 * camelCase, or inside backticks. It names another tool, an argument or a path
 * (`delete_file`, `repo.delete`), so it is never read as the tool's own verb.
 */
export const TOKEN_CODE = 1;

/**
 * A list separator (`,`, `/`, `&`, `|`, `+`) stands between the word and the one before it
 * in the same clause: "List, search" or "add/update/delete".
 */
export const TOKEN_LISTED = 2;

const APOSTROPHE = 39;
const RIGHT_QUOTE = 0x2019;
const UNDERSCORE = 95;
const DOT = 46;
const SLASH = 47;
const BACKTICK = 96;
const NEWLINE = 10;
const SPACE = 32;
const FENCE = '```';

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === NEWLINE || code === 13;
}

function isListSeparator(code: number): boolean {
  // , / & | +
  return code === 44 || code === SLASH || code === 38 || code === 124 || code === 43;
}

/** Receives the words of a text as `scanWords` finds them. */
export interface WordVisitor {
  /**
   * One word: its span `[start, end)` in the text, its `hashWord` hash (of the lower-case
   * word), its clause and its `TOKEN_*` flags.
   */
  word(start: number, end: number, hash: number, clause: number, flags: number): void;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** A character as words are compared: ASCII lower case, `’` as `'`. */
function fold(code: number): number {
  if (code >= 65 && code <= 90) return code + 32;
  return code === RIGHT_QUOTE ? APOSTROPHE : code;
}

/**
 * The hash `scanWords` computes for a word (32-bit FNV-1a over its folded characters), so
 * a table of lower-case words can be probed without building the word as a string.
 */
export function hashWord(word: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < word.length; i++)
    hash = Math.imul(hash ^ fold(word.charCodeAt(i)), FNV_PRIME);
  return hash;
}

/** True when `text[start, end)` is `word` once folded; `word` is in lower case. */
export function spanEquals(text: string, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let i = 0; i < word.length; i++) {
    if (fold(text.charCodeAt(start + i)) !== word.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Scans a description once and hands each word to `visitor`, with its clause and whether
 * it is code or follows a list separator. Hyphens separate words (`read-only` → read,
 * only); `_` and `.` between word characters join an identifier (`delete_file`,
 * `repo.delete`), which is then code; a fenced block (```) is skipped whole. No string
 * is built: the visitor gets spans and hashes, and slices only the words it needs.
 */
export function scanWords(text: string, visitor: WordVisitor): void {
  const length = text.length;
  let clause = 0;
  let inBackticks = false;
  let listed = false;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    // A space, the commonest separator, ends nothing and starts nothing.
    if (code === SPACE) {
      i++;
      continue;
    }
    let cls = code < 128 ? (ASCII_CLASS[code] as number) : classOf(code);
    if (cls !== SEPARATOR) {
      const start = i;
      let isCode = inBackticks;
      let previous = cls;
      let hash = Math.imul(FNV_OFFSET ^ fold(code), FNV_PRIME);
      i++;
      while (i < length) {
        const c = text.charCodeAt(i);
        // The common case first, by range rather than by table: a lower-case ASCII letter.
        if (c >= 97 && c <= 122) {
          previous = LOWER;
          hash = Math.imul(hash ^ c, FNV_PRIME);
          i++;
          continue;
        }
        if (c < 128) {
          cls = ASCII_CLASS[c] as number;
          if (cls === DIGIT) {
            previous = cls;
            hash = Math.imul(hash ^ c, FNV_PRIME);
            i++;
            continue;
          }
        } else {
          cls = classOf(c);
        }
        if (cls === SEPARATOR) {
          // Joiners count only between two word characters: "end." is a word and a stop.
          const joiner = c === UNDERSCORE || c === DOT;
          if (!joiner && c !== APOSTROPHE && c !== RIGHT_QUOTE) break;
          if (i + 1 >= length || classOf(text.charCodeAt(i + 1)) === SEPARATOR) break;
          if (joiner) isCode = true;
        } else if (previous === LOWER && cls === UPPER) {
          isCode = true;
        }
        previous = cls;
        hash = Math.imul(hash ^ fold(c), FNV_PRIME);
        i++;
      }
      visitor.word(start, i, hash, clause, (isCode ? TOKEN_CODE : 0) | (listed ? TOKEN_LISTED : 0));
      listed = false;
      continue;
    }
    if (code === BACKTICK) {
      if (text.startsWith(FENCE, i)) {
        // A fenced block is an example, all code: skip it whole, as one clause break.
        const close = text.indexOf(FENCE, i + FENCE.length);
        i = close < 0 ? length : close + FENCE.length;
        clause++;
        inBackticks = false;
        listed = false;
        continue;
      }
      inBackticks = !inBackticks;
    } else if (code === NEWLINE) {
      clause++;
      inBackticks = false;
      listed = false;
    } else if (code === DOT || code === 33 || code === 63 || code === 59) {
      // . ! ? ; end a clause when followed by a space or the end of the text.
      if (i + 1 >= length || isSpace(text.charCodeAt(i + 1))) {
        clause++;
        listed = false;
      }
    } else if (isListSeparator(code)) {
      listed = true;
    }
    i++;
  }
}

/** The lower-case word at `text[start, end)`, `’` written `'`. */
export function sliceWord(text: string, start: number, end: number): string {
  const word = text.slice(start, end).toLowerCase();
  return word.includes('\u2019') ? word.replaceAll('\u2019', "'") : word;
}

class Collector implements WordVisitor {
  readonly words: string[] = [];
  readonly clauses: number[] = [];
  readonly flags: number[] = [];
  constructor(private readonly text: string) {}
  word(start: number, end: number, _hash: number, clause: number, flags: number): void {
    this.words.push(sliceWord(this.text, start, end));
    this.clauses.push(clause);
    this.flags.push(flags);
  }
}

/**
 * Splits a description into lower-case words, with each word's clause and whether it is
 * code or follows a list separator, as `scanWords` finds them.
 *
 * @example tokenizeText('Lists files. Does not modify them.').words
 *   // ['lists', 'files', 'does', 'not', 'modify', 'them']
 */
export function tokenizeText(text: string): TokenizedText {
  const collector = new Collector(text);
  scanWords(text, collector);
  return { words: collector.words, clauses: collector.clauses, flags: collector.flags };
}
