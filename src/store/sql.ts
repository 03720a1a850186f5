import { HintgateError, errorMessage, isHintgateError } from '../core/errors.js';
import { jsonOf } from '../core/util/json-text.js';
import type { StoreKind } from './types.js';

/** One connection's worth of SQL: parameterized queries and multi-statement scripts. */
export interface Sql {
  /** Runs one statement with `$n` parameters and returns its rows. */
  query<R>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters. */
  exec(text: string): Promise<void>;
  /**
   * Appends rows to `table` with `COPY … FROM STDIN`: `data` is COPY's text format, a line
   * per row with the `columns` in order, separated by tabs, each value made with
   * {@link copyText}, {@link copyJson} or {@link COPY_NULL}. The cheapest way to add many
   * rows: no statement to plan, no JSON document to take apart.
   */
  copyFrom(table: string, columns: readonly string[], data: string): Promise<void>;
}

/**
 * What each implementation provides to the shared SQL code: reads, transactions, and a way
 * to tell other processes about committed changes.
 */
export interface SqlDriver {
  readonly kind: StoreKind;
  /** Where the data lives, for messages (a directory, or a URL without its password). */
  readonly location: string;
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** Runs `fn` in one transaction: all of its writes commit together or none do. */
  transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** Sends payloads to other processes when the transaction commits (PostgreSQL NOTIFY). */
  publish?(sql: Sql, payloads: readonly string[]): Promise<void>;
  /**
   * Runs `fn` holding a lock named `key` against every process sharing the database
   * (PostgreSQL); absent, the store locks within its own process.
   */
  exclusive?<T>(key: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOENT',
  'EACCES',
  'EPERM',
  'ENOTDIR',
  'EROFS',
  'ENOSPC',
  // SQLSTATE: database missing, too many connections, shutting down, cannot connect now.
  '3D000',
  '53300',
  '57P01',
  '57P02',
  '57P03',
]);
const CONNECTION_MESSAGES =
  /connection terminated|connection error|timeout exceeded when trying to connect|not queryable|pool after calling end|pglite is clos(ed|ing)|store process .* (has exited|was killed|exited with|failed)|cannot start the store process|unreachable/i;

/** The SQLSTATE or system error code of an error, when it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = error.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when an error says the database cannot be reached, rather than a query being wrong. */
export function isConnectionError(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined && (CONNECTION_CODES.has(code) || /^(08|28)/.test(code))) return true;
  return error instanceof Error && CONNECTION_MESSAGES.test(error.message);
}

/**
 * True when a write failed for what was in it: the database refused a value (SQLSTATE class
 * 22, a data exception; 23, a constraint; 54, a limit, such as a value too large for an
 * index), or hintgate could not turn it into SQL (an error with no SQLSTATE, or one of Node's
 * own, such as a value JSON cannot hold). Any other failure is the database's own (out of disk,
 * memory or files, its files gone, a privilege missing, a system error), which a record in a
 * form the database always takes meets as well; so is a store that cannot be reached
 * (`STORE_UNAVAILABLE`).
 */
export function isRecordRefused(error: unknown): boolean {
  if (isHintgateError(error, 'STORE_UNAVAILABLE')) return false;
  const code =
    error instanceof HintgateError
      ? (errorCode(error.details) ?? errorCode(error.cause))
      : errorCode(error);
  if (code === undefined || code.startsWith('ERR_')) return true;
  if (!/^[0-9A-Z]{5}$/.test(code)) return false; // a system error: ENOSPC, EIO…
  return /^(22|23|54)/.test(code);
}

/**
 * A thrown value as a {@link HintgateError}: kept as it is when it already is one,
 * `STORE_UNAVAILABLE` when the database cannot be reached, `INTERNAL` otherwise (a query
 * hintgate got wrong). The original is always the `cause`.
 */
export function toStoreError(error: unknown, location: string): HintgateError {
  if (error instanceof HintgateError) return error;
  const code = errorCode(error);
  const details = code === undefined ? { location } : { location, code };
  if (isConnectionError(error)) {
    return new HintgateError(
      'STORE_UNAVAILABLE',
      `store at ${location} is unavailable: ${errorMessage(error)}`,
      details,
      { cause: error },
    );
  }
  return new HintgateError(
    'INTERNAL',
    `store at ${location}: query failed: ${errorMessage(error)}`,
    details,
    { cause: error },
  );
}

