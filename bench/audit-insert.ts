/**
 * Audit records appended to the store as the gateway's writer appends them (batches of up to
 * 1,000 records, and small ones), measured in CPU time per record: in this process (building
 * the statement and sending it) and in the database's (the embedded store's process;
 * PostgreSQL's backends, on this machine). CPU time rather than wall time, so that a loaded
 * machine changes the figures little. The embedded store is measured twice: appending to
 * its audit journal, copied into the database by a read after each size's records (both
 * counted), and with `auditJournal: false`, inserting each batch itself.
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/audit-insert.js
 *
 * `COMPARE_STORE=/other/checkout/dist/store/store.js` adds that build's store to every round,
 * so a change is compared with the code before it in one run. `HINTGATE_TEST_PG_URL` adds
 * PostgreSQL (each setup in a schema of its own, dropped at the end).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditRecordInput, Store, StoreOptions } from '../src/store/store.js';
import { ROOT, fixed, machine, median } from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
/** Records appended per setup and round, in batches of each size. */
const RECORDS = Number(process.env['RECORDS'] ?? 10_000);
const BATCHES = [1_000, 50];
const PG_URL = process.env['HINTGATE_TEST_PG_URL'];
const COMPARE = process.env['COMPARE_STORE'];

type OpenStore = (options: StoreOptions) => Promise<Store>;

/** Clock ticks per second, for /proc/<pid>/stat. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** User and system CPU of a process in µs, from /proc (0 when it is gone). */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1e6;
  } catch {
    return 0;
  }
}

/** This process's children (the embedded store's process). */
function children(): number[] {
  try {
    return readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((pid) => pid !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** One call's record as the gateway builds it (a read-only tool with declared annotations). */
function recordOf(index: number): AuditRecordInput {
  return {
    time: new Date(),
    sessionId: 'c0b8d1e2-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
    client: 'bench',
    principal: 'stdio',
    tool: 'echo_echo',
    namespacedName: 'echo.echo',
    server: 'echo',
    annotations: ANNOTATIONS,
    sources: SOURCES,
    dynamic: false,
    decision: 'allow',
    durationMs: 1 + (index % 7) / 10,
    outcome: 'ok',
    retries: 0,
    cacheHit: false,
    arguments: { text: `t${index}` },
  };
}
const ANNOTATIONS = {
  title: 'Echo',
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const SOURCES = {
  title: 'declared',
  readOnlyHint: 'declared',
  destructiveHint: 'inferred',
  idempotentHint: 'declared',
  openWorldHint: 'declared',
};

interface Setup {
  readonly label: string;
  /** Whether records go to the embedded store's journal first (copied by a read). */
  readonly journal: boolean;
  readonly store: Store;
  /** The database's processes whose CPU counts. */
  readonly databasePids: () => Promise<number[]>;
  readonly cleanup: () => Promise<void>;
  /** µs of CPU per record by batch size: here, in the database. */
  readonly here: Map<number, number[]>;
  readonly database: Map<number, number[]>;
}

/**
 * The embedded store, appending each batch to its audit journal (copied into the database by
 * a read after each size's records, counted) or, with `journal` false, to the database itself.
 */
async function pglite(label: string, open: OpenStore, journal: boolean): Promise<Setup> {
  const before = new Set(children());
  const dir = mkdtempSync(join(tmpdir(), 'hintgate-bench-audit-'));
  const store = await open({
    kind: 'pglite',
    dataDir: dir,
    idleCloseMs: Infinity,
    ...(journal ? {} : { auditJournal: false }),
  });
  // The first run's database creation closes the store; the next statement reopens it.
  await store.queryAudit({ limit: 1 });
  const pids = children().filter((pid) => !before.has(pid));
  return {
    label: `${label}, pglite${journal ? ', journal' : ''}`,
    journal,
    store,
    databasePids: () => Promise.resolve(pids),
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
    here: new Map(),
    database: new Map(),
  };
}

async function postgres(label: string, open: OpenStore, url: string): Promise<Setup> {
  const schema = `bench_audit_${process.pid}_${label.replace(/\W/g, '_')}`;
  const store = await open({ kind: 'postgres', url, schema });
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  return {
    label: `${label}, postgres`,
    journal: false,
    store,
    // Every backend of this database but the one asking.
    databasePids: async () =>
      (
        await admin.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
      ).rows.map((row) => row.pid),
    cleanup: async () => {
      await store.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
    here: new Map(),
    database: new Map(),
  };
}

async function measure(setup: Setup, batch: number, counted: boolean): Promise<void> {
  const pids = await setup.databasePids();
  const records = Array.from({ length: batch }, (_, index) => recordOf(index));
  const databaseBefore = pids.reduce((sum, pid) => sum + cpuOf(pid), 0);
  const hereBefore = process.cpuUsage();
  for (let written = 0; written < RECORDS; written += batch) {
    await setup.store.appendAudit(records);
  }
  // A read copies the journal into the database: its cost counts too.
  if (setup.journal) await setup.store.queryAudit({ limit: 1 });
  const here = process.cpuUsage(hereBefore);
  const database = pids.reduce((sum, pid) => sum + cpuOf(pid), 0) - databaseBefore;
  if (!counted) return;
  push(setup.here, batch, (here.user + here.system) / RECORDS);
  push(setup.database, batch, database / RECORDS);
}

function push(map: Map<number, number[]>, key: number, value: number): void {
  const values = map.get(key) ?? [];
  values.push(value);
  map.set(key, values);
}

const builds: [string, OpenStore][] = [
  [
    'this build',
    ((await import(join(ROOT, 'dist', 'store', 'store.js'))) as { openStore: OpenStore }).openStore,
  ],
];
if (COMPARE !== undefined) {
  const label = COMPARE.split('/').slice(-4, -3).join('') || 'compared';
  builds.push([label, ((await import(COMPARE)) as { openStore: OpenStore }).openStore]);
}

const setups: Setup[] = [];
for (const [index, [label, open]] of builds.entries()) {
  // This build with and without its audit journal; a compared build as it is.
  if (index === 0) setups.push(await pglite(label, open, true));
  setups.push(await pglite(label, open, false));
  if (PG_URL !== undefined) setups.push(await postgres(label, open, PG_URL));
}

console.log(
  `audit records appended: ${machine()}, ${ROUNDS} rounds x ${RECORDS} records per batch size, CPU µs per record (medians over rounds)`,
);
// One round not counted: PGlite's WebAssembly is compiled again, optimized, while it runs.
for (let round = -1; round < ROUNDS; round++) {
  for (const batch of BATCHES) for (const setup of setups) await measure(setup, batch, round >= 0);
}
console.log(
  'setup                          batch   here µs   database µs   total µs   total x first',
);
for (const batch of BATCHES) {
  const first = setups[0];
  const firstTotal =
    first === undefined
      ? Number.NaN
      : median(first.here.get(batch) ?? []) + median(first.database.get(batch) ?? []);
  for (const setup of setups) {
    const here = median(setup.here.get(batch) ?? []);
    const database = median(setup.database.get(batch) ?? []);
    console.log(
      [
        setup.label.padEnd(30),
        String(batch).padStart(6),
        fixed(here, 1).padStart(9),
        fixed(database, 1).padStart(13),
        fixed(here + database, 1).padStart(10),
        fixed((here + database) / firstTotal, 2).padStart(15),
      ].join(' '),
    );
  }
}
for (const setup of setups) await setup.cleanup();
