import { HintgateError } from '../../core/errors.js';
import type { Decision } from '../../core/policy/decide.js';
import { canonicalJson } from '../../core/util/canonical-json.js';
import { redactSecrets } from '../../core/util/redact.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import { isJsonObject } from '../../mcp/json-rpc.js';
import type { CatalogEntry } from '../catalog-entry.js';
import { fillMessage, refusal } from '../call-results.js';
import type { ApprovalStore } from '../confirm/approval-wait.js';
import { abortReason, waitForApproval } from '../confirm/approval-wait.js';
import type { ConfirmationAnswer } from '../confirm/question.js';
import { CONFIRM_INPUT_KEY, answerOf, confirmationQuestion } from '../confirm/question.js';
import { RequestStateSigner } from '../confirm/request-state.js';
import type { ToolSettings, ToolSettingsTable } from '../tool-settings.js';
import type { CallMiddleware, Next } from './compose.js';
import type { CallContext, CallToolResult } from './context.js';
import { requireAnnotations, requireEntry } from './context.js';
import { keepAlive } from './keep-alive.js';

/** What {@link confirm} works with. */
export interface ConfirmOptions {
  readonly settings: ToolSettingsTable;
  /** The approval queue; without one, calls the client cannot confirm are refused. */
  readonly store: ApprovalStore | undefined;
  readonly signer: RequestStateSigner;
  /** How often a waiting call rereads its approval besides the store's events (default 5 s). */
  readonly pollMs?: number;
  /** How waiting calls are kept alive, and how long they wait when config does not say. */
  readonly waiting: WaitingSettings;
  /** The gateway's log (stderr): a queued call is announced there, with where to decide it. */
  readonly log?: (line: string) => void;
  /** Where a person decides approval `id` ("with `hintgate approvals approve <id>`…"). */
  readonly whereToApprove?: (id: string) => string;
}

/** `policy.waiting`: progress while a call waits, and the default approval timeouts. */
export interface WaitingSettings {
  /** A client that sent a progress token hears this often while its call waits; 0: never. */
  readonly progressMs: number;
  /** How long a call waits for a person when its client cannot be kept waiting. */
  readonly approvalTimeoutMs: number;
  /** How long when the client is kept waiting by progress, or does not wait at all. */
  readonly keptAliveApprovalTimeoutMs: number;
}

/** Where a person decides an approval, when the gateway was told nothing better. */
export function defaultWhereToApprove(id: string): string {
  return `with "hintgate approvals approve ${id}" (or deny) on the gateway's host`;
}

/** Characters that could break or forge a line of the gateway's log. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Calls answered "needs approval" remembered at most (the oldest are forgotten). */
const MAX_DEFERRED = 10_000;

/**
 * Gets a person's confirmation for a call that policy said needs one, or refuses it; the
 * call reaches `next` only once approved.
 *
 * 1. The client, when it can answer and config allows (`elicitation`, and the decision does
 *    not demand the queue): a 2025 client gets an `elicitation/create` request through its
 *    session (tool, arguments, why); a 2026 client gets an `input_required` result carrying
 *    the question and a signed, expiring `requestState` bound to the client, tool and
 *    arguments, and its retry is checked (forged, expired, replayed or foreign states are
 *    refused with -32602) before the answer counts.
 * 2. Otherwise the approval queue in the store: the call waits (woken by the store's change
 *    events, across gateways sharing PostgreSQL) until an approver (never the caller)
 *    approves or denies it with `hintgate approvals` or `/api/approvals`, or it expires; with `waitForApproval: false`
 *    it is answered at once ("needs approval", saying where a person approves it) and the
 *    same call made again after the approval goes through.
 * 3. With neither, a refusal saying why.
 *
 * A refused call never calls `next`. When an approved call's server itself asks for input,
 * its `requestState` travels inside a new signed state of ours, so the rounds that follow
 * need no second confirmation.
 *
 * How long a call waits for a person: the configured `approvalTimeoutMs`, else by client
 * (`policy.waiting`): a client whose request waits and that cannot be kept waiting (no
 * progress token) gets `approvalTimeoutMs` (under the usual 60 s request timeout, so it
 * reads the refusal rather than timing out); one kept waiting by progress, or not waiting
 * at all (asked with `input_required`, `waitForApproval: false`), the longer
 * `keptAliveApprovalTimeoutMs`. While it waits, a client that sent a progress token hears
 * progress every `progressMs`, and the gateway's log says the call waits and where a person
 * decides it. A call whose client gives up meanwhile is recorded `withdrawn`, not denied.
 */
