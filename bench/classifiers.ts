/**
 * Argument classifier throughput: SQL statements and shell commands per second, and the
 * latency of one classification (p50, p99), against a whole-string regex baseline.
 *
 *   npx tsc -p bench/tsconfig.json && node bench/dist/bench/classifiers.js
 *
 * Builds 10,000 SQL scripts and 10,000 shell command lines deterministically from templates
 * modelled on real use (ORM queries, migrations, analytics, psql sessions, CI one-liners,
 * README install steps), with seeded names, values, comments and quoting, then times each
 * classifier on one core after warming up. The baseline tests one precompiled regex per
 * verdict against the whole string, as many gateways do; it is faster and wrong (comments
 * and literals fool it), which is the price the lexers pay for.
 */
import { classifyShell, classifySql } from '../src/core/dynamic/index.js';

const COUNT = 10_000;
const ROUNDS = 5;
const ROUND_SECONDS = 0.5;

/** mulberry32: a small seeded generator, so every run measures the same inputs. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Pick = <T>(items: readonly T[]) => T;

const TABLES = [
  'users',
  'orders',
  'order_items',
  'sessions',
  'audit_log',
  'products',
  'jobs',
  'accounts',
  'events',
];
const COLUMNS = [
  'id',
  'email',
  'status',
  'created_at',
  'total',
  'customer_id',
  'name',
  'qty',
  'updated_at',
];
const STATUSES = ['pending', 'done', 'failed', 'queued', 'active'];

const SQL_TEMPLATES: ReadonlyArray<(p: Pick, n: number) => string> = [
  (p, n) =>
    `SELECT ${p(COLUMNS)}, ${p(COLUMNS)} FROM ${p(TABLES)} WHERE ${p(COLUMNS)} = ${n} ORDER BY ${p(COLUMNS)} DESC LIMIT 50`,
  (p, n) =>
    `SELECT "public"."${p(TABLES)}"."id", "public"."${p(TABLES)}"."${p(COLUMNS)}" FROM "public"."${p(TABLES)}" WHERE "id" = $1 LIMIT $2 OFFSET ${n}`,
  (p) =>
    `SELECT \`${p(COLUMNS)}\`, \`${p(COLUMNS)}\` FROM \`${p(TABLES)}\` WHERE \`${p(COLUMNS)}\` LIKE ? -- mysql`,
  (p) =>
    `WITH daily AS (SELECT date_trunc('day', created_at) AS d, count(*) AS n FROM ${p(TABLES)} GROUP BY 1) SELECT d, n, avg(n) OVER (ORDER BY d ROWS 6 PRECEDING) FROM daily`,
  (p, n) =>
    `SELECT o.id, sum(i.qty * i.price) FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.customer_id = ${n} AND o.status = '${p(STATUSES)}' GROUP BY o.id HAVING sum(i.qty) > 3`,
  (p, n) =>
    `INSERT INTO ${p(TABLES)} (${p(COLUMNS)}, ${p(COLUMNS)}) VALUES (${n}, 'it''s ${p(STATUSES)}') RETURNING id`,
  (p, n) =>
    `INSERT INTO kv (k, v) VALUES ('k${n}', ${n}) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, ${p(COLUMNS)} = now()`,
  (p, n) =>
    `UPDATE ${p(TABLES)} SET status = '${p(STATUSES)}', ${p(COLUMNS)} = ${n} WHERE id = ${n}`,
  (p, n) =>
    `UPDATE ${p(TABLES)} SET ${p(['views', 'total', 'qty'])} = ${p(['views', 'total', 'qty'])} + ${n} WHERE id = $1`,
  (p, n) => `DELETE FROM ${p(TABLES)} WHERE ${p(COLUMNS)} < now() - interval '${n} days'`,
  (p, n) => `DELETE FROM ${p(TABLES)} WHERE id = ${n} RETURNING *`,
  (p) =>
    `BEGIN;\n-- migration\nALTER TABLE ${p(TABLES)} ADD COLUMN IF NOT EXISTS ${p(COLUMNS)}_v2 text;\nCREATE INDEX CONCURRENTLY IF NOT EXISTS idx_${p(COLUMNS)} ON ${p(TABLES)} (${p(COLUMNS)});\nCOMMIT;`,
  (p) =>
    `CREATE TABLE IF NOT EXISTS ${p(TABLES)}_archive (id bigserial PRIMARY KEY, payload jsonb NOT NULL, created_at timestamptz DEFAULT now())`,
  (p) => `DROP TABLE IF EXISTS tmp_${p(TABLES)} CASCADE`,
  (p, n) => `EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM ${p(TABLES)} WHERE id = ${n}`,
  (p) => `EXPLAIN ANALYZE DELETE FROM ${p(TABLES)} WHERE status = '${p(STATUSES)}'`,
  (p, n) =>
    `WITH moved AS (DELETE FROM ${p(TABLES)} WHERE id = ${n} RETURNING *) INSERT INTO ${p(TABLES)}_archive SELECT * FROM moved`,
  (p) => `/* report */ SELECT count(*) FROM ${p(TABLES)}; -- DELETE FROM ${p(TABLES)}`,
  (p) => `SELECT '; DROP TABLE ${p(TABLES)}' AS trap, "weird;name" FROM ${p(TABLES)}`,
  (p) =>
    `CREATE OR REPLACE FUNCTION touch_${p(COLUMNS)}() RETURNS trigger AS $$ BEGIN NEW.updated_at = now(); RETURN NEW; END $$ LANGUAGE plpgsql`,
  (p, n) =>
    `MERGE INTO ${p(TABLES)} t USING staging s ON t.id = s.id WHEN MATCHED THEN UPDATE SET qty = s.qty WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, ${n})`,
  (p) =>
    `SELECT * FROM ${p(TABLES)} WHERE status = '${p(STATUSES)}' ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1`,
  () => `\\dt+ public.*`,
  (p) => `\\d ${p(TABLES)}`,
  (p) => `SHOW TABLES; DESCRIBE ${p(TABLES)}`,
  (p) => `PRAGMA table_info(${p(TABLES)})`,
  (p) => `TRUNCATE TABLE ${p(TABLES)} RESTART IDENTITY`,
  (p) => `GRANT SELECT ON ${p(TABLES)} TO readonly`,
  (p) => `COPY (SELECT * FROM ${p(TABLES)}) TO STDOUT WITH (FORMAT csv, HEADER)`,
  (p, n) => `SELECT nextval('${p(TABLES)}_id_seq'), ${n}`,
];

const FILES = [
  'README.md',
  'package.json',
  'src/index.ts',
  'app.log',
  'config.yml',
  'build',
  'dist',
  '.env',
];
const BRANCHES = ['main', 'develop', 'feature/login', 'fix/crash'];
const HOSTS = [
  'https://api.example.com/v1/items',
  'https://registry.npmjs.org/hintgate',
  'https://github.com',
];

const SHELL_TEMPLATES: ReadonlyArray<(p: Pick, n: number) => string> = [
  (p) => `ls -la ${p(FILES)}`,
  (p) => `cat ${p(FILES)} | grep -n "TODO" | wc -l`,
  (p) => `git status --short && git diff --stat HEAD~${p(['1', '2', '3'])}`,
  (p, n) => `git log --oneline -n ${n % 50} -- ${p(FILES)}`,
  (p) =>
    `git add -A && git commit -m "fix: ${p(FILES)} (rm old stuff)" && git push origin ${p(BRANCHES)}`,
  (p) => `git push origin ${p(BRANCHES)} --force-with-lease`,
  (p) => `git reset --hard origin/${p(BRANCHES)}`,
  (p) => `rm -rf ${p(FILES)} node_modules/.cache`,
  (p) => `mkdir -p ${p(FILES)}/out && cp -r src ${p(FILES)}/out`,
  (p) =>
    `find . -name "*.${p(['ts', 'js', 'log'])}" -not -path "./node_modules/*" -exec grep -l "${p(FILES)}" {} +`,
  (p) => `find /tmp -name '*.tmp' -mtime +${p(['1', '7'])} -delete`,
  (p) => `curl -fsSL ${p(HOSTS)} | jq '.${p(COLUMNS)}'`,
  (p, n) =>
    `curl -X ${p(['POST', 'PUT', 'DELETE'])} -H 'Content-Type: application/json' -d '{"id":${n}}' ${p(HOSTS)}/${n}`,
  (p) => `wget -qO- ${p(HOSTS)} > ${p(FILES)}.html`,
  (p) => `docker ps -a --format '{{.Names}}' | grep ${p(TABLES)}`,
  (p) => `docker compose -f docker-compose.yml up -d ${p(TABLES)}`,
  (p) => `kubectl get pods -n ${p(['prod', 'staging'])} -o wide | grep ${p(STATUSES)}`,
  (p, n) => `kubectl delete pod ${p(TABLES)}-${n % 5} -n prod`,
  (p) => `psql "$DATABASE_URL" -c "SELECT count(*) FROM ${p(TABLES)}"`,
  (p) => `psql -U app -d app -c 'DELETE FROM ${p(TABLES)} WHERE expires_at < now()'`,
  (p) => `sqlite3 app.db "SELECT * FROM ${p(TABLES)} LIMIT 5"`,
  (p) => `npm ci && npm run build && npm test -- --reporter=dot 2>&1 | tee ${p(FILES)}.log`,
  (p) => `echo "rm -rf /" > ${p(FILES)} && cat ${p(FILES)}`,
  (p) => `for f in ${p(FILES)} ${p(FILES)}; do wc -l "$f"; done`,
  (p) => `if [ -f ${p(FILES)} ]; then sed -i 's/${p(COLUMNS)}/${p(COLUMNS)}_v2/g' ${p(FILES)}; fi`,
  (p) =>
    `export PATH="$HOME/.local/bin:$PATH"; which ${p(['node', 'python3', 'git'])} && ${p(['node', 'python3', 'git'])} --version`,
  (p) => `tar -czf backup-$(date +%F).tar.gz ${p(FILES)} && ls -lh backup-*.tar.gz`,
  (p) => `ssh deploy@${p(['web1', 'web2'])} 'sudo systemctl restart ${p(['nginx', 'app'])}'`,
  (p) => `sh -c 'cd ${p(FILES)} && ls | head -n 20'`,
  (p) => `cat <<EOF > ${p(FILES)}\nname: ${p(TABLES)}\nwhen: $(date)\nEOF`,
];

function generate(
  templates: ReadonlyArray<(p: Pick, n: number) => string>,
  seed: number,
): string[] {
  const random = seeded(seed);
  const pick: Pick = (items) =>
    items[Math.floor(random() * items.length)] as (typeof items)[number];
  const out: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const template = templates[Math.floor(random() * templates.length)];
    out.push((template as (p: Pick, n: number) => string)(pick, Math.floor(random() * 10_000)));
  }
  return out;
}

/** The baseline: one precompiled regex per verdict, tested on the whole string. */
const NAIVE_SQL_WRITE =
  /\b(?:insert|update|delete|drop|truncate|alter|create|grant|revoke|merge)\b/i;
const NAIVE_SQL_DESTRUCTIVE = /\b(?:update|delete|drop|truncate|alter|revoke)\b/i;
const NAIVE_SHELL_WRITE = /\b(?:rm|mv|cp|dd|mkfs|chmod|chown|kill|push|reset|delete|sed -i)\b|>/;

function naiveSql(sql: string): number {
  return (NAIVE_SQL_WRITE.test(sql) ? 1 : 0) + (NAIVE_SQL_DESTRUCTIVE.test(sql) ? 2 : 0);
}

function naiveShell(command: string): number {
  return NAIVE_SHELL_WRITE.test(command) ? 1 : 0;
}

interface Measurement {
  readonly perCpuSecond: number;
  readonly perWallSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly checksum: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

function measure(inputs: readonly string[], run: (input: string) => number): Measurement {
  let checksum = 0;
  for (let pass = 0; pass < 3; pass++) for (const input of inputs) checksum += run(input);
  // Latency: one call at a time, timed alone (the timer costs ~50 ns, included).
  const latencies: number[] = [];
  for (const input of inputs) {
    const start = process.hrtime.bigint();
    checksum += run(input);
    latencies.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  latencies.sort((a, b) => a - b);
  const cpuRates: number[] = [];
  const wallRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let done = 0;
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < ROUND_SECONDS * 1000) {
      for (const input of inputs) checksum += run(input);
      done += inputs.length;
      elapsed = performance.now() - start;
    }
    const cpu = process.cpuUsage(cpuStart);
    cpuRates.push(done / ((cpu.user + cpu.system) / 1e6));
    wallRates.push((done / elapsed) * 1000);
  }
  return {
    perCpuSecond: median(cpuRates),
    perWallSecond: median(wallRates),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    checksum,
  };
}

function format(value: number): string {
  return Math.round(value).toLocaleString('en-US').padStart(12);
}

function row(label: string, m: Measurement): string {
  const mean = (1e6 / m.perCpuSecond).toFixed(2).padStart(8);
  return `${label.padEnd(30)} ${format(m.perCpuSecond)} ${format(m.perWallSecond)} ${mean} ${m.p50.toFixed(2).padStart(7)} ${m.p99.toFixed(2).padStart(7)}`;
}

/** Classifier results as a number, so the work stays observable. */
function score(result: ReturnType<typeof classifySql>): number {
  if (result === undefined) return 0;
  const { readOnlyHint, destructiveHint, idempotentHint } = result.annotations;
  return (readOnlyHint ? 1 : 0) + (destructiveHint ? 2 : 0) + (idempotentHint ? 4 : 0);
}

function main(): void {
  const sql = generate(SQL_TEMPLATES, 20261122);
  const shell = generate(SHELL_TEMPLATES, 20261123);
  const averageLength = (list: readonly string[]): number =>
    Math.round(list.reduce((sum, item) => sum + item.length, 0) / list.length);
  console.log(
    `classifier throughput: ${COUNT.toLocaleString('en-US')} SQL scripts (avg ${averageLength(sql)} chars, ${SQL_TEMPLATES.length} templates) and ${COUNT.toLocaleString('en-US')} shell lines (avg ${averageLength(shell)} chars, ${SHELL_TEMPLATES.length} templates), one core, warmed up, median of ${ROUNDS} rounds`,
  );
  console.log(`${''.padEnd(30)}   items/cpu-s  items/wall-s  µs/item  p50 µs  p99 µs`);
  const ourSql = measure(sql, (input) => score(classifySql(input)));
  const naiveSqlRun = measure(sql, naiveSql);
  const ourShell = measure(shell, (input) => score(classifyShell(input)));
  const naiveShellRun = measure(shell, naiveShell);
  console.log(row('classifySql', ourSql));
  console.log(row('whole-string regex (SQL)', naiveSqlRun));
  console.log(row('classifyShell', ourShell));
  console.log(row('whole-string regex (shell)', naiveShellRun));
  console.log(
    `ratio to the regex baseline: SQL ${(naiveSqlRun.perCpuSecond / ourSql.perCpuSecond).toFixed(1)}x slower, shell ${(naiveShellRun.perCpuSecond / ourShell.perCpuSecond).toFixed(1)}x slower (goal: p50 well under the 0.5 ms budget of a tools/annotations answer)`,
  );
  if (ourSql.checksum === 0 || ourShell.checksum === 0) process.exitCode = 1;
}

main();
