/**
 * The statements whose effect depends on their clauses or arguments rather than on their
 * first keyword alone: SELECT (`INTO`, `FOR UPDATE`), CREATE (`OR REPLACE`, `IF NOT
 * EXISTS`), ALTER (`ADD` only), COPY (direction and target), SET (`GLOBAL`), PRAGMA, the
 * keywords of `SIMPLE_STATEMENTS`, and psql/mysql backslash commands.
 */
import type { Finding } from './hints.js';
import {
  ADDITIVE,
  CONSERVATIVE,
  DESTRUCTIVE,
  DESTRUCTIVE_IDEMPOTENT,
  GENTLE_IDEMPOTENT,
  READ,
  finding,
} from './hints.js';
import type { SqlToken } from './sql-lexer.js';
import { lexSql } from './sql-lexer.js';
import { findWord, isOp, isWord, readQualifiedName, wordSet } from './sql-scan.js';
import {
  ACTION_PRAGMAS,
  EXEC_META_COMMANDS,
  OUTPUT_META_COMMANDS,
  READ_META_COMMANDS,
  READ_PRAGMAS,
  SIMPLE_STATEMENTS,
} from './sql-tables.js';
import type { StatementScope } from './sql-writes.js';

/** A statement in its script: the scope plus the source, for excerpts of nested parts. */
export interface Context extends StatementScope {
  readonly src: string;
  readonly end: number;
  /** How many statements this one is nested in (sub-statements, `EXPLAIN ANALYZE`). */
  readonly nesting: number;
}

/** What the first keyword of a (sub-)statement says, and whether the statement runs code. */
export interface Head {
  readonly findings: readonly Finding[];
  /** False for statements that define or plan rather than run (DDL, plain EXPLAIN). */
  readonly runs: boolean;
}

const DIRECTIONS = wordSet('to from');
const LOCK_STRENGTHS = wordSet('update share no key');
const SERVER_SETTINGS = wordSet('global persist persist_only password');
const REPLICATION_STATE = wordSet('master slave replica binary persist');
const REPLACE = wordSet('replace');
const CURSOR = wordSet('cursor');
const SPACE = / /g;
const WHITESPACE = /\s/;

/** A finding of a statement, its rule named after the keyword (`sql-select-into`). */
export function make(
  scope: Context,
  hints: Finding['hints'],
  word: string,
  phrase: string,
): Finding {
  return finding(
    hints,
    word,
    `sql-${word.toLowerCase().replace(SPACE, '-')}`,
    `${scope.label} ${phrase}`,
  );
}

/** One finding as a head. */
export function one(item: Finding, runs = false): Head {
  return { findings: [item], runs };
}

/** SELECT: read-only, unless it creates a table or file (`INTO`) or locks rows. */
export function selectHead(scope: Context, head: number, to: number): Head {
  const tokens = scope.tokens;
  const base = (tokens[head] as SqlToken).depth;
  for (let i = head + 1; i < to; i++) {
    const token = tokens[i] as SqlToken;
    const next = tokens[i + 1];
    if (token.depth === base && isWord(token, 'into')) {
      if (isWord(next, 'outfile') || isWord(next, 'dumpfile')) {
        return one(
          make(scope, ADDITIVE, 'INTO OUTFILE', 'writes a file on the database server'),
          true,
        );
      }
      const variable = next?.kind === 'param' || (next?.kind === 'op' && next.text.startsWith('@'));
      if (!variable)
        return one(make(scope, ADDITIVE, 'SELECT INTO', 'creates a table from its rows'), true);
    }
    const locks =
      (isWord(token, 'for') && next?.kind === 'word' && LOCK_STRENGTHS.has(next.text)) ||
      (isWord(token, 'lock') && isWord(next, 'in') && isWord(tokens[i + 2], 'share'));
    if (locks) {
      return one(
        make(
          scope,
          GENTLE_IDEMPOTENT,
          'FOR UPDATE',
          'locks the rows it reads until the transaction ends',
        ),
        true,
      );
    }
  }
  return one(make(scope, READ, 'SELECT', 'only reads'), true);
}

/** CREATE: additive; idempotent with `IF NOT EXISTS`; `OR REPLACE` destructive. */
export function createHead(scope: Context, head: number, to: number): Head {
  const tokens = scope.tokens;
  if (isWord(tokens[head + 1], 'or') && isWord(tokens[head + 2], 'replace')) {
    return one(
      make(
        scope,
        DESTRUCTIVE_IDEMPOTENT,
        'CREATE OR REPLACE',
        'replaces a definition if it exists',
      ),
    );
  }
  const limit = Math.min(to, head + 12);
  for (let i = head + 1; i + 2 < limit; i++) {
    if (
      isWord(tokens[i], 'if') &&
      isWord(tokens[i + 1], 'not') &&
      isWord(tokens[i + 2], 'exists')
    ) {
      return one(
        make(
          scope,
          GENTLE_IDEMPOTENT,
          'CREATE IF NOT EXISTS',
          'creates an object unless it exists',
        ),
      );
    }
  }
  return one(make(scope, ADDITIVE, 'CREATE', 'creates an object'));
}

