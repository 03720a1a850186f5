/**
 * The SQL argument classifier: what a script passed to a query tool does, statement by
 * statement, the worst per field.
 */
import type { ClassifierResult, Finding } from './hints.js';
import { combineFindings, excerpt } from './hints.js';
import type { SqlDialect, SqlStatement } from './sql-lexer.js';
import { SQL_DIALECTS, lexSql } from './sql-lexer.js';
import { classifyStatement } from './sql-statements.js';

function findingsOf(
  src: string,
  statements: readonly SqlStatement[],
  suffix: string,
  lenient: boolean,
): Finding[] {
  const findings: Finding[] = [];
  statements.forEach((statement, index) => {
    const first = statement.tokens[0];
    const text = excerpt(src.slice(first?.start ?? statement.start, statement.end));
    const label =
      statements.length > 1
        ? `SQL statement ${index + 1} \`${text}\`${suffix}`
        : `SQL \`${text}\`${suffix}`;
    findings.push(...classifyStatement(src, statement, label, lenient));
  });
  return findings;
}

function readAs(src: string, dialect: SqlDialect, named: boolean): Finding[] {
  const suffix = named ? ` (as ${dialect.name} reads the script)` : '';
  return findingsOf(src, lexSql(src, dialect).statements, suffix, dialect !== SQL_DIALECTS[0]);
}

function sameHints(a: ClassifierResult | undefined, b: ClassifierResult | undefined): boolean {
  const x = a?.annotations;
  const y = b?.annotations;
  return (
    x?.readOnlyHint === y?.readOnlyHint &&
    x?.destructiveHint === y?.destructiveHint &&
    x?.idempotentHint === y?.idempotentHint
  );
}

/**
 * Classifies a SQL script (PostgreSQL, MySQL or SQLite, with psql and mysql client
 * backslash commands) for one call: each statement by its kind, the worst per field over
 * all statements. Comments, string literals, quoted names and dollar-quoted bodies never
 * count as code; where dialects lex a script differently (backslash escapes, `#`
 * comments, dollar quotes, nested comments), every reading is classified and the worst
 * wins. `undefined` when the script has no statement.
 *
 * Decisions, all documented in the tables of `sql-tables.ts` and `sql-writes.ts`:
 * - read-only: SELECT, VALUES, TABLE, SHOW, DESCRIBE, EXPLAIN without ANALYZE, cursor
 *   reads, `COPY … TO STDOUT`, psql `\d…`; session and transaction control (BEGIN,
 *   COMMIT, ROLLBACK, session SET) changes no data and counts as read-only.
 * - not read-only: `SELECT … INTO` (creates a table or a file), `SELECT … FOR UPDATE`
 *   (locks rows; not destructive, idempotent), side-effecting functions anywhere
 *   (`nextval` additive, `setval` and `pg_terminate_backend` destructive; `dblink_exec`
 *   and `load_extension` conservative), `EXPLAIN ANALYZE` (classified as its statement).
 * - INSERT additive and never idempotent; upserts (`ON CONFLICT DO UPDATE`,
 *   `ON DUPLICATE KEY UPDATE`, `REPLACE`, `UPSERT`, `INSERT OR REPLACE`) destructive.
 * - UPDATE and MERGE destructive, DELETE, DROP, TRUNCATE, GRANT, REVOKE destructive;
 *   idempotent as `sql-writes.ts` reads them (deleting the same rows twice has no further
 *   effect, as the proposal's `delete` example says). ALTER destructive and not idempotent,
 *   except an `ALTER TABLE … ADD` that only adds (additive).
 * - CREATE additive, idempotent with `IF NOT EXISTS`; `CREATE OR REPLACE` destructive.
 * - CALL, DO, EXECUTE, `COPY … PROGRAM`, psql `\!` and `\i`, and any unknown statement:
 *   conservative (not read-only, destructive, not idempotent).
 * - `openWorldHint` is never set: whether the database is an open world is a property of
 *   the tool, not of one statement, so the tool's own value stands.
 *
 * @example classifySql('SELECT 1; DELETE FROM t WHERE id = 2')?.annotations
 * // { readOnlyHint: false, destructiveHint: true, idempotentHint: true }
 */
export function classifySql(statement: string): ClassifierResult | undefined {
  const [postgres, ...others] = SQL_DIALECTS as [SqlDialect, ...SqlDialect[]];
  const first = lexSql(statement, postgres);
  const base = combineFindings(findingsOf(statement, first.statements, '', false));
  if (!first.ambiguous) return base;
  const differing = others.filter(
    (dialect) => !sameHints(combineFindings(readAs(statement, dialect, false)), base),
  );
  if (differing.length === 0) return base;
  return combineFindings(
    [postgres, ...differing].flatMap((dialect) => readAs(statement, dialect, true)),
  );
}
