import type { EffectiveAnnotations } from '../../core/annotations/effective.js';
import { HintgateError } from '../../core/errors.js';
import type { DynamicOrigin } from '../../core/dynamic/resolve.js';
import type { Decision } from '../../core/policy/decide.js';
import type { DownstreamCallOptions } from '../../downstream/downstream.js';
import type { ServerRequestRelay } from '../../mcp/relay.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { SessionInfo } from '../../front/session.js';
import type { CatalogEntry } from '../catalog-entry.js';

/**
 * A tools/call result as it travels back: every field the server sent is kept. A 2026
 * `input_required` result keeps its `resultType`.
 */
export interface CallToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  resultType?: unknown;
  _meta?: unknown;
  [key: string]: unknown;
}

/** Where a call can be sent: one downstream server connection, or one of its replicas. */
export interface CallTarget {
  readonly name: string;
  callTool(params: JsonObject, options: DownstreamCallOptions): Promise<JsonObject>;
}

/** What happened to a call, filled in by the steps as it goes (read by a later audit step). */
export interface CallTrace {
  readonly startedAt: number;
  /** The name the client called. */
  readonly requested: string;
  server?: string;
  tool?: string;
  refId?: string;
  /** Which step ended the call without forwarding it, if one did. */
  stoppedBy?: string;
  /** How the call ended, when a step knows better than its result (audit reads it). */
  outcome?: 'ok' | 'tool-error' | 'input-required' | 'denied';
  /**
   * What became of the call's confirmation: `allow` (none needed), `deny` (policy), or the
   * answer to the question: `approved`, `declined`, `cancelled`, `denied`, `expired`,
   * `withdrawn` (the client gave up while its call waited in the queue), `needs-approval`
   * (queued, not waited for), `input-required` (asked a 2026 client).
   */
  decision?: string;
  /** Who approved or refused it (`elicitation:<client>`, the approval's decider). */
  approver?: string;
  /** The approval queue entry, when the call went through it. */
  approvalId?: string;
  /** Attempts after the first. */
  retries?: number;
  cacheHit?: boolean;
  /** The replica that served the call, for servers with several. */
  replica?: string;
  /**
   * What refined a dynamic tool's annotations for this call (`annotate`; the cache reads it):
   * its server, a rule, a classifier, nothing, or the worst case after a failure.
   */
  dynamic?: DynamicOrigin | 'none' | 'fallback';
  /** An untrusted server's per-call answer that was not corroborated (audit records it). */
  disagreement?: string;
}

/**
 * One tools/call on its way through the pipeline: the request and session, the client's
 * cancellation signal and progress channel, what the steps decided (the catalog entry, the
 * effective annotations, the chosen downstream) and the trace.
 */
export interface CallContext {
  /**
   * The params as the client sent them; `name` is the client's name for the tool. `confirm`
   * replaces them when it takes its own retry fields (`requestState`, `inputResponses`) out.
   */
  params: JsonObject;
  readonly name: string;
  readonly session: SessionInfo;
  readonly signal: AbortSignal;
  /** The client's progress channel; a step may wrap it (the cache, to hear of progress). */
  progress: ((progress: JsonObject) => void) | undefined;
  /** The relay of server-to-client requests; a step may wrap it (as `progress`). */
  relay: ServerRequestRelay | undefined;
  /** The client's channel for the server's log messages during this call (wrapped as `progress`). */
  log: ((params: JsonObject) => void) | undefined;
  /**
   * Tells the client the call still waits (progress with a message), when it sent a progress
   * token; a client restarting its timeout on progress then waits as long as the call does.
   */
  readonly keepAlive: ((message: string) => void) | undefined;
  /** The least severe level of the server's log messages the client wants (see `FrontCall`). */
  readonly logLevel: string | undefined;
  readonly trace: CallTrace;
  /** Set by `resolve`. */
  entry: CatalogEntry | undefined;
  /** Set by `annotate`: the annotations that hold for this call. */
  annotations: EffectiveAnnotations | undefined;
  /** The downstream connection to use; `forward` picks the tool's server when unset. */
  target: CallTarget | undefined;
  /** Set by `policy`: what to do with the call. */
  decision: Decision | undefined;
  /** The call's timeout when config sets one for the tool, instead of forward's default. */
  timeoutMs: number | undefined;
  /** When set (epoch ms), no attempt runs past it (`retry` keeps attempts in its budget). */
  deadline: number | undefined;
}

/** What a front hands the pipeline for one call. */
export interface CallInput {
  readonly params: JsonObject;
  readonly session: SessionInfo;
  readonly signal: AbortSignal;
  readonly progress: ((progress: JsonObject) => void) | undefined;
  readonly relay: ServerRequestRelay | undefined;
  readonly log?: ((params: JsonObject) => void) | undefined;
  readonly keepAlive?: ((message: string) => void) | undefined;
  readonly logLevel?: string | undefined;
}

/** A fresh context for one call. */
export function createCallContext(input: CallInput, now: number): CallContext {
  const name = typeof input.params['name'] === 'string' ? input.params['name'] : '';
  return {
    params: input.params,
    name,
    session: input.session,
    signal: input.signal,
    progress: input.progress,
    relay: input.relay,
    log: input.log,
    keepAlive: input.keepAlive,
    logLevel: input.logLevel,
    trace: { startedAt: now, requested: name },
    entry: undefined,
    annotations: undefined,
    target: undefined,
    decision: undefined,
    timeoutMs: undefined,
    deadline: undefined,
  };
}

/** The catalog entry, or a loud failure when a step runs before `resolve`. */
export function requireEntry(ctx: CallContext): CatalogEntry {
  if (ctx.entry === undefined)
    throw new HintgateError('PIPELINE', 'a pipeline step ran before resolve()');
  return ctx.entry;
}

/** The effective annotations, or a loud failure when a step runs before `annotate`. */
export function requireAnnotations(ctx: CallContext): EffectiveAnnotations {
  if (ctx.annotations === undefined)
    throw new HintgateError('PIPELINE', 'a pipeline step ran before annotate()');
  return ctx.annotations;
}
