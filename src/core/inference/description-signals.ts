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
  BE_HASHES,
  DETERMINER_HASHES,
  lookupSpan,
  lookupWord,
  type VerbInfo,
  type WordInfo,
} from './lexicon.js';
import { readsObjects } from './name-signals.js';
import {
  TOKEN_CODE,
  TOKEN_LISTED,
  hashWord,
  scanWords,
  sliceWord,
  spanEquals,
  type WordVisitor,
} from './tokenize.js';

/** A phrase of the description that states something, and the rule it matched. */
export interface Statement {
  readonly phrase: string;
  readonly rule: string;
  /** The index of the statement's first word among the description's words. */
  readonly at: number;
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
   * The words after the first opening verb in its clause, up to four, in lower case: its
   * objects ("Runs a standardization scan" → a, standardization, scan); read only for a verb
   * whose objects can change what it does (see `readsObjects`).
   */
  readonly leadingObjects: readonly string[];
  /**
   * True when the first opening verb is "remove" and "from" follows it in its clause, within
   * eight words ("Removes one or more droplets from a firewall"): it takes something off
   * another.
   */
  readonly leadingFrom: boolean;
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
  /** The index of the destructive statement's first word, or -1. */
  readonly destructiveStatementAt: number;
  /** The first destructive verb used as an action (`removes`, `deleting`). */
  readonly destructiveMention: string | undefined;
  /** The first word pointing to the open web (`website`, `url`). */
  readonly openWorldWord: string | undefined;
  /**
   * The first word pointing to a local world (`local`, `filesystem`, `file system`,
   * `knowledge graph`), in the first clause only.
   */
  readonly localWord: string | undefined;
  /** How many words suggest an involved call (`batch`, `workflow`). */
  readonly complexityWords: number;
}

/** How many words after a negation it reaches ("does not really modify"). */
const NEGATION_REACH = 3;
/** Forms of "be" that make `permanent` a statement ("Deletion is permanent"). */
/**
 * The words phrases are made of, as the lexicon's own entries: a scanned word is one of
 * them when `lookupSpan` returns the same entry, with no string built.
 */
