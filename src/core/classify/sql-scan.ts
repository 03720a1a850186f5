/**
 * Small readers over a statement's tokens: keywords, parentheses, qualified names.
 */
import type { SqlToken } from './sql-lexer.js';

/** True when `token` is the (lower-case) keyword or unquoted name `word`. */
export function isWord(token: SqlToken | undefined, word: string): boolean {
  return token !== undefined && token.kind === 'word' && token.text === word;
}

/** True when `token` is the operator `op`. */
export function isOp(token: SqlToken | undefined, op: string): boolean {
  return token !== undefined && token.kind === 'op' && token.text === op;
}

/** The lower-case name a word or quoted identifier stands for, else `undefined`. */
export function nameOf(token: SqlToken | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (token.kind === 'word') return token.text;
  if (token.kind === 'ident') return token.text.toLowerCase();
  return undefined;
}

/** The index of the `)` closing the `(` at `open`, or `to` when it is never closed. */
export function matchingClose(tokens: readonly SqlToken[], open: number, to: number): number {
  let depth = 0;
  for (let i = open; i < to; i++) {
    const token = tokens[i] as SqlToken;
    if (token.kind !== 'op') continue;
    if (token.text === '(') depth++;
    else if (token.text === ')' && --depth === 0) return i;
  }
  return to;
}

/**
 * The index of the first token in `[from, to)` at `depth` that is one of `words`, or
 * `to` when there is none.
 */
export function findWord(
  tokens: readonly SqlToken[],
  from: number,
  to: number,
  depth: number,
  words: ReadonlySet<string>,
): number {
  for (let i = from; i < to; i++) {
    const token = tokens[i] as SqlToken;
    if (token.depth === depth && token.kind === 'word' && words.has(token.text)) return i;
  }
  return to;
}

/** A possibly qualified name (`schema.table`, `"My Table"`), read from `start`. */
export interface QualifiedName {
  /** The last part, lower case. */
  readonly name: string;
  /** The index after the name. */
  readonly next: number;
}

/** Reads `a.b.c` (any part quoted) from `start`; `undefined` when no name starts there. */
export function readQualifiedName(
  tokens: readonly SqlToken[],
  start: number,
  to: number,
): QualifiedName | undefined {
  let name = nameOf(tokens[start]);
  if (name === undefined || start >= to) return undefined;
  let i = start + 1;
  while (i + 1 < to && isOp(tokens[i], '.')) {
    const part = nameOf(tokens[i + 1]);
    if (part === undefined) break;
    name = part;
    i += 2;
  }
  return { name, next: i };
}

/** Skips the words in `skip` from `start`; returns the first index that is not one. */
export function skipWords(
  tokens: readonly SqlToken[],
  start: number,
  to: number,
  skip: ReadonlySet<string>,
): number {
  let i = start;
  while (i < to) {
    const token = tokens[i] as SqlToken;
    if (token.kind !== 'word' || !skip.has(token.text)) break;
    i++;
  }
  return i;
}

/** The source text of tokens `[from, to)`, given where the range ends in the source. */
export function sourceOf(
  src: string,
  tokens: readonly SqlToken[],
  from: number,
  to: number,
  end: number,
): string {
  const first = tokens[from];
  if (first === undefined) return '';
  const stop = tokens[to]?.start ?? end;
  return src.slice(first.start, stop);
}

/** Splits a word list written as one string into a set, once, at module load. */
export function wordSet(list: string): ReadonlySet<string> {
  return new Set(list.split(' ').filter((word) => word.length > 0));
}
