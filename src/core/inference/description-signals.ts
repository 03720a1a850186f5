/**
 * Reading a tool description: the verbs it opens with, what it states about itself
 * ("read-only", "does not modify", "cannot be undone"), destructive verbs it mentions,
 * and words about the world it reaches. One streaming pass over the text.
 */
import {
  WORD_COMPLEXITY,
  WORD_CONJUNCTION,
  WORD_DESTRUCTIVE_STATEMENT,
  WORD_LOCAL,
  WORD_MODIFY,
  WORD_NEGATION,
  WORD_OPEN_WORLD,
  WORD_PHRASE,
  WORD_UNDO,
  lookupSpan,
  type VerbInfo,
  type WordInfo,
} from './lexicon.js';
import {
  TOKEN_CODE,
  TOKEN_LISTED,
  scanWords,
  sliceWord,
  spanEquals,
  type WordVisitor,
} from './tokenize.js';

/** A phrase of the description that states something, and the rule it matched. */
export interface Statement {
  readonly phrase: string;
  readonly rule: string;
}

/** A verb the description opens with. */
export interface DescriptionVerb {
  /** The word as written, in lower case (`deletes`). */
  readonly word: string;
  readonly info: VerbInfo;
}

/** What a description says. */
export interface DescriptionReading {
  /**
   * The verbs of the first clause's opening action (`List, search, and fetch …` →
   * list, search, fetch), skipping a vague lead-in such as "Use this tool to".
   */
  readonly leading: readonly DescriptionVerb[];
  /**
   * A phrase saying the tool changes nothing: `read-only` (rule `read-only-statement`),
   * `only lists` (`only-reads`), or a negated change (`negated-write`: "does not modify",
   * "without making changes", "no side effects").
   */
  readonly readOnlyStatement: Statement | undefined;
  /** A phrase denying destruction (`never deletes`, `non-destructive`). */
  readonly notDestructiveStatement: string | undefined;
  /** A phrase asserting it (`permanently`, `cannot be undone`, `destructive`). */
  readonly destructiveStatement: string | undefined;
  /** The first destructive verb used as an action (`removes`, `deleting`). */
  readonly destructiveMention: string | undefined;
  /** The first word pointing to the open web (`website`, `url`). */
  readonly openWorldWord: string | undefined;
  /** The first word pointing to a local world (`local`, `filesystem`, `file system`). */
  readonly localWord: string | undefined;
  /** How many words suggest an involved call (`batch`, `workflow`). */
  readonly complexityWords: number;
}

