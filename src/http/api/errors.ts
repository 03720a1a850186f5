import type { Context } from 'hono';
import type { HintgateErrorCode } from '../../core/errors.js';
import { HintgateError } from '../../core/errors.js';
import type { HttpSecurity } from '../auth.js';
import { requestPrincipal } from '../auth.js';

/** The one table from hintgate error codes to HTTP statuses for `/api` routes. */
export const HTTP_STATUS_FOR: Readonly<
  Record<HintgateErrorCode, 400 | 403 | 404 | 409 | 500 | 502 | 503>
> = {
  CONFIG_INVALID: 500,
  INPUT_INVALID: 400,
  INVALID_ARGUMENTS: 400,
  UNKNOWN_TOOL: 404,
  NOT_FOUND: 404,
  CONFLICT: 409,
  FORBIDDEN: 403,
  DOWNSTREAM_UNAVAILABLE: 502,
  DOWNSTREAM_TIMEOUT: 502,
  DOWNSTREAM_CRASHED: 502,
  DOWNSTREAM_PROTOCOL: 502,
  STORE_UNAVAILABLE: 503,
  STORE_LOCKED: 503,
  STORE_VERSION: 503,
  PIPELINE: 500,
  INTERNAL: 500,
};

/** The JSON answer for an error on an `/api` route: `{ error: { code, message } }`. */
export function apiError(c: Context, error: unknown): Response {
  if (error instanceof HintgateError) {
    return c.json(
      { error: { code: error.code, message: error.message } },
      HTTP_STATUS_FOR[error.code],
    );
  }
  return c.json({ error: { code: 'INTERNAL', message: 'internal error in hintgate' } }, 500);
}

/** A 400 answer naming what was wrong with the request. */
export function badRequest(c: Context, message: string): Response {
  return c.json({ error: { code: 'INPUT_INVALID', message } }, 400);
}

/**
 * Who made an `/api` request, for the records it leaves: its token's principal, or
 * `anonymous` (no auth).
 */
export function principalOf(request: Request, security: HttpSecurity): string {
  return requestPrincipal(request, security) ?? 'anonymous';
}
