import type { Sql } from './sql.js';
import { isoTime } from './sql.js';
import type { OAuthCredential, OAuthCredentialInput, OAuthCredentialSummary } from './types.js';
import type { InputIssue } from './validate.js';

interface CredentialRow {
  server: string;
  principal: string;
  sealed: string;
  expires_at: unknown;
  scope: string | null;
  refreshable: boolean;
  logged_in_at: unknown;
  updated_at: unknown;
}

const NAME = /^[A-Za-z0-9_-]{1,128}$/;
/** Principals are config names or OAuth subjects: printable, bounded. */
const PRINCIPAL = /^[\x21-\x7e]{0,256}$/;
const MAX_SEALED = 256 * 1024;

/** Problems with a credential's key (server, principal), naming the field. */
export function checkCredentialKey(server: unknown, principal: unknown): InputIssue[] {
  const issues: InputIssue[] = [];
  if (typeof server !== 'string' || !NAME.test(server))
    issues.push({ path: 'server', message: 'expected a server name of letters, digits, "_", "-"' });
  if (typeof principal !== 'string' || !PRINCIPAL.test(principal))
    issues.push({
      path: 'principal',
      message: 'expected a principal of at most 256 printable characters, or "" for the server',
    });
  return issues;
}

/** Problems with a credential write, naming the field. */
export function checkCredentialInput(input: OAuthCredentialInput): InputIssue[] {
  const issues = checkCredentialKey(input.server, input.principal ?? '');
  if (typeof input.sealed !== 'string' || input.sealed === '' || input.sealed.length > MAX_SEALED)
    issues.push({ path: 'sealed', message: 'expected the sealed credential document' });
  if (input.expiresAt !== undefined && Number.isNaN(Date.parse(input.expiresAt)))
    issues.push({ path: 'expiresAt', message: 'expected an ISO time' });
  if (input.scope !== undefined && (typeof input.scope !== 'string' || input.scope.length > 4096))
    issues.push({ path: 'scope', message: 'expected a scope string of at most 4096 characters' });
  return issues;
}

function summaryOf(row: CredentialRow): OAuthCredentialSummary {
  return {
    server: row.server,
    principal: row.principal,
    refreshable: row.refreshable,
    updatedAt: isoTime(row.updated_at),
    ...(row.expires_at === null ? {} : { expiresAt: isoTime(row.expires_at) }),
    ...(row.scope === null ? {} : { scope: row.scope }),
    ...(row.logged_in_at === null ? {} : { loggedInAt: isoTime(row.logged_in_at) }),
  };
}

/** One credential with its sealed document, or undefined. */
export async function selectCredential(
  sql: Sql,
  server: string,
  principal: string,
): Promise<OAuthCredential | undefined> {
  const [row] = await sql.query<CredentialRow>(
    'SELECT * FROM oauth_credentials WHERE server = $1 AND principal = $2',
    [server, principal],
  );
  return row === undefined ? undefined : { ...summaryOf(row), sealed: row.sealed };
}

/** Every credential's summary (never its sealed document), by server then principal. */
export async function selectCredentialSummaries(
  sql: Sql,
  server: string | undefined,
): Promise<OAuthCredentialSummary[]> {
  const rows = await sql.query<CredentialRow>(
    `SELECT * FROM oauth_credentials WHERE ($1::text IS NULL OR server = $1)
     ORDER BY server, principal`,
    [server ?? null],
  );
  return rows.map(summaryOf);
}

/** Inserts or replaces a credential. */
export async function upsertCredential(sql: Sql, input: OAuthCredentialInput): Promise<void> {
  await sql.query(
    `INSERT INTO oauth_credentials
       (server, principal, sealed, expires_at, scope, refreshable, logged_in_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (server, principal) DO UPDATE SET
       sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at, scope = EXCLUDED.scope,
       refreshable = EXCLUDED.refreshable,
       logged_in_at = COALESCE(EXCLUDED.logged_in_at, oauth_credentials.logged_in_at),
       updated_at = now()`,
    [
      input.server,
      input.principal ?? '',
      input.sealed,
      input.expiresAt ?? null,
      input.scope ?? null,
      input.refreshable ?? false,
      input.loggedInAt ?? null,
    ],
  );
}

/** Deletes one principal's credential, or every credential of the server; returns how many. */
export async function deleteCredentials(
  sql: Sql,
  server: string,
  principal: string | undefined,
): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM oauth_credentials WHERE server = $1 AND ($2::text IS NULL OR principal = $2)
     RETURNING server`,
    [server, principal ?? null],
  );
  return rows.length;
}
