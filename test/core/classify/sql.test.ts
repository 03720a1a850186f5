import { describe, expect, it } from 'vitest';
import { classifySql } from '../../../src/core/dynamic/index.js';
import { lexSql, SQL_DIALECTS } from '../../../src/core/classify/sql-lexer.js';
import type { HintCode } from './codes.js';
import { codeOf, reasonText } from './codes.js';

type Row = readonly [sql: string, code: HintCode, reason: string];

describe('classifySql', () => {
  const reads: Row[] = [
    [
      "SELECT id, email FROM users WHERE created_at > now() - interval '7 days' ORDER BY created_at DESC LIMIT 50",
      'R',
      'only reads',
    ],
    [
      "WITH daily AS (SELECT date_trunc('day', created_at) AS d, count(*) AS n FROM orders GROUP BY 1) SELECT d, n, avg(n) OVER (ORDER BY d ROWS 6 PRECEDING) FROM daily",
      'R',
      'only reads',
    ],
    [
      'SELECT "public"."User"."id", "public"."User"."email" FROM "public"."User" WHERE "public"."User"."id" = $1 LIMIT $2 OFFSET $3',
      'R',
      'only reads',
    ],
    [
      'SELECT "auth_user"."id", "auth_user"."username" FROM "auth_user" WHERE "auth_user"."is_active" ORDER BY "auth_user"."id" ASC',
      'R',
      'only reads',
    ],
    ['SELECT `id`, `name` FROM `products` WHERE `price` > 10 AND `name` LIKE ?', 'R', 'only reads'],
    [
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
      'R',
      'only reads',
    ],
    ['SHOW TABLES', 'R', 'only shows'],
    ['SHOW search_path', 'R', 'only shows'],
    ['EXPLAIN SELECT * FROM orders WHERE customer_id = 42', 'R', 'without running'],
    ['EXPLAIN (FORMAT JSON) SELECT 1', 'R', 'without running'],
    ['EXPLAIN (ANALYZE false, COSTS off) DELETE FROM t', 'R', 'without running'],
    ['EXPLAIN QUERY PLAN SELECT * FROM users WHERE email = ?', 'R', 'without running'],
    ['EXPLAIN ANALYZE SELECT * FROM orders', 'R', 'runs its statement, which only reads'],
    ['DESCRIBE users', 'R', 'without running'],
    ['DESC orders', 'R', 'without running'],
    ["VALUES (1, 'a'), (2, 'b')", 'R', 'only computes'],
    ['TABLE users', 'R', 'only computes or reads'],
    ['SELECT sqlite_version()', 'R', 'only reads'],
    ['SELECT pg_sleep(1)', 'R', 'only reads'],
    ["SELECT set_config('search_path', 'app', false)", 'R', 'only reads'],
    ['PRAGMA table_info(users)', 'R', 'only reads `table_info`'],
    ['PRAGMA journal_mode', 'R', 'only reads `journal_mode`'],
    ['BEGIN; SELECT 1; COMMIT;', 'R', 'SQL statement 1 `BEGIN`'],
    ['START TRANSACTION READ ONLY; SELECT 1; ROLLBACK', 'R', 'only changes transaction state'],
    ['SET search_path TO app, public', 'R', 'only changes session settings'],
    ['SET LOCAL statement_timeout = 5000', 'R', 'only changes session settings'],
    ['DECLARE c CURSOR FOR SELECT * FROM big; FETCH 100 FROM c; CLOSE c', 'R', 'cursor'],
    ['COPY users TO STDOUT WITH (FORMAT csv, HEADER)', 'R', 'only reads rows out'],
    ['\\dt', 'R', 'only describes database objects'],
    ['\\d+ users', 'R', 'only describes database objects'],
    ['\\l', 'R', 'only shows information'],
    ['\\x', 'R', 'only shows information'],
    ['SELECT 1 \\gx', 'R', 'only reads'],
  ];

  const writes: Row[] = [
    ["INSERT INTO users (email, name) VALUES ('a@b.c', 'A')", 'A', 'inserts rows'],
    [
      'INSERT INTO "User" ("email","name") VALUES ($1,$2) RETURNING "User"."id", "User"."email"',
      'A',
      'inserts rows',
    ],
    ['INSERT INTO events SELECT * FROM staging_events WHERE batch = 7', 'A', 'inserts rows'],
    ["INSERT IGNORE INTO tags (name) VALUES ('x')", 'A', 'inserts rows'],
    ["INSERT OR IGNORE INTO kv (k, v) VALUES ('a', 1)", 'A', 'inserts rows'],
    ["INSERT INTO kv (k, v) VALUES ('a', 1) ON CONFLICT DO NOTHING", 'A', 'inserts rows'],
    [
      'CREATE TABLE users (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE, created_at timestamptz DEFAULT now())',
      'A',
      'creates an object',
    ],
    [
      'CREATE TABLE IF NOT EXISTS schema_migrations (version bigint PRIMARY KEY, applied_at timestamptz)',
      'AI',
      'unless it exists',
    ],
    [
      'CREATE INDEX CONCURRENTLY idx_orders_customer ON orders (customer_id)',
      'A',
      'creates an object',
    ],
    ['CREATE UNIQUE INDEX IF NOT EXISTS idx_users_email ON users (lower(email))', 'AI', 'unless'],
    ['ALTER TABLE users ADD COLUMN last_login timestamptz', 'A', 'only adds'],
    ['ALTER TABLE "users" ADD "admin" boolean DEFAULT FALSE', 'A', 'only adds'],
    ['ALTER TABLE users ADD COLUMN IF NOT EXISTS last_login timestamptz', 'AI', 'unless already'],
    [
      "SELECT * INTO archive_2023 FROM orders WHERE created_at < '2024-01-01'",
      'A',
      'creates a table from its rows',
    ],
    ['SELECT id INTO @last_id FROM users ORDER BY id DESC LIMIT 1', 'R', 'only reads'],
    [
      "SELECT * FROM orders INTO OUTFILE '/tmp/orders.csv' FIELDS TERMINATED BY ','",
      'A',
      'writes a file on the database server',
    ],
    ["SELECT nextval('orders_id_seq')", 'A', 'calls `nextval()`, which advances a sequence'],
    ["COPY events FROM '/tmp/events.csv' WITH (FORMAT csv)", 'A', 'loads rows'],
    ['COPY events FROM STDIN', 'A', 'loads rows'],
    ["NOTIFY jobs, 'new'", 'A', 'sends a notification'],
    [
      'MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id)',
      'AI',
      'inserts the rows that do not match yet',
    ],
    [
      "SELECT * FROM jobs WHERE status = 'queued' ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1",
      'AI',
      'locks the rows',
    ],
    ['SELECT * FROM accounts WHERE id = 1 LOCK IN SHARE MODE', 'AI', 'locks the rows'],
    ['LOCK TABLE orders IN ACCESS EXCLUSIVE MODE', 'AI', 'locks a table'],
    ['VACUUM (VERBOSE, ANALYZE) orders', 'AI', 'maintenance'],
    ['REINDEX TABLE orders', 'AI', 'maintenance'],
    ['REFRESH MATERIALIZED VIEW CONCURRENTLY daily_sales', 'AI', 'maintenance'],
    ['PRAGMA optimize', 'AI', 'maintenance pragma'],
  ];

  const destructive: Row[] = [
    ['UPDATE users SET email_verified = true WHERE id = 42', 'DI', 'updates rows in place'],
    ["UPDATE jobs SET status = 'done', finished = true WHERE id = 3", 'DI', 'updates rows'],
    [
      'UPDATE accounts SET balance = balance - 100 WHERE id = 1',
      'D',
      'assigns `balance` from its own value',
    ],
    ['UPDATE posts SET views = views + 1 WHERE id = $1', 'D', 'assigns `views` from its own value'],
    ["UPDATE t SET a = a || 'x'", 'D', 'assigns `a` from its own value'],
    ['UPDATE inventory i SET qty = i.qty - 1 WHERE sku = 7', 'D', 'from its own value'],
    ['UPDATE t SET a = b, b = a', 'D', 'assigns `a` from `b`, which it also changes'],
    ['UPDATE sessions SET last_seen = now() WHERE id = 7', 'D', 'it uses now()'],
    ['UPDATE t SET updated_at = CURRENT_TIMESTAMP WHERE id = 1', 'D', 'CURRENT_TIMESTAMP'],
    ["UPDATE t SET touched = datetime('now') WHERE id = 1", 'D', "'now'"],
    ['UPDATE t SET token = gen_random_uuid() WHERE id = 1', 'D', 'gen_random_uuid()'],
    [
      "UPDATE jobs SET status = 'running' WHERE id = (SELECT min(id) FROM jobs WHERE status = 'queued')",
      'D',
      'subquery on its own table `jobs`',
    ],
    ['UPDATE t SET flag = 1 WHERE flag = 0 LIMIT 100', 'D', 'limited number of rows (LIMIT)'],
    [
      'UPDATE orders o JOIN customers c ON o.customer_id = c.id SET o.region = c.region',
      'DI',
      'updates rows',
    ],
    [
      'UPDATE orders SET total = s.total FROM order_sums s WHERE s.order_id = orders.id',
      'DI',
      'updates rows',
    ],
    ['DELETE FROM users WHERE id = 42', 'DI', 'deletes rows'],
    ['DELETE FROM logs', 'DI', 'deletes every row of `logs`'],
    ['DELETE FROM t WHERE id = 1 RETURNING *', 'DI', 'deletes rows'],
    ['DELETE FROM sessions WHERE expires_at < now()', 'D', 'it uses now()'],
    [
      'DELETE FROM queue WHERE id IN (SELECT id FROM queue ORDER BY id LIMIT 10)',
      'D',
      'a repeat may pick others',
    ],
    ["DELETE FROM logs WHERE level = 'debug' LIMIT 1000", 'D', 'limited number of rows (LIMIT)'],
    [
      'DELETE FROM queue WHERE id = (SELECT min(id) FROM queue)',
      'D',
      'subquery on its own table `queue`',
    ],
    ['DROP TABLE IF EXISTS tmp_import CASCADE', 'DI', 'drops an object'],
    ['TRUNCATE TABLE audit_log RESTART IDENTITY', 'DI', 'empties a table'],
    ['ALTER TABLE users DROP COLUMN legacy_flag', 'D', 'changes an existing object'],
    ['ALTER TABLE orders ALTER COLUMN total TYPE numeric(12,2)', 'D', 'changes an existing'],
    ['ALTER TABLE orders RENAME TO orders_old', 'D', 'changes an existing object'],
    ["ALTER SYSTEM SET work_mem = '64MB'", 'DI', 'server configuration'],
    ['GRANT SELECT ON ALL TABLES IN SCHEMA public TO readonly', 'DI', 'changes privileges'],
    ['REVOKE ALL ON users FROM app', 'DI', 'changes privileges'],
    [
      "INSERT INTO kv (k, v) VALUES ('a', 1) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v",
      'D',
      'inserts rows or updates the existing ones',
    ],
    [
      "INSERT INTO counters (k, n) VALUES ('x', 1) ON DUPLICATE KEY UPDATE n = n + 1",
      'D',
      'updates the existing ones',
    ],
    ["REPLACE INTO settings (k, v) VALUES ('theme', 'dark')", 'D', 'replaces existing rows'],
    ['INSERT OR REPLACE INTO t VALUES (1)', 'D', 'replaces existing rows'],
    ['UPSERT INTO t (k, v) VALUES (1, 2)', 'D', 'replaces existing rows'],
    [
      'MERGE INTO inventory t USING shipments s ON t.sku = s.sku WHEN MATCHED THEN UPDATE SET qty = t.qty + s.qty WHEN NOT MATCHED THEN INSERT (sku, qty) VALUES (s.sku, s.qty)',
      'D',
      'assigns `qty` from its own value',
    ],
    [
      'MERGE INTO customers c USING staging s ON c.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, s.name)',
      'DI',
      'updates or deletes matching rows',
    ],
    [
      'MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (s.id)',
      'D',
      'flips them back',
    ],
    [
      'CREATE OR REPLACE VIEW active_users AS SELECT * FROM users WHERE active',
      'DI',
      'replaces a definition',
    ],
    ["SELECT setval('orders_id_seq', 1000)", 'DI', 'calls `setval()`'],
    [
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'idle'",
      'DI',
      'ends or cancels another session',
    ],
    ["SELECT dblink_exec('conn', 'DELETE FROM t')", 'D', 'runs SQL or code given as text'],
    ["SET GLOBAL max_connections = 500; SET PERSIST sql_mode = ''", 'DI', 'server-wide'],
    ['SET @@GLOBAL.read_only = 1', 'DI', 'server-wide'],
    ['PRAGMA foreign_keys = ON', 'DI', 'changes the database setting `foreign_keys`'],
    ['RESET MASTER', 'DI', 'deletes replication state'],
    ['KILL 4242', 'DI', 'ends a session'],
    ["COPY (SELECT * FROM users) TO '/tmp/users.csv' CSV HEADER", 'DI', 'writes rows to a file'],
    ["COPY (SELECT 1) TO PROGRAM 'rm -rf /tmp/x'", 'D', 'runs a shell program'],
    ['CALL refresh_all_views()', 'D', 'runs code'],
    ['DO $$ BEGIN DELETE FROM t; END $$', 'D', 'runs code'],
    ['EXECUTE purge_old(30)', 'D', 'runs code'],
    ["LOAD DATA INFILE '/tmp/x.csv' REPLACE INTO TABLE t", 'D', 'replacing existing ones'],
    ['FROBNICATE TABLE users', 'D', '`FROBNICATE`, which is not a statement hintgate knows'],
  ];

  const tricky: Row[] = [
    ["SELECT '; DROP TABLE x'", 'R', 'only reads'],
    ['SELECT 1 -- ; DELETE FROM t', 'R', 'only reads'],
    ['/* DELETE */ SELECT 1', 'R', 'SQL `SELECT 1` only reads'],
    ['SELECT 1 /* ; DELETE FROM t */', 'R', 'only reads'],
    ['SELECT "col;DROP TABLE x" FROM t', 'R', 'only reads'],
    ['SELECT `a;DROP` FROM t', 'R', 'only reads'],
    ["SELECT * FROM t WHERE name = 'O''Reilly; DELETE FROM t'", 'R', 'only reads'],
    ["INSERT INTO notes (body) VALUES ('DROP TABLE users; --')", 'A', 'inserts rows'],
    ["SELECT E'it\\'s; fine'", 'R', 'only reads'],
    ['SELECT 1; DROP TABLE users', 'DI', 'SQL statement 2 `DROP TABLE users` drops an object'],
    ['SELECT 1;;; SELECT 2;', 'R', 'SQL statement 1 `SELECT 1`'],
    ['EXPLAIN ANALYZE DELETE FROM t WHERE id = 1', 'DI', 'runs its statement, which deletes rows'],
    ['EXPLAIN (ANALYZE, BUFFERS) UPDATE t SET n = n + 1', 'D', 'from its own value'],
    [
      'WITH deleted AS (DELETE FROM sessions WHERE id = 1 RETURNING *) SELECT count(*) FROM deleted',
      'DI',
      'has a sub-statement `DELETE FROM sessions WHERE id = 1 RETUR…` that deletes rows',
    ],
    [
      'WITH moved AS (DELETE FROM inbox WHERE id = 1 RETURNING *) INSERT INTO archive SELECT * FROM moved',
      'D',
      'inserts rows',
    ],
    [
      'WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT sum(n) FROM t',
      'R',
      'only reads',
    ],
    [
      'SELECT * FROM (WITH x AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM x) s',
      'DI',
      'sub-statement',
    ],
    ['(SELECT 1) UNION (SELECT 2)', 'R', 'only reads'],
    [
      'CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql; SELECT f()',
      'A',
      'creates an object',
    ],
    [
      'CREATE TRIGGER trg AFTER DELETE ON parent BEGIN DELETE FROM child WHERE parent_id = old.id; END;',
      'A',
      'creates an object',
    ],
    [
      'BEGIN;\n--\n-- Create model Author\n--\nCREATE TABLE "app_author" ("id" bigint NOT NULL PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY, "name" varchar(100) NOT NULL);\nCOMMIT;',
      'A',
      'creates an object',
    ],
    ['BEGIN;\nUPDATE accounts SET balance = 0 WHERE id = 1;\nCOMMIT;', 'DI', 'updates rows'],
    ["\\copy users to 'users.csv' csv header", 'DI', 'writes rows to a file on the client'],
    ["\\copy t from 'x.csv' with csv", 'A', 'loads rows'],
    ['\\! rm -rf /', 'D', 'runs a script, a shell command'],
    ['\\i migrate.sql', 'D', 'runs a script'],
    ['\\o /tmp/out.txt', 'DI', 'writes output to a file'],
    ['\\o | mail ops', 'D', 'pipes output to a shell command'],
  ];

  const dialects: Row[] = [
    // PostgreSQL (standard strings): 'a\' ends, so a DROP follows; MySQL reads one string.
    ["SELECT 'a\\'; DROP TABLE t; --'", 'DI', 'as PostgreSQL reads the script'],
    // MySQL: `#` starts a comment; PostgreSQL: an operator, so the DROP runs.
    ['SELECT 1 # ; DROP TABLE t', 'DI', 'as PostgreSQL reads the script'],
    // MySQL runs the text of /*! … */ comments.
    ['/*! DROP TABLE t */ SELECT 1', 'DI', 'as MySQL reads the script'],
    // PostgreSQL nests comments; MySQL and SQLite end at the first */.
    ['/* /* */ DROP TABLE t; */ SELECT 1', 'DI', 'as MySQL reads the script'],
    // MySQL: `--` needs a space to start a comment.
    ['SELECT 1 --; DELETE FROM t', 'DI', 'as MySQL reads the script'],
    // Dollar quotes hide text only in PostgreSQL; elsewhere `$$` is a name.
    ['SELECT 1 $$; DROP TABLE t; $$', 'DI', 'as MySQL reads the script'],
    // The same text is harmless in every reading.
    ["SELECT 'C:\\temp' AS path", 'R', 'only reads'],
  ];

  it.each([...reads, ...writes, ...destructive, ...tricky, ...dialects])(
    '%s → %s',
    (sql, code, reason) => {
      const result = classifySql(sql);
      expect(codeOf(result)).toBe(code);
      expect(reasonText(result)).toContain(reason);
    },
  );

  it('does not apply to an empty script or one of only comments', () => {
    expect(classifySql('')).toBeUndefined();
    expect(classifySql('  -- nothing\n/* at all */ ;; ')).toBeUndefined();
  });

  it('is conservative about statements nested too deeply to read', () => {
    const deep = `SELECT ${'(SELECT '.repeat(5000)}1${')'.repeat(5000)}`;
    const result = classifySql(deep);
    expect(codeOf(result)).toBe('D');
    expect(reasonText(result)).toContain('nests statements too deeply to read');
  });

  it('never sets openWorldHint: that belongs to the tool', () => {
    expect(classifySql('DELETE FROM t')?.annotations).not.toHaveProperty('openWorldHint');
  });

  it('gives each field the reason of the statement that decided it', () => {
    const result = classifySql('SELECT 1; INSERT INTO t VALUES (1); UPDATE t SET n = n + 1');
    expect(result?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(result?.reasons.destructiveHint?.text).toContain('statement 3');
    expect(result?.reasons.idempotentHint?.text).toContain('from its own value');
    expect(result?.reasons.readOnlyHint).toMatchObject({ part: 'argument', strength: 'strong' });
    expect(result?.findings).toHaveLength(3);
  });

  it('reads a psql backslash command after a statement as a statement of its own', () => {
    const result = classifySql('SELECT 1\n\\dt\nSELECT 2');
    expect(codeOf(result)).toBe('R');
    expect(result?.findings.map((reason) => reason.text)).toEqual([
      'SQL statement 1 `SELECT 1` only reads',
      'SQL statement 2 `\\dt` only describes database objects',
      'SQL statement 3 `SELECT 2` only reads',
    ]);
  });

  it('classifies a psql session script statement by statement', () => {
    const script = [
      '\\set ON_ERROR_STOP on',
      'BEGIN;',
      'CREATE TABLE IF NOT EXISTS t (id int);',
      'INSERT INTO t VALUES (1);',
      'COMMIT;',
      '\\dt',
    ].join('\n');
    const result = classifySql(script);
    expect(codeOf(result)).toBe('A');
    expect(result?.findings.length).toBe(6);
  });
});

describe('lexSql', () => {
  it('splits on semicolons outside strings, identifiers, comments and dollar quotes', () => {
    const { statements } = lexSql(
      'SELECT \';\'; SELECT ";"; SELECT $x$;$x$; -- ;\nSELECT 1 /* ; */',
    );
    expect(statements).toHaveLength(4);
  });

  it('keeps the tokens of a statement with their parenthesis depth', () => {
    const { statements } = lexSql('SELECT (a + (b)) FROM t');
    const depths = statements[0]?.tokens.map((token) => `${token.text}:${token.depth}`);
    expect(depths).toEqual([
      'select:0',
      '(:0',
      'a:1',
      '+:1',
      '(:1',
      'b:2',
      '):1',
      '):0',
      'from:0',
      't:0',
    ]);
  });

  it('flags scripts the dialects read differently', () => {
    expect(lexSql('SELECT 1').ambiguous).toBe(false);
    expect(lexSql("SELECT 'a\\'").ambiguous).toBe(true);
    expect(lexSql('SELECT $$x$$').ambiguous).toBe(true);
    expect(SQL_DIALECTS.map((dialect) => dialect.name)).toEqual(['PostgreSQL', 'MySQL', 'SQLite']);
  });

  it('runs unterminated strings and comments to the end', () => {
    expect(lexSql("SELECT 'unterminated; DROP TABLE t").statements).toHaveLength(1);
    expect(lexSql('SELECT 1 /* DROP TABLE t; ').statements).toHaveLength(1);
  });
});