/** ALTER: destructive, except an `ALTER TABLE` that only adds. */
export function alterHead(scope: Context, head: number, to: number): Head {
  const tokens = scope.tokens;
  if (isWord(tokens[head + 1], 'system')) {
    return one(make(scope, DESTRUCTIVE_IDEMPOTENT, 'ALTER SYSTEM', 'changes server configuration'));
  }
  const altered = one(make(scope, DESTRUCTIVE, 'ALTER', 'changes an existing object'));
  if (!isWord(tokens[head + 1], 'table')) return altered;
  let i = head + 2;
  while (isWord(tokens[i], 'if') || isWord(tokens[i], 'exists') || isWord(tokens[i], 'only')) i++;
  const name = readQualifiedName(tokens, i, to);
  if (name === undefined) return altered;
  const base = (tokens[head] as SqlToken).depth;
  let guarded = true;
  for (let start = name.next; start < to;) {
    if (!isWord(tokens[start], 'add')) return altered;
    let end = start + 1;
    while (end < to && !((tokens[end] as SqlToken).depth === base && isOp(tokens[end], ','))) end++;
    // ADD [COLUMN] IF NOT EXISTS …: the guard comes within the first few words.
    let exists = false;
    for (let j = start + 1; j < Math.min(end, start + 5); j++)
      exists ||= isWord(tokens[j], 'exists');
    guarded &&= exists;
    start = end + 1;
  }
  return guarded
    ? one(
        make(
          scope,
          GENTLE_IDEMPOTENT,
          'ALTER TABLE ADD IF NOT EXISTS',
          'only adds to a table, unless already there',
        ),
      )
    : one(make(scope, ADDITIVE, 'ALTER TABLE ADD', 'only adds columns or constraints to a table'));
}

/** COPY: by direction and target; `PROGRAM` is conservative. */
export function copyHead(scope: Context, head: number, to: number, where: string): Head {
  const tokens = scope.tokens;
  const direction = findWord(tokens, head + 1, to, (tokens[head] as SqlToken).depth, DIRECTIONS);
  const target = tokens[direction + 1];
  if (direction >= to)
    return one(make(scope, CONSERVATIVE, 'COPY', 'is a COPY hintgate cannot read'));
  if (isWord(target, 'program')) {
    return one(make(scope, CONSERVATIVE, 'COPY PROGRAM', `runs a shell program ${where}`));
  }
  if (isWord(tokens[direction], 'from')) {
    return one(make(scope, ADDITIVE, 'COPY FROM', 'loads rows into a table'), true);
  }
  if (isWord(target, 'stdout'))
    return one(make(scope, READ, 'COPY TO STDOUT', 'only reads rows out'), true);
  return one(
    make(scope, DESTRUCTIVE_IDEMPOTENT, 'COPY TO', `writes rows to a file ${where}`),
    true,
  );
}

/** SET: session settings are read-only; server-wide settings and passwords are not. */
export function setHead(scope: Context, head: number, to: number): Head {
  const tokens = scope.tokens;
  for (let i = head + 1; i < to; i++) {
    const token = tokens[i] as SqlToken;
    const setting = token.kind === 'word' && SERVER_SETTINGS.has(token.text);
    if (setting || (isWord(token, 'default') && isWord(tokens[i + 1], 'role'))) {
      return one(
        make(
          scope,
          DESTRUCTIVE_IDEMPOTENT,
          'SET GLOBAL',
          'changes server-wide settings or credentials',
        ),
      );
    }
  }
  return one(make(scope, READ, 'SET', 'only changes session settings'));
}

/** SQLite PRAGMA: reading a setting, running maintenance, or changing a setting. */
export function pragmaHead(scope: Context, head: number, to: number): Head {
  const tokens = scope.tokens;
  const name = readQualifiedName(tokens, head + 1, to);
  if (name === undefined) return one(make(scope, READ, 'PRAGMA', 'only reads a database setting'));
  const after = tokens[name.next];
  if (isOp(after, '=') || (isOp(after, '(') && !READ_PRAGMAS.has(name.name))) {
    return one(
      make(
        scope,
        DESTRUCTIVE_IDEMPOTENT,
        'PRAGMA',
        `changes the database setting \`${name.name}\``,
      ),
    );
  }
  if (ACTION_PRAGMAS.has(name.name)) {
    return one(
      make(scope, GENTLE_IDEMPOTENT, 'PRAGMA', `runs the maintenance pragma \`${name.name}\``),
    );
  }
  return one(make(scope, READ, 'PRAGMA', `only reads \`${name.name}\``));
}