export function confirm(options: ConfirmOptions): CallMiddleware {
  const { signer, store, waiting } = options;
  const sink = options.log;
  // Names in these lines come from clients and servers: one line each, whatever they hold.
  const log = (line: string): void => sink?.(line.replace(CONTROL_CHARACTERS, '?'));
  const whereToApprove = options.whereToApprove ?? defaultWhereToApprove;
  const deferred = new Map<string, string>();

  // Not async: a call that needs no confirmation goes on with `next()` as it is.
  return function confirm(ctx, next) {
    const decision = ctx.decision;
    return decision?.kind === 'confirm' ? confirming(ctx, next, decision) : next();
  };

  async function confirming(
    ctx: CallContext,
    next: Next,
    decision: Extract<Decision, { kind: 'confirm' }>,
  ): Promise<CallToolResult> {
    const entry = requireEntry(ctx);
    const settings = options.settings.forTool(entry.server, entry.namespacedName);
    const binding = bindingOf(ctx, entry);
    // How long a person may take when no request waits on them (a 2026 client answers in a
    // request of its own; a deferred call is made again), and when the client's request does.
    const ttlMs = settings.approvalTimeoutMs ?? waiting.keptAliveApprovalTimeoutMs;
    const waitMs =
      settings.approvalTimeoutMs ??
      (ctx.keepAlive !== undefined && waiting.progressMs > 0
        ? waiting.keptAliveApprovalTimeoutMs
        : waiting.approvalTimeoutMs);
    const proceed = async (approver: string, inner?: string | null): Promise<CallToolResult> => {
      ctx.trace.approver = approver;
      if (inner !== null) ctx.params = withoutOwnFields(ctx.params, inner);
      const result = await next();
      if (result['resultType'] !== 'input_required') return result;
      const state = result['requestState'];
      return {
        ...result,
        requestState: await signer.mint(
          'approved',
          binding,
          ttlMs,
          typeof state === 'string' ? state : undefined,
        ),
      };
    };

    // A retry: a 2026 client answering our question, or a later round of an approved call.
    const presented = ctx.params['requestState'];
    if (presented !== undefined) {
      const accepted =
        typeof presented === 'string'
          ? await signer.accept(presented, binding)
          : { ok: false as const, refusal: 'foreign' as const };
      if (!accepted.ok) {
        ctx.trace.stoppedBy = 'confirm';
        throw RequestStateSigner.refusalError(accepted.refusal);
      }
      if (accepted.state.k === 'approved') {
        ctx.trace.decision = 'approved';
        return proceed(approverOf(ctx), accepted.state.i);
      }
      if (canAsk(ctx, decision, settings)) {
        const responses = ctx.params['inputResponses'];
        const answer = answerOf(isJsonObject(responses) ? responses[CONFIRM_INPUT_KEY] : undefined);
        if (answer === undefined) {
          ctx.trace.stoppedBy = 'confirm';
          throw new HintgateError(
            'INVALID_ARGUMENTS',
            `inputResponses has no answer to "${CONFIRM_INPUT_KEY}": call the tool again without requestState to be asked again (this requestState is spent)`,
          );
        }
        return answered(ctx, entry, decision, answer, () => proceed(approverOf(ctx)));
      }
      // Policy now demands the queue: the client's answer does not count.
      ctx.params = withoutOwnFields(ctx.params, undefined);
    }

    if (canAsk(ctx, decision, settings)) {
      const question = confirmationQuestion({
        server: entry.server,
        namespacedName: entry.namespacedName,
        arguments: ctx.params['arguments'],
        reason: decision.reason,
      });
      if (ctx.session.era === 'modern') {
        ctx.trace.decision = 'input-required';
        ctx.trace.stoppedBy = 'confirm';
        ctx.trace.outcome = 'input-required';
        return {
          resultType: 'input_required',
          inputRequests: {
            [CONFIRM_INPUT_KEY]: { method: 'elicitation/create', params: question },
          },
          requestState: await signer.mint('ask', binding, ttlMs),
        };
      }
      const alive = keepAlive(ctx, `waiting for the user to confirm ${entry.namespacedName}`, {
        everyMs: waiting.progressMs,
      });
      const answer = await askThroughSession(ctx, question, waitMs).finally(() => alive.stop());
      if (answer !== undefined) {
        return answered(ctx, entry, decision, answer, () => proceed(approverOf(ctx), null));
      }
      // The client could not take the request after all: the queue, if there is one.
    }

    if (store === undefined) {
      return refuse(
        ctx,
        decision,
        entry,
        'unavailable',
        `${entry.flattenedName} needs a person's approval (${decision.reason}), but this client cannot be asked and there is no approval queue; the call was not run.`,
      );
    }
    const approvalKey = settings.waitForApproval ? undefined : callKey(ctx, entry);
    if (approvalKey !== undefined) {
      const earlier = deferred.get(approvalKey);
      if (earlier !== undefined) {
        const approval = await store.getApproval(earlier);
        ctx.trace.approvalId = earlier;
        if (approval?.status === 'approved') {
          deferred.delete(approvalKey);
          ctx.trace.decision = 'approved';
          return proceed(approval.decidedBy ?? 'approval queue', null);
        }
        if (approval?.status === 'pending') {
          return refuse(
            ctx,
            decision,
            entry,
            'needs-approval',
            `Still waiting for a person to approve this call (approval ${earlier} in the gateway's approval queue); it was not run. Tell the user; once they say it is approved, call ${entry.flattenedName} again with the same arguments.`,
            earlier,
          );
        }
        deferred.delete(approvalKey);
        if (approval?.status === 'denied') return queueRefusal(ctx, decision, entry, approval);
      }
    }
    const approval = await store.createApproval({
      server: entry.server,
      tool: entry.namespacedName,
      sessionId: ctx.session.id,
      ...clientName(ctx),
      ...(ctx.session.principal === undefined ? {} : { requestedBy: ctx.session.principal }),
      arguments: redactSecrets(ctx.params['arguments'] ?? {}),
      annotations: requireAnnotations(ctx).annotations,
      reason: decision.reason,
      timeoutMs: approvalKey === undefined ? waitMs : ttlMs,
    });
    ctx.trace.approvalId = approval.id;
    const who = whoCalled(ctx);
    log(
      `approval ${approval.id}: ${entry.namespacedName} called by ${who} ${approvalKey === undefined ? 'waits' : 'is queued'} for a person until ${clockTime(approval.expiresAt)}; approve or deny it ${whereToApprove(approval.id)}`,
    );
    if (approvalKey !== undefined) {
      if (deferred.size >= MAX_DEFERRED) deferred.delete(deferred.keys().next().value as string);
      deferred.set(approvalKey, approval.id);
      return refuse(
        ctx,
        decision,
        entry,
        'needs-approval',
        `needs approval: this call waits for a person in the gateway's approval queue (approval ${approval.id}); it was not run. Tell the user: an approver decides it in the dashboard or with the hintgate CLI on the gateway's host. Once approved, call ${entry.flattenedName} again with the same arguments.`,
        approval.id,
      );
    }
    const alive = keepAlive(
      ctx,
      `waiting for a person to approve ${entry.namespacedName} (approval ${approval.id})`,
      { everyMs: waiting.progressMs, now: true },
    );
    let ended;
    try {
      ended = await waitForApproval(store, approval.id, {
        timeoutMs: waitMs,
        signal: ctx.signal,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      });
    } catch (error) {
      if (ctx.signal.aborted) {
        ctx.trace.decision = 'withdrawn';
        log(
          `approval ${approval.id}: withdrawn, the client gave up on the call (${abortReason(ctx.signal)})`,
        );
      }
      throw error;
    } finally {
      alive.stop();
    }
    const by = ended.decidedBy === undefined ? '' : ` by ${ended.decidedBy}`;
    log(`approval ${approval.id}: ${ended.status}${by}`);
    if (ended.status === 'approved') {
      ctx.trace.decision = 'approved';
      return proceed(ended.decidedBy ?? 'approval queue', null);
    }
    return queueRefusal(ctx, decision, entry, ended);
  }
}

