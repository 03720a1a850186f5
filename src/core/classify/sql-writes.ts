/**
 * The data-changing statements: INSERT (and REPLACE, UPSERT), UPDATE, DELETE and MERGE,
 * with the reading of whether repeating one changes anything more.
 *
 * An UPDATE, DELETE or MERGE is idempotent unless its text shows a repeat would do more:
 * an assignment that reads a column the statement assigns (`SET n = n + 1`,
 * `SET a = b, b = a`), a volatile value (`now()`, `random()`, `'now'`, `DEFAULT`), a row
 * limit (`LIMIT`, `TOP`, `FETCH FIRST`: the next call takes the next rows), or a subquery
 * on the statement's own table (`WHERE id = (SELECT min(id) FROM jobs)`), or, for MERGE,
 * both a DELETE and an INSERT branch (rows would flip between them). Triggers are not
 * visible in the text and are not considered. Every INSERT is taken as not idempotent:
 * whether a repeat conflicts depends on keys the text does not show.
 */
import type { HintField } from '../annotations/types.js';
import type { InferenceReason } from '../inference/types.js';
import type { CallHints, Finding } from './hints.js';
import { ADDITIVE, DESTRUCTIVE, DESTRUCTIVE_IDEMPOTENT, argumentReason, finding } from './hints.js';
import type { SqlToken } from './sql-lexer.js';
import {
  findWord,
  isOp,
  isWord,
  nameOf,
  readQualifiedName,
  skipWords,
  wordSet,
} from './sql-scan.js';
import { VOLATILE_FUNCTIONS, VOLATILE_KEYWORDS, VOLATILE_STRINGS } from './sql-tables.js';

/** A statement being classified: its tokens and the label its reasons start with. */
export interface StatementScope {
  readonly tokens: readonly SqlToken[];
  /** "SQL `DELETE FROM t`" or "SQL statement 2 `DELETE FROM t`". */
  readonly label: string;
}

const SET = wordSet('set');
const FROM = wordSet('from');
const USING = wordSet('using');
const WHERE = wordSet('where');
const THEN = wordSet('then');
const ONLY = wordSet('only');
const INTO = wordSet('into');
const CONFLICT_ACTION = wordSet('update nothing');
const UPDATE_MODIFIERS = wordSet('only low_priority ignore or replace abort rollback fail');
const UPDATE_CLAUSE_END = wordSet('from where returning order limit output');
const MERGE_CLAUSE_END = wordSet('when');
const ALIAS_STOP = wordSet(
  'set using join inner left right full outer cross natural straight_join on where from',
);

function text(scope: StatementScope, phrase: string): string {
  return `${scope.label} ${phrase}`;
}

function notIdempotent(scope: StatementScope, word: string, why: string): InferenceReason {
  return argumentReason(word, 'sql-not-idempotent', text(scope, `is not idempotent: ${why}`));
}

/** The same statement with `idempotentHint` false for the reason given. */
function repeated(base: Finding, hints: CallHints, reason: InferenceReason): Finding {
  const fieldReasons: Partial<Record<HintField, InferenceReason>> = { idempotentHint: reason };
  return { hints: { ...hints, idempotentHint: false }, reason: base.reason, fieldReasons };
}

/** INSERT, REPLACE and UPSERT. */
export function insertEffect(scope: StatementScope, head: number, to: number): Finding {
  const tokens = scope.tokens;
  const first = (tokens[head] as SqlToken).text;
  const base = (tokens[head] as SqlToken).depth;
  if (first === 'replace' || first === 'upsert') {
    return finding(
      DESTRUCTIVE,
      first.toUpperCase(),
      `sql-${first}`,
      text(scope, 'replaces existing rows'),
    );
  }
  const next = tokens[head + 1];
  if (isWord(next, 'overwrite')) {
    return finding(
      DESTRUCTIVE,
      'INSERT OVERWRITE',
      'sql-insert-overwrite',
      text(scope, 'overwrites a table'),
    );
  }
  if (isWord(next, 'or') && isWord(tokens[head + 2], 'replace')) {
    return finding(
      DESTRUCTIVE,
      'INSERT OR REPLACE',
      'sql-upsert',
      text(scope, 'replaces existing rows'),
    );
  }
  for (let i = head + 1; i < to; i++) {
    const token = tokens[i] as SqlToken;
    if (token.depth !== base || !isWord(token, 'on')) continue;
    const conflict = isWord(tokens[i + 1], 'conflict');
    const duplicate = isWord(tokens[i + 1], 'duplicate');
    if (!conflict && !duplicate) continue;
    const update = findWord(tokens, i + 2, to, base, CONFLICT_ACTION);
    if (duplicate || isWord(tokens[update], 'update')) {
      const word = duplicate ? 'ON DUPLICATE KEY UPDATE' : 'ON CONFLICT DO UPDATE';
      return finding(
        DESTRUCTIVE,
        word,
        'sql-upsert',
        text(scope, 'inserts rows or updates the existing ones'),
      );
    }
  }
  return finding(ADDITIVE, 'INSERT', 'sql-insert', text(scope, 'inserts rows'));
}

