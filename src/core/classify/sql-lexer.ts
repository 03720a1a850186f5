/**
 * A SQL lexer for classification, not parsing: it finds the words, quoted names, literals
 * and punctuation of a script, skips comments, and splits statements on `;`.
 *
 * Dialects disagree on what hides text: PostgreSQL has dollar quotes and nested comments,
 * MySQL has backslash escapes in strings, `#` comments and `/*! … *\/` comments it runs,
 * SQLite has none of these. A script that uses any of those constructs is lexed once per
 * dialect family (see {@link SQL_DIALECTS}) and the caller takes the worst reading, so
 * `SELECT 'a\'; DROP TABLE t; --'` is a DROP for PostgreSQL even though MySQL reads one
 * string.
 */

/** What a token is. `meta` is a psql backslash command, whole to the end of its line. */
export type SqlTokenKind = 'word' | 'ident' | 'string' | 'number' | 'param' | 'op' | 'meta';

/** One token. */
export interface SqlToken {
  readonly kind: SqlTokenKind;
  /**
   * `word`: lower case; `ident` and `string`: the content between the quotes (escapes not
   * undone); `op`: the operator; `meta`: the command line after the backslash.
   */
  readonly text: string;
  /** Parenthesis depth within its statement (a `(` has the depth outside it). */
  readonly depth: number;
  /** Offset in the source. */
  readonly start: number;
}

/** One statement: its tokens and where it is in the source. */
export interface SqlStatement {
  readonly tokens: readonly SqlToken[];
  readonly start: number;
  readonly end: number;
}

/** The lexical rules that differ between dialect families. */
export interface SqlDialect {
  readonly name: string;
  /** `\'` escapes a quote inside '…' and "…" (MySQL); E'…' strings always have it. */
  readonly backslashEscapes: boolean;
  /** `$$…$$` and `$tag$…$tag$` are strings (PostgreSQL). */
  readonly dollarQuotes: boolean;
  /** `#` starts a line comment (MySQL). */
  readonly hashComments: boolean;
  /** Block comments nest (PostgreSQL). */
  readonly nestedComments: boolean;
  /** `/*! … *\/` is code, not a comment (MySQL). */
  readonly executableComments: boolean;
  /** `--` starts a comment only when followed by a space or control character (MySQL). */
  readonly dashCommentNeedsSpace: boolean;
}

/** PostgreSQL first (the common case), then MySQL and SQLite (standard SQL lexing). */
export const SQL_DIALECTS: readonly SqlDialect[] = [
  {
    name: 'PostgreSQL',
    backslashEscapes: false,
    dollarQuotes: true,
    hashComments: false,
    nestedComments: true,
    executableComments: false,
    dashCommentNeedsSpace: false,
  },
  {
    name: 'MySQL',
    backslashEscapes: true,
    dollarQuotes: false,
    hashComments: true,
    nestedComments: false,
    executableComments: true,
    dashCommentNeedsSpace: true,
  },
  {
    name: 'SQLite',
    backslashEscapes: false,
    dollarQuotes: false,
    hashComments: false,
    nestedComments: false,
    executableComments: false,
    dashCommentNeedsSpace: false,
  },
];

/** The statements of a script and whether other dialects could read it differently. */
export interface SqlLexResult {
  readonly statements: readonly SqlStatement[];
  /** True when the script uses a construct on which the dialect families disagree. */
  readonly ambiguous: boolean;
}

const SINGLE_QUOTE = 39;
const DOUBLE_QUOTE = 34;
const BACKTICK = 96;
const BACKSLASH = 92;
const DOLLAR = 36;
const DASH = 45;
const SLASH = 47;
const STAR = 42;
const HASH = 35;
const SEMICOLON = 59;
const OPEN_PAREN = 40;
const CLOSE_PAREN = 41;
const BANG = 33;

function isWordStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c >= 128;
}

function isWordPart(c: number): boolean {
  return isWordStart(c) || (c >= 48 && c <= 57) || c === DOLLAR;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;
}

/** Characters that form multi-character operators together (`<>`, `||`, `::`, `->>`). */
const OPERATOR_CHARS = new Set('+-*/<>=~!@#%^&|?:'.split('').map((c) => c.charCodeAt(0)));