/** The client can be asked: config allows it, and it declared elicitation. */
function canAsk(ctx: CallContext, decision: Decision, settings: ToolSettings): boolean {
  if (decision.kind !== 'confirm' || decision.channel !== 'any' || !settings.elicitation)
    return false;
  if (!isJsonObject(ctx.session.clientCapabilities?.['elicitation'])) return false;
  return ctx.session.era === 'modern' || ctx.relay !== undefined;
}

/** Asks a 2025 client; undefined when the request could not be delivered or answered. */
async function askThroughSession(
  ctx: CallContext,
  question: JsonObject,
  ttlMs: number,
): Promise<ConfirmationAnswer | 'expired' | undefined> {
  const relay = ctx.relay;
  if (relay === undefined) return undefined;
  const { mode: _mode, ...params } = question;
  const timeout = AbortSignal.timeout(ttlMs);
  try {
    const result = await relay(
      { method: 'elicitation/create', params },
      AbortSignal.any([ctx.signal, timeout]),
    );
    return answerOf(result) ?? 'cancelled';
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (timeout.aborted) return 'expired';
    return undefined;
  }
}

/** Acts on the client's answer. */
function answered(
  ctx: CallContext,
  entry: CatalogEntry,
  decision: Decision,
  answer: ConfirmationAnswer | 'expired',
  run: Next,
): Promise<CallToolResult> {
  ctx.trace.decision = answer;
  if (answer === 'approved') return run();
  ctx.trace.approver = approverOf(ctx);
  const tool = entry.flattenedName;
  const text =
    answer === 'declined'
      ? `The user declined this call to ${tool}; it was not run. Do not retry unless the user asks.`
      : answer === 'cancelled'
        ? `The user dismissed the confirmation of ${tool}; it was not run.`
        : `Nobody answered the confirmation of ${tool} in time; it was not run.`;
  return Promise.resolve(refuse(ctx, decision, entry, answer, text));
}