/** How many words after a negation it reaches ("does not really modify"). */
const NEGATION_REACH = 3;
/** How far into the first clause the opening verb is looked for. */
const LEADING_WINDOW = 8;
/** Runs of characters between the words of a phrase. Compiled once. */
const PHRASE_GAPS = /[^\p{L}\p{N}']+/gu;

/** The verb a word is as an action: not a participle ("if deleted") and not code. */
function actionVerb(info: WordInfo | undefined, flags: number): VerbInfo | undefined {
  const verb = info?.verb;
  if (verb === undefined || verb.form === 'ed' || (flags & TOKEN_CODE) !== 0) return undefined;
  return verb.info;
}

/** The opening action's state: looking for its verb, collecting a list of verbs, done. */
const SEARCHING = 0;
const COLLECTING = 1;
const DONE = 2;

class DescriptionReader implements WordVisitor {
  leading: DescriptionVerb[] = [];
  readOnlyStatement: Statement | undefined;
  notDestructiveStatement: string | undefined;
  destructiveStatement: string | undefined;
  destructiveMention: string | undefined;
  openWorldWord: string | undefined;
  localWord: string | undefined;
  complexityWords = 0;

  private count = 0;
  private previousClause = -1;
  /** The previous word when it can start a phrase (`read`, `only`, `file`), else ''. */
  private previousPhrase = '';
  private previousStart = 0;
  private previousEnd = 0;
  /** The previous word was a verb form. */
  private previousVerb = false;
  private previousNegated = false;
  /** Index, clause and start of the latest negation, or -1. */
  private negation = -1;
  private negationClause = -1;
  private negationStart = 0;
  /** A "no side" statement waiting for its next word ("effects"). */
  private sideStart = -1;
  private leadingState = SEARCHING;
  private leadClause = 0;
  private joined = false;
  private vague: DescriptionVerb | undefined;

  constructor(private readonly text: string) {}

  word(start: number, end: number, hash: number, clause: number, flags: number): void {
    const index = this.count++;
    const opensClause = clause !== this.previousClause;
    if (
      this.negation >= 0 &&
      (index - this.negation > NEGATION_REACH || this.negationClause !== clause)
    ) {
      this.negation = -1;
    }
    const negated = this.negation >= 0;
    if (this.sideStart >= 0) {
      if (!opensClause)
        this.readOnlyStatement = this.statement(this.sideStart, end, 'negated-write');
      this.sideStart = -1;
    }
    const info = lookupSpan(this.text, start, end, hash);
    if (this.leadingState !== DONE) this.lead(info, start, end, clause, flags, negated, index);
    const prose = info !== undefined && (flags & TOKEN_CODE) === 0;
    if (prose) this.read(info, start, end, negated, opensClause);
    if (info !== undefined && (info.flags & WORD_NEGATION) !== 0) {
      this.negation = index;
      this.negationClause = clause;
      this.negationStart = start;
    }
    this.previousPhrase =
      prose && (info.flags & WORD_PHRASE) !== 0 ? sliceWord(this.text, start, end) : '';
    this.previousVerb = info?.verb !== undefined && (flags & TOKEN_CODE) === 0;
    this.previousClause = clause;
    this.previousStart = start;
    this.previousEnd = end;
    this.previousNegated = negated;
  }

  /** Follows the opening action: its first clear verb and the verbs listed with it. */
  private lead(
    info: WordInfo | undefined,
    start: number,
    end: number,
    clause: number,
    flags: number,
    negated: boolean,
    index: number,
  ): void {
    if (index === 0) this.leadClause = clause;
    if (clause !== this.leadClause) {
      this.finishLeading();
      return;
    }
    if (this.leadingState === SEARCHING) {
      if (index >= LEADING_WINDOW) {
        this.finishLeading();
        return;
      }
      const verb = negated ? undefined : actionVerb(info, flags);
      if (verb === undefined || this.isNoun(info, start, verb, clause)) return;
      const found = { word: sliceWord(this.text, start, end), info: verb };
      if (verb.kind === 'vague') {
        this.vague ??= found;
        return;
      }
      this.leading.push(found);
      this.leadingState = COLLECTING;
      return;
    }
    if (info !== undefined && (info.flags & WORD_CONJUNCTION) !== 0) {
      this.joined = true;
      return;
    }
    const verb = negated ? undefined : actionVerb(info, flags);
    // Only verbs in a list go on the action ("List, search, and fetch"; "add/update"):
    // "Get logs" is a verb and its object.
    if (verb === undefined || (!this.joined && (flags & TOKEN_LISTED) === 0)) {
      this.leadingState = DONE;
      return;
    }
    this.leading.push({ word: sliceWord(this.text, start, end), info: verb });
    this.joined = false;
  }

  /**
   * True when a verb form in the opening is a noun: a plural right after a verb ("Manage
   * tags", "Get logs"), or a word more often a noun that neither opens its clause nor
   * follows "to" ("web research agent", "Pyroscope query tool").
   */
  private isNoun(
    info: WordInfo | undefined,
    start: number,
    verb: VerbInfo,
    clause: number,
  ): boolean {
    const form = info?.verb?.form;
    if (form === 's' && this.previousVerb) return true;
    if (form !== 'base' || !verb.nounish || clause !== this.previousClause) return false;
    return !spanEquals(this.text, this.previousStart, this.previousEnd, 'to');
  }

  finishLeading(): void {
    if (this.leadingState === SEARCHING && this.vague !== undefined) this.leading.push(this.vague);
    this.leadingState = DONE;
  }

  private statement(from: number, to: number, rule: string): Statement {
    return { phrase: this.phrase(from, to), rule };
  }

  private phrase(from: number, to: number): string {
    return this.text.slice(from, to).toLowerCase().replace(PHRASE_GAPS, ' ').trim();
  }

  private read(
    info: WordInfo,
    start: number,
    end: number,
    negated: boolean,
    opensClause: boolean,
  ): void {
    const bits = info.flags;
    if ((bits & WORD_COMPLEXITY) !== 0) this.complexityWords++;
    if ((bits & WORD_OPEN_WORLD) !== 0) this.openWorldWord ??= sliceWord(this.text, start, end);
    if ((bits & WORD_LOCAL) !== 0) this.localWord ??= sliceWord(this.text, start, end);
    const word = (bits & WORD_PHRASE) !== 0 ? sliceWord(this.text, start, end) : '';
    // Phrases read backwards from their last word: "read only", "only lists", "file system".
    const before = opensClause || negated || this.previousNegated ? '' : this.previousPhrase;
    if (word === 'readonly' && !negated) {
      this.readOnlyStatement ??= { phrase: 'readonly', rule: 'read-only-statement' };
      return;
    }
    if (before === 'read' && word === 'only') {
      this.readOnlyStatement ??= { phrase: 'read-only', rule: 'read-only-statement' };
      return;
    }
    if (before === 'file' && word === 'system') this.localWord ??= 'file system';
    const verb = info.verb;
    if (
      before === 'only' &&
      verb !== undefined &&
      verb.info.kind === 'read' &&
      verb.form !== 'ed'
    ) {
      this.readOnlyStatement ??= this.statement(this.previousStart, end, 'only-reads');
    }
    if (
      (bits & WORD_DESTRUCTIVE_STATEMENT) !== 0 ||
      (negated && (bits & (WORD_UNDO | WORD_MODIFY)) !== 0)
    ) {
      this.statementWord(info, start, end, negated);
      return;
    }
    if (verb === undefined || verb.info.kind !== 'destructive') return;
    if (negated) {
      this.notDestructiveStatement ??= this.phrase(this.negationStart, end);
      return;
    }
    // A destructive verb as an action: "removes", "deleting", or an imperative opening a
    // clause ("- delete: delete a silence"); not a participle ("if deleted").
    if (verb.form === 's' || verb.form === 'ing' || (verb.form === 'base' && opensClause)) {
      this.destructiveMention ??= sliceWord(this.text, start, end);
    }
  }

  private statementWord(info: WordInfo, start: number, end: number, negated: boolean): void {
    const bits = info.flags;
    if ((bits & WORD_DESTRUCTIVE_STATEMENT) !== 0) {
      if (negated) this.notDestructiveStatement ??= this.phrase(this.negationStart, end);
      else this.destructiveStatement ??= sliceWord(this.text, start, end);
    } else if ((bits & WORD_UNDO) !== 0) {
      this.destructiveStatement ??= this.phrase(this.negationStart, end);
    } else if (this.readOnlyStatement === undefined) {
      // "no side effects": the statement takes in the word after "side".
      if (sliceWord(this.text, start, end) === 'side') this.sideStart = this.negationStart;
      this.readOnlyStatement = this.statement(this.negationStart, end, 'negated-write');
    }
  }
}

/**
 * Reads a description in one pass. Negation reaches the next three words of its clause:
 * a negated modifying word ("does not modify", "without making changes", "no side
 * effects") states the tool is read-only, a negated destructive one ("never deletes",
 * "non-destructive") that it is not destructive, and a negated undo ("cannot be undone")
 * that it is. Past participles are never read as the tool's action ("Returns … if
 * deleted"), nor are identifiers (`delete_file`).
 */
export function readDescription(text: string): DescriptionReading {
  const reader = new DescriptionReader(text);
  scanWords(text, reader);
  reader.finishLeading();
  return {
    leading: reader.leading,
    readOnlyStatement: reader.readOnlyStatement,
    notDestructiveStatement: reader.notDestructiveStatement,
    destructiveStatement: reader.destructiveStatement,
    destructiveMention: reader.destructiveMention,
    openWorldWord: reader.openWorldWord,
    localWord: reader.localWord,
    complexityWords: reader.complexityWords,
  };
}
