import type { Context } from 'hono';
import type { Principal } from '../../gateway/access.js';
import { requestPrincipal } from '../app.js';
import { badRequest } from './errors.js';

/** Who holds the approver role (`access.approvers`). */
export interface ApproverRole {
  isApprover(principal: Principal): boolean;
}

/** A person's decision on an approval or a pin, as a route has checked it. */
export interface Decider {
  /** The approver who decided. */
  readonly principal: Principal;
  /** Recorded as the decider: `api:<principal>[/<by>]`. */
  readonly by: string;
  /** The optional note sent with the decision. */
  readonly note?: string;
}

/**
 * Checks a `POST …/approve|deny|reject` request: an optional JSON body `{ "note", "by" }`
 * and a principal with the approver role. Returns the decider, or the 400 or 403 answer
 * naming what was wrong. `what` names the decided thing in the 403 (`approvals`, `pins`)
 * and `command` the CLI command that decides it on the gateway's host.
 */
export async function readDecision(
  c: Context,
  approvers: ApproverRole,
  what: string,
  command: string,
): Promise<Decider | Response> {
  let body: unknown = {};
  const text = await c.req.text();
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      return badRequest(c, 'expected a JSON body (or none)');
    }
  }
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const note = fields['note'];
  const by = fields['by'];
  if (note !== undefined && typeof note !== 'string')
    return badRequest(c, 'note: expected a string');
  if (by !== undefined && (typeof by !== 'string' || !/^[\w.@-]{1,64}$/.test(by)))
    return badRequest(c, 'by: expected a name (letters, digits, . _ @ -)');
  const principal = requestPrincipal(c);
  if (principal === undefined)
    return forbidden(
      c,
      `deciding ${what} needs an approver's bearer token (this request has none); or use \`${command}\` on the gateway's host`,
    );
  if (!approvers.isApprover(principal))
    return forbidden(
      c,
      `${principal.name} does not have the approver role (access.approvers in config)`,
    );
  return {
    principal,
    by: `api:${principal.name}${by === undefined ? '' : `/${by}`}`,
    ...(note === undefined ? {} : { note }),
  };
}

/** A 403 answer naming why the request may not do this. */
export function forbidden(c: Context, message: string): Response {
  return c.json({ error: { code: 'FORBIDDEN', message } }, 403);
}
