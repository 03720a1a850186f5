/**
 * How the dashboard's routes answer: pages as HTML documents, fragments, form fields, and
 * the failures of a decision as a page or as JSON for the script.
 */
import type { Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { HintgateError, errorMessage } from '../../core/errors.js';
import { HTTP_STATUS_FOR } from '../api/errors.js';
import { UI } from './layout.js';
import type { DashboardSession } from './session.js';
import { CSRF_FIELD } from './session.js';

/** The hono environment of the dashboard's routes: the session of the request. */
export type DashboardEnv = { Variables: { session: DashboardSession } };

/** The statuses pages are answered with. */
export type PageStatus = 200 | 400 | 401 | 403 | 404 | 409 | 500 | 502 | 503;

/** A page as an HTML document. */
export function page(c: Context, node: JSX.Element, status: PageStatus = 200): Response {
  return c.html(`<!doctype html>${markup(node)}`, status);
}

/** A JSX tree as HTML (every component here renders synchronously). */
export function markup(node: JSX.Element): string {
  return (node as unknown as { toString(): string }).toString();
}

/** A `next` target that stays inside the dashboard. */
export function safeNext(value: string | undefined, within = UI): string {
  return value !== undefined &&
    (value === within || value.startsWith(`${within}/`) || value.startsWith(`${within}?`)) &&
    !value.startsWith('//')
    ? value
    : within;
}

/** Whether a request's body is a form. */
export function isForm(type: string | undefined): boolean {
  return (
    type?.startsWith('application/x-www-form-urlencoded') === true ||
    type?.startsWith('multipart/form-data') === true
  );
}

/** A form field as text, if it is one. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A parsed form's text fields (files ignored). */
export function textFields(body: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key !== CSRF_FIELD && typeof value === 'string') fields[key] = value;
  }
  return fields;
}

/** Whether the script sent the request and wants JSON back. */
export function wantsJson(c: Context): boolean {
  return c.req.header('accept')?.includes('application/json') === true;
}

/** An error's status as the `/api` routes give it. */
export function statusOf(error: unknown): PageStatus {
  return error instanceof HintgateError ? HTTP_STATUS_FOR[error.code] : 500;
}

/** An error as the script reads it: `{ error: { code, message } }`. */
export function jsonError(c: Context, error: unknown, status = statusOf(error)): Response {
  return c.json(
    {
      error: {
        code: error instanceof HintgateError ? error.code : 'INTERNAL',
        message: errorMessage(error),
      },
    },
    status,
  );
}
