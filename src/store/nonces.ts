import type { Sql } from './sql.js';
import type { InputIssue } from './validate.js';

/** The longest a nonce is kept: a day, past the longest approval timeout, and a margin. */
export const MAX_NONCE_TTL_MS = 86_400_000 + 600_000;
const MAX_NONCE_LENGTH = 200;

/** Problems with a nonce to claim. */
export function checkNonce(nonce: unknown, ttlMs: unknown): InputIssue[] {
  const issues: InputIssue[] = [];
  if (typeof nonce !== 'string' || nonce === '' || nonce.length > MAX_NONCE_LENGTH)
    issues.push({
      path: 'nonce',
      message: `must be a non-empty string of at most ${MAX_NONCE_LENGTH} characters`,
    });
  if (!Number.isInteger(ttlMs) || (ttlMs as number) <= 0 || (ttlMs as number) > MAX_NONCE_TTL_MS)
    issues.push({
      path: 'ttlMs',
      message: `must be a whole number of milliseconds, 1 to ${MAX_NONCE_TTL_MS}`,
    });
  return issues;
}

/**
 * Records `nonce` as used for `ttlMs` (by the database's clock); true the first time, false
 * while it is still recorded. One statement: two gateways claiming one nonce at once
 * serialize on its key, and one of them gets false; an expired record is claimed afresh.
 */
export async function claimNonce(sql: Sql, nonce: string, ttlMs: number): Promise<boolean> {
  const rows = await sql.query<{ nonce: string }>(
    `INSERT INTO used_nonces (nonce, expires_at)
     VALUES ($1, now() + $2::integer * interval '1 millisecond')
     ON CONFLICT (nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at
       WHERE used_nonces.expires_at <= now()
     RETURNING nonce`,
    [nonce, ttlMs],
  );
  return rows.length === 1;
}

/** Drops expired nonces (off the claim's transaction, so that claims never wait on it). */
export async function pruneNonces(sql: Sql): Promise<void> {
  await sql.query(`DELETE FROM used_nonces WHERE expires_at <= now()`);
}
