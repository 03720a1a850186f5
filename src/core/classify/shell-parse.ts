/**
 * A POSIX sh reader for classification: it finds every simple command a script would run
 * (including those in `$(…)`, backticks, `<(…)`, subshells, and unquoted here-documents),
 * with its words after quote removal and its redirections. Control structure is read
 * only as far as needed to skip it (`if`, `for … in …`, `case` patterns); the classifier
 * takes the worst over every command, so which branch runs does not matter.
 */

/** One word after quote removal. */
export interface ShellWord {
  readonly text: string;
  /** False when the word holds an expansion (`$x`, `$(…)`, `` `…` ``): its value is unknown. */
  readonly literal: boolean;
}

/** A redirection: `>`, `>>`, `2>`, `&>`, `<`, `<<EOF`… and its target. */
export interface ShellRedirect {
  readonly op: string;
  readonly target: ShellWord;
}

/** A simple command: words (assignments removed), redirections, and where it is. */
export interface ShellCommand {
  readonly words: readonly ShellWord[];
  readonly redirects: readonly ShellRedirect[];
  /** `A=1` prefixes, counted: a command of assignments only sets variables. */
  readonly assignments: number;
  /** The command's text, for reasons. */
  readonly source: string;
  /** How deep in substitutions it is (0 at the top). */
  readonly nesting: number;
}

/** Every command found, and whether the script was too deeply nested to read. */
export interface ShellParse {
  readonly commands: readonly ShellCommand[];
  readonly tooDeep: boolean;
}

/** Substitutions nested deeper than this are not read; the classifier is conservative. */
export const MAX_SHELL_NESTING = 8;