/**
 * The changed table's name and alias (`UPDATE ONLY public.users AS u`, `MERGE INTO t x`),
 * the qualifiers under which an assigned column refers to the row being changed.
 */
function mainTargets(tokens: readonly SqlToken[], start: number, to: number): Set<string> {
  const names = new Set<string>();
  const table = readQualifiedName(tokens, start, to);
  if (table === undefined) return names;
  names.add(table.name);
  const alias = isWord(tokens[table.next], 'as') ? table.next + 1 : table.next;
  const name = nameOf(tokens[alias]);
  if (name !== undefined && !(tokens[alias]?.kind === 'word' && ALIAS_STOP.has(name)))
    names.add(name);
  return names;
}

/**
 * Why a list of assignments (`a = 1, b = a + 1`) would change something again when
 * repeated: an expression reading a column the list assigns, written unqualified, with the
 * qualifier of the assignment (`o.n = o.n + 1`), or with the changed table's name or alias
 * when the assignment is unqualified (`n = t.n + 1`); a column of another table (`s.n`,
 * `excluded.n`) does not count.
 */
function assignmentProblem(
  tokens: readonly SqlToken[],
  from: number,
  to: number,
  depth: number,
  targets: ReadonlySet<string>,
): string | undefined {
  const assigned = new Map<string, Set<string>>();
  const pieces: Array<{ column: string; from: number; to: number }> = [];
  let start = from;
  for (let i = from; i <= to; i++) {
    const token = tokens[i];
    if (i < to && !(token?.depth === depth && isOp(token, ','))) continue;
    let equals = -1;
    for (let j = start; j < i; j++) {
      if ((tokens[j] as SqlToken).depth === depth && isOp(tokens[j], '=')) {
        equals = j;
        break;
      }
    }
    if (equals < 0) return 'it has an assignment hintgate cannot read';
    let column = '';
    for (let j = start; j < equals; j++) {
      const name = nameOf(tokens[j]);
      if (name === undefined || isOp(tokens[j + 1], '.')) continue;
      const qualifier = isOp(tokens[j - 1], '.') ? (nameOf(tokens[j - 2]) ?? '') : '';
      const qualifiers = assigned.get(name) ?? new Set<string>();
      qualifiers.add(qualifier);
      assigned.set(name, qualifiers);
      column ||= name;
    }
    pieces.push({ column, from: equals + 1, to: i });
    start = i + 1;
  }
  for (const piece of pieces) {
    for (let j = piece.from; j < piece.to; j++) {
      const name = nameOf(tokens[j]);
      if (name === undefined || isOp(tokens[j + 1], '(') || isOp(tokens[j + 1], '.')) continue;
      const qualifiers = assigned.get(name);
      if (qualifiers === undefined) continue;
      const qualifier = isOp(tokens[j - 1], '.') ? nameOf(tokens[j - 2]) : undefined;
      const self =
        qualifier === undefined ||
        qualifiers.has(qualifier) ||
        (qualifiers.has('') && targets.has(qualifier));
      if (!self) continue;
      return name === piece.column
        ? `it assigns \`${name}\` from its own value`
        : `it assigns \`${piece.column}\` from \`${name}\`, which it also changes`;
    }
  }
  return undefined;
}

function volatileValue(tokens: readonly SqlToken[], from: number, to: number): string | undefined {
  for (let i = from; i < to; i++) {
    const token = tokens[i] as SqlToken;
    if (token.kind === 'string') {
      if (VOLATILE_STRINGS.has(token.text.trim().toLowerCase())) return `'${token.text}'`;
      continue;
    }
    if (token.kind !== 'word') continue;
    const call = isOp(tokens[i + 1], '(');
    if (call && VOLATILE_FUNCTIONS.has(token.text)) return `${token.text}()`;
    if (!call && VOLATILE_KEYWORDS.has(token.text)) return token.text.toUpperCase();
  }
  return undefined;
}