/** Every other first keyword: RESET, LOAD, DECLARE, START, the simple table, or unknown. */
export function otherHead(scope: Context, word: string, head: number, to: number): Head {
  const tokens = scope.tokens;
  const next = tokens[head + 1];
  switch (word) {
    case 'reset':
      return next?.kind === 'word' && REPLICATION_STATE.has(next.text)
        ? one(make(scope, DESTRUCTIVE_IDEMPOTENT, 'RESET', 'deletes replication state or logs'))
        : one(make(scope, READ, 'RESET', 'only changes session settings'));
    case 'load':
      if (!isWord(next, 'data') && !isWord(next, 'xml')) {
        return one(make(scope, CONSERVATIVE, 'LOAD', 'loads a code library'));
      }
      return findWord(tokens, head + 2, to, (tokens[head] as SqlToken).depth, REPLACE) < to
        ? one(make(scope, DESTRUCTIVE, 'LOAD DATA REPLACE', 'loads rows, replacing existing ones'))
        : one(make(scope, ADDITIVE, 'LOAD DATA', 'loads rows into a table'));
    case 'declare':
      return findWord(tokens, head + 1, to, (tokens[head] as SqlToken).depth, CURSOR) < to
        ? one(make(scope, READ, 'DECLARE CURSOR', 'declares a cursor over a query'))
        : one(make(scope, CONSERVATIVE, 'DECLARE', 'starts a procedural block'));
    case 'start':
      return isWord(next, 'transaction')
        ? one(make(scope, READ, 'START TRANSACTION', 'only changes transaction state'))
        : one(make(scope, CONSERVATIVE, 'START', 'starts a server process'));
    default: {
      const known = SIMPLE_STATEMENTS.get(word);
      if (known !== undefined)
        return one(make(scope, known.hints, word.toUpperCase(), known.phrase), word === 'values');
      return one(
        make(
          scope,
          CONSERVATIVE,
          word.toUpperCase(),
          `starts with \`${word.toUpperCase()}\`, which is not a statement hintgate knows`,
        ),
      );
    }
  }
}

/** A psql or mysql client backslash command (`\\dt`, `\\copy`, `\\!`). */
export function metaEffect(scope: Context, text: string): Finding {
  const bang = text.startsWith('!');
  const space = text.search(WHITESPACE);
  const raw = bang ? '!' : space < 0 ? text : text.slice(0, space);
  const name = raw.length > 1 && raw.endsWith('+') ? raw.slice(0, -1) : raw;
  const args = bang ? text.slice(1).trim() : space < 0 ? '' : text.slice(space).trim();
  if (name.startsWith('d'))
    return make(scope, READ, `\\${name}`, 'only describes database objects');
  if (name === 'copy') {
    const statement = lexSql(`copy ${args}`).statements[0];
    if (statement !== undefined) {
      const inner: Context = { ...scope, tokens: statement.tokens };
      return copyHead(inner, 0, statement.tokens.length, 'on the client').findings[0] as Finding;
    }
  }
  if (name === 'lo_import') return make(scope, ADDITIVE, '\\lo_import', 'creates a large object');
  if (name === 'lo_export' || name === 'lo_unlink') {
    return make(
      scope,
      DESTRUCTIVE_IDEMPOTENT,
      `\\${name}`,
      'deletes a large object or overwrites a file',
    );
  }
  if (OUTPUT_META_COMMANDS.has(name)) {
    if (args === '')
      return make(scope, READ, `\\${name}`, 'only runs or redirects the query buffer');
    return args.startsWith('|')
      ? make(scope, CONSERVATIVE, `\\${name}`, 'pipes output to a shell command')
      : make(scope, DESTRUCTIVE_IDEMPOTENT, `\\${name}`, 'writes output to a file');
  }
  if (EXEC_META_COMMANDS.has(name)) {
    return make(
      scope,
      CONSERVATIVE,
      `\\${name}`,
      'runs a script, a shell command or query results',
    );
  }
  if (READ_META_COMMANDS.has(name)) {
    return make(scope, READ, `\\${name}`, 'only shows information or changes client settings');
  }
  return make(scope, CONSERVATIVE, `\\${name}`, 'is a client command hintgate does not know');
}