/** A database time (a `Date`, or a string inside JSON) as an ISO 8601 string in UTC. */
export function isoTime(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' || typeof value === 'number') return new Date(value).toISOString();
  throw new HintgateError('INTERNAL', `expected a time from the database, got ${typeof value}`);
}

/** Like {@link isoTime}, for a column that may be null. */
export function optionalIsoTime(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : isoTime(value);
}

/** A JSON value for a `$n::jsonb` parameter (both drivers receive it as text). */
export function jsonParam(value: unknown): string | null {
  return value === undefined ? null : pgJson(value);
}

/**
 * Escapes of what PostgreSQL's text and jsonb refuse (`\u0000`, and a lone surrogate, which
 * `JSON.stringify` writes as an escape), not preceded by an escaping backslash.
 */
const REFUSED_ESCAPES = /(\\+)u(0000|d[89a-f][0-9a-f]{2})/gi;

/**
 * `value` as JSON text PostgreSQL accepts as jsonb: a NUL character, or half of a surrogate
 * pair, inside a string or key is kept as the visible six characters of its escape (`\u0000`
 * becomes the text `\u0000`): escaped, not lost, and not refused with the rest of a batch.
 */
export function pgJson(value: unknown): string {
  return keepRefusedEscapes(JSON.stringify(value));
}

/** JSON text with the escapes PostgreSQL refuses made visible text (see {@link pgJson}). */
function keepRefusedEscapes(json: string): string {
  if (!json.includes('\\u')) return json;
  return json.replace(REFUSED_ESCAPES, (match, slashes: string, code: string) =>
    slashes.length % 2 === 1 ? `${slashes}\\u${code}` : match,
  );
}

/** A string for a text parameter: a NUL (refused by PostgreSQL) kept as the text `\u0000`. */
export function pgText<T extends string | null | undefined>(value: T): T {
  return (
    typeof value === 'string' && value.includes('\u0000')
      ? value.replaceAll('\u0000', '\\u0000')
      : value
  ) as T;
}

/** `COPY table (columns) FROM source`, the names quoted. */
export function copyStatement(table: string, columns: readonly string[], source: string): string {
  const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
  return `COPY ${quote(table)} (${columns.map(quote).join(', ')}) FROM ${source}`;
}

/** A null value in COPY's text format. */
export const COPY_NULL = '\\N';

/** What COPY's text format escapes, and what PostgreSQL's text refuses (NUL, a lone surrogate). */
const COPY_SPECIAL = /[\\\n\r\t\0\ud800-\udfff]/;
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  // NUL and a half surrogate pair are kept as the visible text of their escape, as `pgJson`
  // keeps them inside JSON: escaped, not lost, and not refused with the rest of a batch.
  '\0': '\\\\u0000',
};

/** Each character COPY_SPECIAL matches, a surrogate pair as one. */
const COPY_SPECIAL_ALL = /[\\\n\r\t\0]|[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]/g;

/** A text value in COPY's text format (see {@link Sql.copyFrom}). */
export function copyText(value: string): string {
  if (!COPY_SPECIAL.test(value)) return value;
  return value.replace(COPY_SPECIAL_ALL, (match) => {
    // A whole surrogate pair is an ordinary character.
    if (match.length === 2) return match;
    const escape = COPY_ESCAPES[match];
    if (escape !== undefined) return escape;
    return `\\\\u${match.charCodeAt(0).toString(16)}`;
  });
}

/**
 * A JSON value in COPY's text format, as text PostgreSQL accepts as json or jsonb
 * ({@link pgJson}); {@link COPY_NULL} for what JSON cannot hold (`undefined`, a function).
 */
export function copyJson(value: unknown): string {
  // An object's text may have been made already (a call's arguments, for its server).
  const json =
    typeof value === 'object' && value !== null
      ? jsonOf(value)
      : (JSON.stringify(value) as string | undefined);
  if (json === undefined) return COPY_NULL;
  // JSON text holds no raw line breaks or tabs: only its backslashes need escaping.
  return json.includes('\\') ? keepRefusedEscapes(json).replaceAll('\\', '\\\\') : json;
}

/** `{ key: value }` when `value` is set, `{}` otherwise: for optional fields of results. */
export function present<K extends string, V>(
  key: K,
  value: V | null | undefined,
): { [P in K]?: V } {
  return value === null || value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
