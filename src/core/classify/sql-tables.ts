/**
 * What SQL statements, functions and client commands do, as tables built once at module
 * load. `sql-statements.ts` handles the statements whose effect depends on their clauses
 * (SELECT, INSERT, UPDATE, CREATE, COPY…); the rest are looked up here by first word.
 */
import type { CallHints } from './hints.js';
import {
  ADDITIVE,
  CONSERVATIVE,
  DESTRUCTIVE_IDEMPOTENT,
  GENTLE_IDEMPOTENT,
  READ,
} from './hints.js';

/** What a statement or function does: the hints, and a phrase for the reason. */
export interface SqlEffect {
  readonly hints: CallHints;
  /** Completes "statement `…` …", e.g. `drops an object`. */
  readonly phrase: string;
}

function effect(hints: CallHints, phrase: string): SqlEffect {
  return { hints, phrase };
}

function words(list: string): string[] {
  return list.split(/\s+/).filter((word) => word.length > 0);
}

function table(hints: CallHints, phrase: string, names: string): Array<[string, SqlEffect]> {
  const shared = effect(hints, phrase);
  return words(names).map((name) => [name, shared]);
}

/**
 * Statements whose first word says all: session and transaction control (which change no
 * data, so a script of only those reads as read-only), cursor reads, maintenance that
 * loses nothing, and the destructive DDL and DCL. `GRANT` counts as destructive: it
 * changes who may do what, and is confirmed like a change of data.
 */
export const SIMPLE_STATEMENTS: ReadonlyMap<string, SqlEffect> = new Map([
  ...table(READ, 'only shows metadata or settings', 'show help checksum check'),
  ...table(READ, 'only computes or reads rows', 'values table fetch move handler'),
  ...table(
    READ,
    'only changes session or transaction state',
    'begin commit end rollback savepoint release abort use listen unlisten discard ' +
      'deallocate unlock detach close prepare',
  ),
  ...table(
    GENTLE_IDEMPOTENT,
    'runs maintenance that loses no data',
    'vacuum analyze analyse reindex cluster optimize repair refresh checkpoint flush',
  ),
  ...table(GENTLE_IDEMPOTENT, 'locks a table until the transaction ends', 'lock'),
  ...table(DESTRUCTIVE_IDEMPOTENT, 'drops an object', 'drop'),
  ...table(DESTRUCTIVE_IDEMPOTENT, 'empties a table', 'truncate'),
  ...table(DESTRUCTIVE_IDEMPOTENT, 'changes privileges', 'grant revoke'),
  ...table(DESTRUCTIVE_IDEMPOTENT, 'replaces a comment on an object', 'comment'),
  ...table(DESTRUCTIVE_IDEMPOTENT, 'renames an object', 'rename'),
  ...table(DESTRUCTIVE_IDEMPOTENT, 'ends a session or query', 'kill'),
  ...table(DESTRUCTIVE_IDEMPOTENT, 'deletes server logs', 'purge'),
  ...table(ADDITIVE, 'sends a notification', 'notify'),
  ...table(ADDITIVE, 'attaches a database file, creating it if missing', 'attach'),
  ...table(ADDITIVE, 'imports foreign tables', 'import'),
  ...table(
    CONSERVATIVE,
    'runs code whose effects the statement does not show',
    'call do execute exec install uninstall shutdown restart',
  ),
]);

/** The effect of DELETE, which the statement code refines for idempotence. */
export const DELETE_EFFECT = effect(DESTRUCTIVE_IDEMPOTENT, 'deletes rows');

/**
 * Functions with side effects, found anywhere in a query or DML statement
 * (`SELECT nextval('s')`, `SELECT pg_terminate_backend(pid)`). Functions that only read
 * (`pg_sleep`, `pg_read_file`) are absent; functions that run SQL or code given as text
 * are conservative.
 */