const PHRASE = {
  read: lookupWord('read'),
  only: lookupWord('only'),
  readonly: lookupWord('readonly'),
  file: lookupWord('file'),
  system: lookupWord('system'),
  side: lookupWord('side'),
  knowledge: lookupWord('knowledge'),
  graph: lookupWord('graph'),
  permanent: lookupWord('permanent'),
} as const;
/** The hash of "from", to spot it among the words after the opening verb. */
const FROM_HASH = hashWord('from');
/** How many words after the opening verb are looked at for "from". */
const FROM_REACH = 8;
/** How many words after the opening verb are read as its objects. */
const LEADING_OBJECTS = 4;
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
  leadingObjects: string[] = [];
  leadingFrom = false;
  /** How many more words after the first opening verb are looked at for "from". */
  private fromLeft = 0;
  /** How many more words after the first opening verb are kept as its objects. */
  private objectsLeft = 0;
  readOnlyStatement: Statement | undefined;
  notDestructiveStatement: string | undefined;
  destructiveStatement: string | undefined;
  destructiveStatementAt = -1;
  destructiveMention: string | undefined;
  openWorldWord: string | undefined;
  localWord: string | undefined;
  complexityWords = 0;

  private count = 0;
  private previousClause = -1;
  /** The previous word when it can start a phrase (`read`, `only`, `file`). */
  private previousPhrase: WordInfo | undefined;
  private previousStart = 0;
  private previousEnd = 0;
  /** The previous word was a verb form. */
  private previousVerb = false;
  /** The hash of the previous word, to check it against determiners and "be". */
  private previousHash = 0;
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
    if (this.sideStart >= 0 || this.fromLeft > 0 || this.objectsLeft > 0) {
      this.follow(start, end, hash, clause, opensClause);
    }
    const info = lookupSpan(this.text, start, end, hash);
    if (this.leadingState !== DONE) this.lead(info, start, end, clause, flags, negated, index);
    if (info === undefined) {
      // Most words: nothing to read, and nothing for the next word to build on.
      this.previousPhrase = undefined;
      this.previousVerb = false;
    } else {
      this.known(info, start, end, clause, flags, negated, opensClause, index);
    }
    this.previousClause = clause;
    this.previousStart = start;
    this.previousEnd = end;
    this.previousHash = hash;
    this.previousNegated = negated;
  }

  /** The previous word, when it is one of `words` (keyed by hash). */
  private previousOf(words: ReadonlyMap<number, string>): string | undefined {
    const word = words.get(this.previousHash);
    return word !== undefined && spanEquals(this.text, this.previousStart, this.previousEnd, word)
      ? word
      : undefined;
  }

  /** True when the previous word is an article or determiner: this one is a noun. */
  private afterDeterminer(): boolean {
    return this.previousOf(DETERMINER_HASHES) !== undefined;
  }

  /** A word the lexicon knows: what it says, and what it tells the next word. */
  private known(
    info: WordInfo,
    start: number,
    end: number,
    clause: number,
    flags: number,
    negated: boolean,
    opensClause: boolean,
    index: number,
  ): void {
    const prose = (flags & TOKEN_CODE) === 0;
    if (prose) this.read(info, start, end, negated, opensClause, clause === this.leadClause);
    if ((info.flags & WORD_NEGATION) !== 0) {
      this.negation = index;
      this.negationClause = clause;
      this.negationStart = start;
    }
    this.previousPhrase = prose && (info.flags & WORD_PHRASE) !== 0 ? info : undefined;
    this.previousVerb = info.verb !== undefined && prose;
  }

  /**
   * Words that complete something begun before: the word after "no side", and the words
   * after the opening verb (its objects, and whether "from" follows it).
   */
  private follow(
    start: number,
    end: number,
    hash: number,
    clause: number,
    opensClause: boolean,
  ): void {
    if (this.sideStart >= 0) {
      if (!opensClause)
        this.readOnlyStatement = this.statement(this.sideStart, end, 'negated-write');
      this.sideStart = -1;
    }
    if (this.fromLeft > 0) {
      if (clause !== this.leadClause) this.fromLeft = 0;
      else if (hash === FROM_HASH && spanEquals(this.text, start, end, 'from')) {
        this.leadingFrom = true;
        this.fromLeft = 0;
      } else this.fromLeft--;
    }
    if (this.objectsLeft > 0) {
      if (clause === this.leadClause) this.leadingObjects.push(sliceWord(this.text, start, end));
      this.objectsLeft = clause === this.leadClause ? this.objectsLeft - 1 : 0;
    }
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
      // Objects are read only for a verb they can change, "from" only after "remove".
      if (readsObjects(verb)) this.objectsLeft = LEADING_OBJECTS;
      if (verb.lemma === 'remove') this.fromLeft = FROM_REACH;
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
   * True when a verb form in the opening is a noun: a word after an article or determiner
   * ("Rerank a set of documents"), a plural right after a verb ("Manage tags", "Get logs"),
   * or a word more often a noun that neither opens its clause nor follows "to" ("web
   * research agent", "Pyroscope query tool").
   */
  private isNoun(
    info: WordInfo | undefined,
    start: number,
    verb: VerbInfo,
    clause: number,
  ): boolean {
    const form = info?.verb?.form;
    if (this.afterDeterminer()) return true;
    if (form === 's' && this.previousVerb) return true;
    if (form !== 'base' || !verb.nounish || clause !== this.previousClause) return false;
    return !spanEquals(this.text, this.previousStart, this.previousEnd, 'to');
  }

  finishLeading(): void {
    if (this.leadingState === SEARCHING && this.vague !== undefined) this.leading.push(this.vague);
    this.leadingState = DONE;
  }

  private statement(from: number, to: number, rule: string): Statement {
    return { phrase: this.phrase(from, to), rule, at: this.count - 1 };
  }

  private destructive(phrase: string): void {
    if (this.destructiveStatement !== undefined) return;
    this.destructiveStatement = phrase;
    this.destructiveStatementAt = this.count - 1;
  }

  private phrase(from: number, to: number): string {
    return this.text.slice(from, to).toLowerCase().replace(PHRASE_GAPS, ' ').trim();
  }

  /** `opening` is true in the description's first clause, where it says what the tool is. */
  private read(
    info: WordInfo,
    start: number,
    end: number,
    negated: boolean,
    opensClause: boolean,
    opening: boolean,
  ): void {
    const bits = info.flags;
    if ((bits & WORD_COMPLEXITY) !== 0) this.complexityWords++;
    if ((bits & WORD_OPEN_WORLD) !== 0) this.openWorldWord ??= sliceWord(this.text, start, end);
    // A local word says the tool's world is closed only where the description says what the
    // tool is, not in notes about its arguments or results ("filesystem risks", "local_path").
    if ((bits & WORD_LOCAL) !== 0 && opening) this.localWord ??= sliceWord(this.text, start, end);
    const word = (bits & WORD_PHRASE) !== 0 ? info : undefined;
    // Phrases read backwards from their last word: "read only", "only lists", "file system".
    const before = opensClause || negated || this.previousNegated ? undefined : this.previousPhrase;
    if (word === PHRASE.readonly && !negated) {
      this.readOnlyStatement ??= {
        phrase: 'readonly',
        rule: 'read-only-statement',
        at: this.count - 1,
      };
      return;
    }
    if (before === PHRASE.read && word === PHRASE.only) {
      this.readOnlyStatement ??= {
        phrase: 'read-only',
        rule: 'read-only-statement',
        at: this.count - 1,
      };
      return;
    }
    if (opening && before === PHRASE.file && word === PHRASE.system)
      this.localWord ??= 'file system';
    // The MCP specification's own example of a closed world: a memory's knowledge graph.
    if (opening && before === PHRASE.knowledge && word === PHRASE.graph) {
      this.localWord ??= 'knowledge graph';
    }
    if (word === PHRASE.permanent && !opensClause && !negated && !this.previousNegated) {
      const be = this.previousOf(BE_HASHES);
      if (be !== undefined) this.destructive(`${be} permanent`);
    }
    const verb = info.verb;
    if (
      before === PHRASE.only &&
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
    if (verb === undefined || verb.info.kind !== 'destructive' || this.afterDeterminer()) return;
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
      else this.destructive(sliceWord(this.text, start, end));
    } else if ((bits & WORD_UNDO) !== 0) {
      this.destructive(this.phrase(this.negationStart, end));
    } else if (this.readOnlyStatement === undefined) {
      // "no side effects": the statement takes in the word after "side".
      if (info === PHRASE.side) this.sideStart = this.negationStart;
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
    leadingObjects: reader.leadingObjects,
    leadingFrom: reader.leadingFrom,
    readOnlyStatement: reader.readOnlyStatement,
    notDestructiveStatement: reader.notDestructiveStatement,
    destructiveStatement: reader.destructiveStatement,
    destructiveStatementAt: reader.destructiveStatementAt,
    destructiveMention: reader.destructiveMention,
    openWorldWord: reader.openWorldWord,
    localWord: reader.localWord,
    complexityWords: reader.complexityWords,
  };
}
