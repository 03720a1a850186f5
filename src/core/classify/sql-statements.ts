/**
 * Classifying one SQL statement: by its first keyword, refined by the clauses that change
 * what it does (see `sql-heads.ts` and `sql-writes.ts`), plus the data-changing statements
 * nested in it (`WITH d AS (DELETE …) SELECT …`), the statement `EXPLAIN ANALYZE` runs, and
 * the side-effecting functions it calls (`SELECT nextval('s')`).
 */
import type { Finding } from './hints.js';
import { CONSERVATIVE, READ, excerpt } from './hints.js';
import type { Context, Head } from './sql-heads.js';
import {
  alterHead,
  copyHead,
  createHead,
  make,
  metaEffect,
  one,
  otherHead,
  pragmaHead,
  selectHead,
  setHead,
} from './sql-heads.js';
import type { SqlStatement, SqlToken } from './sql-lexer.js';
import { findWord, isOp, isWord, matchingClose, sourceOf, wordSet } from './sql-scan.js';
import { SIDE_EFFECT_FUNCTIONS } from './sql-tables.js';
import { deleteEffect, insertEffect, mergeEffect, updateEffect } from './sql-writes.js';

/** Keywords that start a statement nested in parentheses. */
const SUB_HEADS = wordSet('select insert update delete merge with values');
/** Keywords that start the main statement after a WITH list, or the one EXPLAIN plans. */
const MAIN_HEADS = wordSet('select insert update delete merge values table replace');
const EXPLAINED = wordSet(
  'select insert update delete merge values table replace with create execute declare',
);
const NEGATIVE = wordSet('false off');
/** Statements nested deeper than this are not read; the statement is conservative. */
const MAX_SQL_NESTING = 16;

function explainHead(scope: Context, head: number, to: number): Head {
  const tokens = scope.tokens;
  let analyze = false;
  let i = head + 1;
  for (; i < to; i++) {
    const token = tokens[i] as SqlToken;
    if (i === head + 1 && isOp(token, '(')) {
      const close = matchingClose(tokens, i, to);
      for (let j = i + 1; j < close; j++) {
        const option = tokens[j] as SqlToken;
        if (!isWord(option, 'analyze') && !isWord(option, 'analyse')) continue;
        const value = tokens[j + 1];
        analyze ||= !(value?.kind === 'word' && NEGATIVE.has(value.text)) && value?.text !== '0';
      }
      i = close;
      continue;
    }
    if (isWord(token, 'analyze') || isWord(token, 'analyse')) analyze = true;
    if (token.kind === 'word' && EXPLAINED.has(token.text)) break;
  }
  if (!analyze || i >= to) {
    return one(
      make(scope, READ, 'EXPLAIN', 'only shows a plan or a description, without running anything'),
    );
  }
  const inner: Context = {
    ...scope,
    label: `${scope.label} runs its statement, which`,
    nesting: scope.nesting + 1,
  };
  return { findings: headOf(inner, i, to).findings, runs: true };
}

/** The findings of the (sub-)statement whose first keyword is at `head`. */
function headOf(scope: Context, head: number, to: number): Head {
  if (scope.nesting > MAX_SQL_NESTING) {
    return one(make(scope, CONSERVATIVE, 'nesting', 'nests statements too deeply to read'));
  }
  const token = scope.tokens[head] as SqlToken;
  if (token.kind === 'meta') return one(metaEffect(scope, token.text));
  if (token.kind !== 'word') {
    return one(
      make(scope, CONSERVATIVE, token.text, 'does not start with a keyword hintgate knows'),
    );
  }
  switch (token.text) {
    case 'select':
      return selectHead(scope, head, to);
    case 'with': {
      const main = findWord(scope.tokens, head + 1, to, token.depth, MAIN_HEADS);
      if (main >= to)
        return one(make(scope, CONSERVATIVE, 'WITH', 'is a WITH query hintgate cannot read'));
      return { findings: headOf(scope, main, to).findings, runs: true };
    }
    case 'insert':
    case 'replace':
    case 'upsert':
      return one(insertEffect(scope, head, to), true);
    case 'update':
      return one(updateEffect(scope, head, to), true);
    case 'delete':
      return one(deleteEffect(scope, head, to), true);
    case 'merge':
      return one(mergeEffect(scope, head, to), true);
    case 'create':
      return createHead(scope, head, to);
    case 'alter':
      return alterHead(scope, head, to);
    case 'explain':
    case 'describe':
    case 'desc':
      return explainHead(scope, head, to);
    case 'copy':
      return copyHead(scope, head, to, 'on the database server');
    case 'set':
      return setHead(scope, head, to);
    case 'pragma':
      return pragmaHead(scope, head, to);
    default:
      return otherHead(scope, token.text, head, to);
  }
}

/** Adds the findings of `[from, to)` and of the data-changing statements nested in it. */
function classifyTree(
  scope: Context,
  from: number,
  to: number,
  into: Finding[],
  nested: boolean,
): boolean {
  const tokens = scope.tokens;
  let head = from;
  while (head < to && isOp(tokens[head], '(')) head++;
  if (head >= to) return false;
  const { findings, runs } = headOf(scope, head, to);
  for (const item of findings) if (!nested || !item.hints.readOnlyHint) into.push(item);
  if (!runs) return false;
  for (let i = head; i < to; i++) {
    const next = tokens[i + 1];
    if (!isOp(tokens[i], '(') || next?.kind !== 'word' || !SUB_HEADS.has(next.text)) continue;
    const close = matchingClose(tokens, i, to);
    const part = excerpt(sourceOf(scope.src, tokens, i + 1, close, scope.end), 40);
    classifyTree(
      {
        ...scope,
        label: `${scope.label} has a sub-statement \`${part}\` that`,
        nesting: scope.nesting + 1,
      },
      i + 1,
      close,
      into,
      true,
    );
    i = close;
  }
  return true;
}

function functionFindings(scope: Context, into: Finding[]): void {
  const tokens = scope.tokens;
  const seen = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as SqlToken;
    if (token.kind !== 'word' || !isOp(tokens[i + 1], '(') || seen.has(token.text)) continue;
    const known = SIDE_EFFECT_FUNCTIONS.get(token.text);
    if (known === undefined) continue;
    seen.add(token.text);
    into.push(
      make(
        scope,
        known.hints,
        `${token.text}()`,
        `calls \`${token.text}()\`, which ${known.phrase}`,
      ),
    );
  }
}

/**
 * The findings of one statement of a script, labelled for its reasons (`SQL statement 2
 * \`DROP TABLE x\``). With `lenient`, a statement that does not start with a keyword is
 * skipped rather than conservative: in another dialect's reading of the script it is a
 * syntax error, which runs nothing.
 */
export function classifyStatement(
  src: string,
  statement: SqlStatement,
  label: string,
  lenient = false,
): Finding[] {
  const tokens = statement.tokens;
  const head = tokens.find((token) => !(token.kind === 'op' && token.text === '('));
  if (lenient && head !== undefined && head.kind !== 'word' && head.kind !== 'meta') return [];
  const scope: Context = { tokens, label, src, end: statement.end, nesting: 0 };
  const findings: Finding[] = [];
  if (classifyTree(scope, 0, tokens.length, findings, false)) functionFindings(scope, findings);
  return findings;
}