class Lexer {
  private readonly statements: SqlStatement[] = [];
  private tokens: SqlToken[] = [];
  private depth = 0;
  private statementStart = 0;
  ambiguous = false;

  constructor(
    private readonly src: string,
    private readonly dialect: SqlDialect,
  ) {}

  run(): SqlStatement[] {
    const src = this.src;
    const length = src.length;
    let i = 0;
    while (i < length) {
      const c = src.charCodeAt(i);
      if (isSpace(c)) {
        i++;
      } else if (c === DASH && src.charCodeAt(i + 1) === DASH && this.dashComment(i)) {
        i = this.lineEnd(i);
      } else if (c === HASH && this.dialect.hashComments) {
        i = this.lineEnd(i);
      } else if (c === SLASH && src.charCodeAt(i + 1) === STAR) {
        i = this.blockComment(i);
      } else if (c === SEMICOLON) {
        this.endStatement(i);
        i++;
        this.statementStart = i;
      } else if (c === SINGLE_QUOTE) {
        i = this.quoted(i, SINGLE_QUOTE, 'string', this.dialect.backslashEscapes);
      } else if (c === DOUBLE_QUOTE) {
        // An identifier in standard SQL, a string in MySQL: either way its text is hidden.
        i = this.quoted(i, DOUBLE_QUOTE, 'ident', this.dialect.backslashEscapes);
      } else if (c === BACKTICK) {
        i = this.quoted(i, BACKTICK, 'ident', false);
      } else if (c === BACKSLASH) {
        i = this.meta(i);
      } else if (c === DOLLAR) {
        i = this.dollar(i);
      } else if (isWordStart(c)) {
        i = this.word(i);
      } else if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(i + 1)))) {
        i = this.number(i);
      } else {
        i = this.operator(i, c);
      }
    }
    this.endStatement(length);
    return this.statements;
  }

  private push(kind: SqlTokenKind, text: string, start: number): void {
    this.tokens.push({ kind, text, depth: this.depth, start });
  }

  private endStatement(end: number): void {
    if (this.tokens.length > 0) {
      this.statements.push({ tokens: this.tokens, start: this.statementStart, end });
    }
    this.tokens = [];
    this.depth = 0;
  }

  private lineEnd(i: number): number {
    const next = this.src.indexOf('\n', i);
    return next < 0 ? this.src.length : next + 1;
  }

  private dashComment(i: number): boolean {
    const after = this.src.charCodeAt(i + 2);
    const spaced = Number.isNaN(after) || after <= 32;
    if (!spaced) this.ambiguous = true;
    return spaced || !this.dialect.dashCommentNeedsSpace;
  }

  private blockComment(start: number): number {
    const src = this.src;
    if (src.charCodeAt(start + 2) === BANG) {
      this.ambiguous = true;
      // MySQL runs the text of `/*!` comments (after an optional version number).
      if (this.dialect.executableComments) {
        let i = start + 3;
        while (isDigit(src.charCodeAt(i))) i++;
        return i;
      }
    }
    let depth = 1;
    let i = start + 2;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === STAR && src.charCodeAt(i + 1) === SLASH) {
        depth--;
        i += 2;
        if (depth === 0 || !this.dialect.nestedComments) return i;
      } else if (c === SLASH && src.charCodeAt(i + 1) === STAR) {
        this.ambiguous = true;
        if (this.dialect.nestedComments) depth++;
        i += 2;
      } else {
        i++;
      }
    }
    return i;
  }

  private quoted(start: number, quote: number, kind: SqlTokenKind, backslashes: boolean): number {
    const src = this.src;
    let i = start + 1;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === BACKSLASH && quote !== BACKTICK) {
        this.ambiguous = true;
        if (backslashes) {
          i += 2;
          continue;
        }
      }
      if (c === quote) {
        if (src.charCodeAt(i + 1) === quote) {
          i += 2;
          continue;
        }
        this.push(kind, src.slice(start + 1, i), start);
        return i + 1;
      }
      i++;
    }
    this.push(kind, src.slice(start + 1), start);
    return i;
  }

  private word(start: number): number {
    const src = this.src;
    let i = start + 1;
    while (i < src.length && isWordPart(src.charCodeAt(i))) i++;
    // E'…' strings take backslash escapes in every dialect.
    const first = src[start];
    if (i === start + 1 && src.charCodeAt(i) === SINGLE_QUOTE && (first === 'e' || first === 'E')) {
      return this.quoted(i, SINGLE_QUOTE, 'string', true);
    }
    this.push('word', src.slice(start, i).toLowerCase(), start);
    return i;
  }

  private number(start: number): number {
    const src = this.src;
    let i = start + 1;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (isDigit(c) || c === 46 || c === 95 || isWordStart(c)) i++;
      else if ((c === 43 || c === DASH) && (src[i - 1] === 'e' || src[i - 1] === 'E')) i++;
      else break;
    }
    this.push('number', src.slice(start, i), start);
    return i;
  }

  private dollar(start: number): number {
    const src = this.src;
    let i = start + 1;
    if (isDigit(src.charCodeAt(i))) {
      while (isDigit(src.charCodeAt(i))) i++;
      this.push('param', src.slice(start, i), start);
      return i;
    }
    while (i < src.length && isWordPart(src.charCodeAt(i)) && src.charCodeAt(i) !== DOLLAR) i++;
    if (src.charCodeAt(i) !== DOLLAR) {
      this.push('param', src.slice(start, i), start);
      return i;
    }
    this.ambiguous = true;
    const tag = src.slice(start, i + 1);
    if (!this.dialect.dollarQuotes) {
      this.push('param', tag, start);
      return i + 1;
    }
    const close = src.indexOf(tag, i + 1);
    const end = close < 0 ? src.length : close;
    this.push('string', src.slice(i + 1, end), start);
    return close < 0 ? src.length : close + tag.length;
  }

  private meta(start: number): number {
    // psql runs what is in the buffer when a backslash command follows it on a line.
    this.endStatement(start);
    const end = this.src.indexOf('\n', start);
    const stop = end < 0 ? this.src.length : end;
    this.tokens.push({
      kind: 'meta',
      text: this.src.slice(start + 1, stop).trim(),
      depth: 0,
      start,
    });
    this.statementStart = start;
    this.endStatement(stop);
    this.statementStart = stop;
    return stop;
  }

  private operator(start: number, c: number): number {
    if (c === OPEN_PAREN) {
      this.push('op', '(', start);
      this.depth++;
      return start + 1;
    }
    if (c === CLOSE_PAREN) {
      if (this.depth > 0) this.depth--;
      this.push('op', ')', start);
      return start + 1;
    }
    if (c === 63 || c === 58) {
      // `?` and `:name` parameters; `::` casts stay operators.
      const next = this.src.charCodeAt(start + 1);
      if (c === 58 && next !== 58 && isWordStart(next)) {
        let i = start + 2;
        while (isWordPart(this.src.charCodeAt(i))) i++;
        this.push('param', this.src.slice(start, i), start);
        return i;
      }
    }
    if (!OPERATOR_CHARS.has(c)) {
      this.push('op', this.src[start] ?? '', start);
      return start + 1;
    }
    let i = start + 1;
    while (i < this.src.length) {
      const next = this.src.charCodeAt(i);
      if (!OPERATOR_CHARS.has(next)) break;
      // A comment start ends an operator (`1--comment`, `a/*x*/`).
      if (next === DASH && this.src.charCodeAt(i + 1) === DASH) break;
      if (next === SLASH && this.src.charCodeAt(i + 1) === STAR) break;
      if (next === HASH && this.dialect.hashComments) break;
      i++;
    }
    if (c === HASH) this.ambiguous = true;
    this.push('op', this.src.slice(start, i), start);
    return i;
  }
}

/**
 * Lexes a SQL script by one dialect's rules into statements. Unterminated strings and
 * comments run to the end of the input (a database would refuse the script; nothing
 * after them is taken as code).
 */
export function lexSql(
  src: string,
  dialect: SqlDialect = SQL_DIALECTS[0] as SqlDialect,
): SqlLexResult {
  const lexer = new Lexer(src, dialect);
  const statements = lexer.run();
  return { statements, ambiguous: lexer.ambiguous };
}