function queueRefusal(
  ctx: CallContext,
  decision: Decision,
  entry: CatalogEntry,
  approval: { id: string; status: string; decidedBy?: string; note?: string },
): CallToolResult {
  const tool = entry.flattenedName;
  if (approval.status === 'denied') {
    if (approval.decidedBy !== undefined) ctx.trace.approver = approval.decidedBy;
    const note = approval.note === undefined ? '' : ` (${approval.note})`;
    return refuse(
      ctx,
      decision,
      entry,
      'denied',
      `Approval ${approval.id} for ${tool} was denied by ${approval.decidedBy ?? 'a person'}${note}; the call was not run.`,
      approval.id,
    );
  }
  return refuse(
    ctx,
    decision,
    entry,
    'expired',
    `needs approval: nobody approved ${tool} in time (approval ${approval.id} expired), so the call was not run. Tell the user: a person with the approver role decides calls in the gateway's approval queue (the dashboard, or the hintgate CLI on the gateway's host) while they wait.`,
    approval.id,
  );
}

function refuse(
  ctx: CallContext,
  decision: Decision,
  entry: CatalogEntry,
  what: string,
  text: string,
  approvalId?: string,
): CallToolResult {
  ctx.trace.decision = what;
  ctx.trace.stoppedBy = 'confirm';
  ctx.trace.outcome = 'denied';
  const message = decision.kind === 'allow' ? undefined : decision.message;
  return refusal(
    message === undefined ? text : fillMessage(message, entry.flattenedName, approvalId),
    approvalId === undefined ? { decision: what } : { decision: what, approvalId },
  );
}

/** Who made the call, for the log: the principal, else the client, else the session. */
function whoCalled(ctx: CallContext): string {
  const { session } = ctx;
  if (session.principal !== undefined) return session.principal;
  const name = session.clientInfo?.['name'];
  return typeof name === 'string' ? `client ${name}` : `session ${session.id}`;
}

/** `2026-05-01T10:20:30.000Z` → `10:20:30 UTC`. */
function clockTime(iso: string): string {
  const match = /T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match === null ? iso : `${match[1] as string} UTC`;
}

/** Who answered through the client. */
function approverOf(ctx: CallContext): string {
  const name = ctx.session.clientInfo?.['name'];
  return `elicitation:${typeof name === 'string' ? name : 'client'}`;
}

function clientName(ctx: CallContext): { client?: string } {
  const name = ctx.session.clientInfo?.['name'];
  return typeof name === 'string' ? { client: name } : {};
}

/** What a signed state is bound to: who asked, through which front, for which exact call. */
function bindingOf(ctx: CallContext, entry: CatalogEntry): string {
  const { session } = ctx;
  const client = session.clientInfo?.['name'];
  return [
    session.front,
    session.id,
    session.principal ?? '',
    typeof client === 'string' ? client : '',
    entry.namespacedName,
    canonicalJson(ctx.params['arguments'] ?? {}),
  ].join('\u0000');
}

/** One call, for matching a repeated call to its approval. */
function callKey(ctx: CallContext, entry: CatalogEntry): string {
  return [
    ctx.session.principal ?? '',
    entry.namespacedName,
    canonicalJson(ctx.params['arguments'] ?? {}),
  ].join('\u0000');
}

/**
 * The params to forward: without our answer and state; with the server's own state
 * (carried in ours) when there is one.
 */
function withoutOwnFields(params: JsonObject, inner: string | undefined): JsonObject {
  const { requestState: _state, inputResponses, ...rest } = params;
  const copy: JsonObject = rest;
  if (isJsonObject(inputResponses)) {
    const { [CONFIRM_INPUT_KEY]: _ours, ...others } = inputResponses;
    if (Object.keys(others).length > 0) copy['inputResponses'] = others;
  }
  if (inner !== undefined) copy['requestState'] = inner;
  return copy;
}