export const SIDE_EFFECT_FUNCTIONS: ReadonlyMap<string, SqlEffect> = new Map([
  ...table(ADDITIVE, 'advances a sequence', 'nextval'),
  ...table(DESTRUCTIVE_IDEMPOTENT, 'sets a sequence', 'setval'),
  ...table(
    DESTRUCTIVE_IDEMPOTENT,
    'ends or cancels another session',
    'pg_terminate_backend pg_cancel_backend',
  ),
  ...table(
    GENTLE_IDEMPOTENT,
    'reloads or rotates server state',
    'pg_reload_conf pg_rotate_logfile pg_switch_wal',
  ),
  ...table(
    DESTRUCTIVE_IDEMPOTENT,
    'resets statistics',
    'pg_stat_reset pg_stat_reset_shared pg_stat_reset_single_table_counters pg_stat_statements_reset',
  ),
  ...table(
    ADDITIVE,
    'takes or releases a lock held beyond the statement',
    'pg_advisory_lock pg_advisory_lock_shared pg_try_advisory_lock pg_advisory_unlock ' +
      'pg_advisory_unlock_all pg_advisory_xact_lock get_lock release_lock',
  ),
  ...table(
    ADDITIVE,
    'creates something on the server',
    'pg_notify pg_create_restore_point lo_import lo_create lo_from_bytea ' +
      'pg_create_physical_replication_slot pg_create_logical_replication_slot pg_logical_emit_message',
  ),
  ...table(
    DESTRUCTIVE_IDEMPOTENT,
    'deletes or overwrites server state or files',
    'lo_unlink lo_export lo_put pg_file_write pg_file_unlink pg_file_rename ' +
      'pg_drop_replication_slot writefile',
  ),
  ...table(
    CONSERVATIVE,
    'runs SQL or code given as text',
    'dblink dblink_exec dblink_send_query query_to_xml load_extension sys_exec sys_eval',
  ),
]);

/**
 * Functions and keywords whose value changes between calls: an UPDATE that assigns or
 * filters with them is not idempotent (`SET seen_at = now()`).
 */
export const VOLATILE_FUNCTIONS: ReadonlySet<string> = new Set(
  words(`
    now random rand clock_timestamp statement_timestamp transaction_timestamp timeofday
    gen_random_uuid uuid_generate_v1 uuid_generate_v1mc uuid_generate_v4 uuidv4 uuidv7 uuid
    uuid_short newid sysdate getdate getutcdate sysdatetime unix_timestamp utc_timestamp
    utc_date utc_time curdate curtime current_timestamp current_date current_time
    localtimestamp localtime nextval randomblob random_bytes txid_current
  `),
);

/** Volatile values written without parentheses. `DEFAULT` may be one (`DEFAULT now()`). */
export const VOLATILE_KEYWORDS: ReadonlySet<string> = new Set(
  words('current_timestamp current_date current_time localtimestamp localtime sysdate default'),
);

/** String literals that mean the current time (`datetime('now')`, `'today'::date`). */
export const VOLATILE_STRINGS: ReadonlySet<string> = new Set(words('now today tomorrow yesterday'));

/** SQLite pragmas that only read, even with an argument (`PRAGMA table_info(t)`). */
export const READ_PRAGMAS: ReadonlySet<string> = new Set(
  words(`
    table_info table_xinfo table_list index_list index_info index_xinfo foreign_key_list
    foreign_key_check integrity_check quick_check database_list collation_list
    compile_options function_list module_list pragma_list stats data_version freelist_count
    page_count
  `),
);

/** SQLite pragmas that do maintenance even without a value. */
export const ACTION_PRAGMAS: ReadonlySet<string> = new Set(
  words('optimize shrink_memory wal_checkpoint incremental_vacuum'),
);

/**
 * psql and mysql client backslash commands that only show things or change the client's
 * own state (`\dt`, `\x`, `\timing`, `\c db`). Every `\d…` command also reads.
 */
export const READ_META_COMMANDS: ReadonlySet<string> = new Set(
  words(`
    l list conninfo encoding timing x pset a C f H t echo qecho warn set unset c connect q
    quit errverbose sf sv h help ? copyright gx gset gdesc crosstabview watch p print r
    reset if elif else endif bind z lo_list prompt cd setenv getenv G u
  `),
);

/** Client commands that run other scripts, shell commands or query results. */
export const EXEC_META_COMMANDS: ReadonlySet<string> = new Set(
  words('! i ir include include_relative gexec e edit ef ev .'),
);

/** Client commands that write their output to a file given as argument. */
export const OUTPUT_META_COMMANDS: ReadonlySet<string> = new Set(words('o out w write g s'));