const REDIRECT = /(?:\d+|\{\w+\})?(?:&>>|&>|>>|>\||>&|>|<<<|<<-|<<|<&|<>|<)/y;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
const RESERVED_SKIPPED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  '{',
  '}',
  '!',
  'time',
  'coproc',
]);
const WORD_END = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
const TEST_OPERATOR = new Set(['&', '|', '<', '>', '(', ')', '!', '=']);
const FD_PREFIX = /^\d+|^\{\w+\}/;
const ESAC = /esac\b/y;
const LEADING_TABS = /^\t+/;
const BACKTICK_ESCAPE = /\\([`$\\])/g;

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** `$@ $* $# $? $$ $! $- $0`…: parameters named by one character. */
const SPECIAL_PARAMETERS = new Set('@*#?$!-0123456789'.split(''));

interface PendingHeredoc {
  readonly delimiter: string;
  readonly strip: boolean;
  readonly expands: boolean;
}

class Parser {
  i = 0;
  tooDeep = false;
  private heredocs: PendingHeredoc[] = [];
  private caseDepth = 0;
  private casePattern = false;

  constructor(
    private readonly src: string,
    readonly commands: ShellCommand[],
    private nesting: number,
  ) {}

  /** Reads commands until `stop` (`)` of a subshell or substitution) or the end. */
  parseList(stop: ')' | ''): void {
    const src = this.src;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === ' ' || c === '\t' || c === '\r') this.i++;
      else if (c === '\\' && src[this.i + 1] === '\n') this.i += 2;
      else if (c === '\n') {
        this.i++;
        this.readHeredocs();
      } else if (c === '#') this.skipLine();
      else if (c === ')') {
        this.i++;
        if (stop === ')') return;
      } else if (c === ';' || c === '&' || c === '|') {
        const start = this.i;
        while (this.i < src.length && ';&|'.includes(src[this.i] as string)) this.i++;
        if (src.slice(start, this.i).startsWith(';;') || src.slice(start, this.i) === ';&') {
          this.casePattern = this.caseDepth > 0;
        }
      } else this.parseCommand();
    }
  }

  private skipLine(): void {
    const end = this.src.indexOf('\n', this.i);
    this.i = end < 0 ? this.src.length : end;
  }

  private skipBlanks(): void {
    while (this.i < this.src.length) {
      const c = this.src[this.i];
      if (c === ' ' || c === '\t' || c === '\r') this.i++;
      else if (c === '\\' && this.src[this.i + 1] === '\n') this.i += 2;
      else break;
    }
  }

  /** Runs `read` one substitution level deeper, unless that is too deep. */
  private nested(read: () => void): void {
    if (this.nesting + 1 > MAX_SHELL_NESTING) {
      // The classifier is conservative about the whole script; reading on is wasted work.
      this.tooDeep = true;
      this.i = this.src.length;
      return;
    }
    this.nesting++;
    read();
    this.nesting--;
  }

  private parseCommand(): void {
    const src = this.src;
    let start = this.i;
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [];
    let assignments = 0;
    if (this.casePattern && this.skipCasePattern()) return;
    for (;;) {
      this.skipBlanks();
      const c = src[this.i];
      if (c === undefined || c === '\n' || c === ';' || c === ')' || c === '#') break;
      if ((c === '&' || c === '|') && src[this.i + 1] !== '>') break;
      if (
        c === '(' &&
        words.length === 0 &&
        (src[this.i + 1] !== '(' || !this.isArithmetic(this.i + 2))
      ) {
        this.i++;
        this.nested(() => this.parseList(')'));
        continue;
      }
      if (c === '(' && words.length === 0) {
        this.i += 2;
        this.nested(() => this.scanExpansions('))'));
        continue;
      }
      if (c === '(' && src[this.i + 1] === ')') {
        // `name() { …; }`: a function definition; its body is read as commands.
        this.i += 2;
        words.length = 0;
        continue;
      }
      if (!((c === '<' || c === '>') && src[this.i + 1] === '(')) {
        REDIRECT.lastIndex = this.i;
        const match = REDIRECT.exec(src);
        if (match !== null) {
          this.i = REDIRECT.lastIndex;
          this.redirect(match[0].replace(FD_PREFIX, ''), redirects);
          continue;
        }
      }
      const wordStart = this.i;
      const word = this.readWord();
      if (word === undefined) {
        this.i++;
        continue;
      }
      if (words.length === 0 && ASSIGNMENT.test(src.slice(wordStart, this.i))) {
        assignments++;
        continue;
      }
      if (words.length === 0 && word.literal && !word.quoted) {
        if (RESERVED_SKIPPED.has(word.text)) {
          start = this.i;
          continue;
        }
        if (this.reserved(word.text)) return;
        if (word.text === '[[') {
          words.push(word, ...this.readTest());
          break;
        }
      }
      words.push({ text: word.text, literal: word.literal });
    }
    if (words.length > 0 || redirects.length > 0 || assignments > 0) {
      const source = src.slice(start, this.i).trim();
      this.commands.push({ words, redirects, assignments, source, nesting: this.nesting });
    }
  }

  /** Handles the reserved words that are not commands; true when the rest is not one. */
  private reserved(word: string): boolean {
    switch (word) {
      case 'for':
      case 'select':
      case 'case': {
        // The header's words may hold substitutions (`for f in $(ls)`), read and dropped.
        while (this.i < this.src.length && !';\n'.includes(this.src[this.i] as string)) {
          this.skipBlanks();
          const next = this.readWord();
          if (next === undefined) break;
          if (word === 'case' && next.text === 'in' && next.literal) break;
        }
        if (word === 'case') {
          this.caseDepth++;
          this.casePattern = true;
        }
        return true;
      }
      case 'esac':
        this.caseDepth = Math.max(0, this.caseDepth - 1);
        return true;
      case 'function':
        this.skipBlanks();
        this.readWord();
        return true;
      default:
        return false;
    }
  }

  /** Skips a `case` pattern up to its `)`; true when it consumed `esac` instead. */
  private skipCasePattern(): boolean {
    this.casePattern = false;
    ESAC.lastIndex = this.i;
    if (ESAC.test(this.src)) {
      this.i += 4;
      this.caseDepth = Math.max(0, this.caseDepth - 1);
      return true;
    }
    if (this.src[this.i] === '(') this.i++;
    while (this.i < this.src.length && this.src[this.i] !== ')') {
      if (this.readWord() === undefined) this.i++;
    }
    this.i++;
    return false;
  }

  private readTest(): ShellWord[] {
    const words: ShellWord[] = [];
    for (;;) {
      this.skipBlanks();
      const c = this.src[this.i];
      if (c === undefined || c === '\n') return words;
      if (TEST_OPERATOR.has(c)) {
        const start = this.i;
        while (TEST_OPERATOR.has(this.src[this.i] ?? '')) this.i++;
        words.push({ text: this.src.slice(start, this.i), literal: true });
        continue;
      }
      const word = this.readWord();
      if (word === undefined) {
        this.i++;
        continue;
      }
      words.push({ text: word.text, literal: word.literal });
      if (word.text === ']]') return words;
    }
  }

  private redirect(op: string, into: ShellRedirect[]): void {
    this.skipBlanks();
    const target = this.readWord() ?? { text: '', literal: true, quoted: false };
    if (op === '<<' || op === '<<-') {
      this.heredocs.push({ delimiter: target.text, strip: op === '<<-', expands: !target.quoted });
    }
    into.push({ op, target: { text: target.text, literal: target.literal } });
  }

  private readHeredocs(): void {
    const pending = this.heredocs;
    this.heredocs = [];
    for (const heredoc of pending) {
      const bodyStart = this.i;
      let end = this.src.length;
      while (this.i < this.src.length) {
        const lineEnd = this.src.indexOf('\n', this.i);
        const stop = lineEnd < 0 ? this.src.length : lineEnd;
        const line = this.src.slice(this.i, stop);
        this.i = lineEnd < 0 ? stop : stop + 1;
        if ((heredoc.strip ? line.replace(LEADING_TABS, '') : line) === heredoc.delimiter) {
          end = stop - line.length;
          break;
        }
      }
      if (heredoc.expands) {
        const body = new Parser(this.src.slice(bodyStart, end), this.commands, this.nesting);
        body.scanExpansions('');
        this.tooDeep ||= body.tooDeep;
      }
    }
  }

  /**
   * True when `((` (content from `start`) is arithmetic, closed by `))`; false when a lone
   * `)` closes it first, as in `((cd x; ls) )`: then it is two subshells, as bash reads it.
   */
  private isArithmetic(start: number): boolean {
    const src = this.src;
    let depth = 0;
    for (let i = start; i < src.length; i++) {
      const c = src[i];
      if (c === '\\') i++;
      else if (c === '(') depth++;
      else if (c === ')') {
        if (depth > 0) depth--;
        else return src[i + 1] === ')';
      }
    }
    return false;
  }

  /** Reads substitutions only (arithmetic, here-document bodies) up to `stop`. */
  scanExpansions(stop: string): void {
    const src = this.src;
    let depth = 0;
    while (this.i < src.length) {
      if (stop !== '' && depth === 0 && src.startsWith(stop, this.i)) {
        this.i += stop.length;
        return;
      }
      const c = src[this.i];
      if (c === '\\') this.i += 2;
      else if (c === '$' || c === '`') this.expansion({ text: '', literal: true, quoted: false });
      else {
        if (c === '(') depth++;
        else if (c === ')') depth = Math.max(0, depth - 1);
        this.i++;
      }
    }
  }

  /** Reads one word; `undefined` when none starts here. */
  private readWord(): (ShellWord & { quoted: boolean }) | undefined {
    const src = this.src;
    const word = { text: '', literal: true, quoted: false };
    const start = this.i;
    if ((src[this.i] === '<' || src[this.i] === '>') && src[this.i + 1] === '(') {
      this.i += 2;
      this.nested(() => this.parseList(')'));
      return { text: src.slice(start, this.i), literal: false, quoted: false };
    }
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (WORD_END.has(c)) break;
      if (c === '\\') {
        if (src[this.i + 1] !== '\n') word.text += src[this.i + 1] ?? '';
        word.quoted = true;
        this.i += 2;
      } else if (c === "'") {
        const end = src.indexOf("'", this.i + 1);
        const stop = end < 0 ? src.length : end;
        word.text += src.slice(this.i + 1, stop);
        word.quoted = true;
        this.i = stop + 1;
      } else if (c === '"') {
        word.quoted = true;
        this.doubleQuoted(word);
      } else if (c === '$' || c === '`') {
        this.expansion(word);
      } else {
        word.text += c;
        this.i++;
      }
    }
    return this.i === start ? undefined : word;
  }

  private doubleQuoted(word: { text: string; literal: boolean; quoted: boolean }): void {
    const src = this.src;
    this.i++;
    while (this.i < src.length && src[this.i] !== '"') {
      const c = src[this.i] as string;
      if (c === '\\' && '$`"\\\n'.includes(src[this.i + 1] ?? '')) {
        if (src[this.i + 1] !== '\n') word.text += src[this.i + 1] ?? '';
        this.i += 2;
      } else if (c === '$' || c === '`') {
        this.expansion(word);
      } else {
        word.text += c;
        this.i++;
      }
    }
    this.i++;
  }

  /** `$name`, `${…}`, `$(…)`, `$((…))`, `$'…'`, `` `…` ``, read into `word`. */
  private expansion(word: { text: string; literal: boolean; quoted: boolean }): void {
    const src = this.src;
    const start = this.i;
    const next = src[this.i + 1];
    if (src[this.i] === '`') {
      let end = this.i + 1;
      while (end < src.length && src[end] !== '`') end += src[end] === '\\' ? 2 : 1;
      const inner = src.slice(this.i + 1, end).replace(BACKTICK_ESCAPE, '$1');
      this.i = end + 1;
      this.child(inner);
    } else if (next === '(' && src[this.i + 2] === '(' && this.isArithmetic(this.i + 3)) {
      this.i += 3;
      this.nested(() => this.scanExpansions('))'));
    } else if (next === '(') {
      this.i += 2;
      this.nested(() => this.parseList(')'));
    } else if (next === '{') {
      this.i += 2;
      this.nested(() => this.scanExpansions('}'));
    } else if (next === "'") {
      let end = this.i + 2;
      while (end < src.length && src[end] !== "'") end += src[end] === '\\' ? 2 : 1;
      word.text += src.slice(this.i + 2, end);
      word.quoted = true;
      this.i = end + 1;
      return;
    } else if (next === '"') {
      this.i++;
      return;
    } else if (SPECIAL_PARAMETERS.has(next ?? '')) {
      this.i += 2;
    } else {
      this.i++;
      while (this.i < src.length && isNameChar(src.charCodeAt(this.i))) this.i++;
      if (this.i === start + 1) {
        word.text += '$';
        return;
      }
    }
    word.text += src.slice(start, this.i);
    word.literal = false;
  }

  private child(script: string): void {
    if (this.nesting + 1 > MAX_SHELL_NESTING) {
      this.tooDeep = true;
      this.i = this.src.length;
      return;
    }
    const parser = new Parser(script, this.commands, this.nesting + 1);
    parser.parseList('');
    this.tooDeep ||= parser.tooDeep;
  }
}

/**
 * Reads a shell script into the simple commands it may run, in the order found (a
 * substitution's commands before the command holding it). `nesting` counts the scripts
 * this one is nested in (`sh -c '…'`).
 */
export function parseShell(script: string, nesting = 0): ShellParse {
  const commands: ShellCommand[] = [];
  if (nesting > MAX_SHELL_NESTING) return { commands, tooDeep: true };
  const parser = new Parser(script, commands, nesting);
  parser.parseList('');
  return { commands, tooDeep: parser.tooDeep };
}