/** Why repeating an UPDATE, DELETE or MERGE would change more rows or other values. */
function repeatProblem(
  tokens: readonly SqlToken[],
  head: number,
  to: number,
  table: string | undefined,
): string | undefined {
  const base = (tokens[head] as SqlToken).depth;
  const volatile = volatileValue(tokens, head + 1, to);
  if (volatile !== undefined) return `it uses ${volatile}, whose value changes between calls`;
  for (let i = head + 1; i < to; i++) {
    const token = tokens[i] as SqlToken;
    const limited =
      isWord(token, 'limit') ||
      (i === head + 1 && isWord(token, 'top')) ||
      (isWord(token, 'fetch') && (isWord(tokens[i + 1], 'first') || isWord(tokens[i + 1], 'next')));
    if (limited) {
      return `it changes a limited number of rows (${token.text.toUpperCase()}): a repeat changes the next ones`;
    }
    if (table === undefined || token.depth <= base) continue;
    if (isWord(token, 'from') || isWord(token, 'join')) {
      const read = readQualifiedName(tokens, skipWords(tokens, i + 1, to, ONLY), to);
      if (read?.name === table) {
        return `it picks rows with a subquery on its own table \`${table}\`: a repeat may pick others`;
      }
    }
  }
  return undefined;
}

/** UPDATE: destructive; idempotent unless a repeat would change more. */
export function updateEffect(scope: StatementScope, head: number, to: number): Finding {
  const tokens = scope.tokens;
  const base = (tokens[head] as SqlToken).depth;
  const table = readQualifiedName(tokens, skipWords(tokens, head + 1, to, UPDATE_MODIFIERS), to);
  const set = findWord(tokens, head + 1, to, base, SET);
  const result = finding(
    DESTRUCTIVE_IDEMPOTENT,
    'UPDATE',
    'sql-update',
    text(scope, 'updates rows in place'),
  );
  const end = findWord(tokens, set + 1, to, base, UPDATE_CLAUSE_END);
  const targets = mainTargets(tokens, skipWords(tokens, head + 1, to, UPDATE_MODIFIERS), to);
  const problem =
    (set < to
      ? assignmentProblem(tokens, set + 1, end, base, targets)
      : 'it has no SET clause hintgate can read') ?? repeatProblem(tokens, head, to, table?.name);
  return problem === undefined
    ? result
    : repeated(result, DESTRUCTIVE, notIdempotent(scope, 'UPDATE', problem));
}

/** DELETE: destructive; deleting the same rows again changes nothing, unless it would pick others. */
export function deleteEffect(scope: StatementScope, head: number, to: number): Finding {
  const tokens = scope.tokens;
  const base = (tokens[head] as SqlToken).depth;
  const from = findWord(tokens, head + 1, to, base, FROM);
  const table = readQualifiedName(tokens, skipWords(tokens, from + 1, to, ONLY), to);
  const everything =
    table !== undefined &&
    findWord(tokens, from + 1, to, base, WHERE) === to &&
    findWord(tokens, from + 1, to, base, USING) === to;
  const phrase = everything ? `deletes every row of \`${table.name}\`` : 'deletes rows';
  const result = finding(DESTRUCTIVE_IDEMPOTENT, 'DELETE', 'sql-delete', text(scope, phrase));
  const problem = repeatProblem(tokens, head, to, table?.name);
  return problem === undefined
    ? result
    : repeated(result, DESTRUCTIVE, notIdempotent(scope, 'DELETE', problem));
}

/** MERGE: by its branches; destructive when it updates or deletes, additive when it only inserts. */
export function mergeEffect(scope: StatementScope, head: number, to: number): Finding {
  const tokens = scope.tokens;
  const base = (tokens[head] as SqlToken).depth;
  const using = findWord(tokens, head + 1, to, base, USING);
  const targets = mainTargets(tokens, skipWords(tokens, head + 1, to, INTO), to);
  const table = readQualifiedName(tokens, skipWords(tokens, head + 1, to, INTO), to);
  let updates = false;
  let deletes = false;
  let inserts = false;
  let problem: string | undefined;
  for (
    let i = findWord(tokens, using, to, base, THEN);
    i < to;
    i = findWord(tokens, i + 1, to, base, THEN)
  ) {
    const action = tokens[i + 1];
    if (isWord(action, 'delete')) deletes = true;
    else if (isWord(action, 'insert')) inserts = true;
    else if (isWord(action, 'update') && isWord(tokens[i + 2], 'set')) {
      updates = true;
      const end = findWord(tokens, i + 3, to, base, MERGE_CLAUSE_END);
      problem ??= assignmentProblem(tokens, i + 3, end, base, targets);
    }
  }
  if (deletes && inserts)
    problem ??= 'it deletes matched rows and inserts unmatched ones: a repeat flips them back';
  problem ??= repeatProblem(tokens, head, to, table?.name);
  const hints = updates || deletes ? DESTRUCTIVE_IDEMPOTENT : { ...ADDITIVE, idempotentHint: true };
  const phrase =
    updates || deletes
      ? 'updates or deletes matching rows'
      : 'inserts the rows that do not match yet';
  const result = finding(hints, 'MERGE', 'sql-merge', text(scope, phrase));
  return problem === undefined
    ? result
    : repeated(result, hints, notIdempotent(scope, 'MERGE', problem));
}
