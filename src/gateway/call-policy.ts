import type { PolicyConfig } from '../config/policy-schema.js';
import type { Decision } from '../core/policy/decide.js';
import type { CatalogEntry } from './catalog-entry.js';
import type { AccessControl } from './access.js';
import type { ToolsetOf } from './pipeline/access.js';
import { access } from './pipeline/access.js';
import type { Store } from '../store/store.js';
import { createAuditWriter } from '../store/store.js';
import { AuditLog } from './audit-log.js';
import { RequestStateSigner } from './confirm/request-state.js';
import { audit } from './pipeline/audit.js';
import { cache } from './pipeline/cache.js';
import type { CallMiddleware } from './pipeline/compose.js';
import { confirm } from './pipeline/confirm.js';
import { decideCall, policy } from './pipeline/policy.js';
import { rateLimit } from './pipeline/rate-limit.js';
import { retry } from './pipeline/retry.js';
import type { ReplicaLookup } from './pipeline/route.js';
import { route } from './pipeline/route.js';
import { RateLimiter } from './rate-limiter.js';
import type { CacheStats } from './result-cache.js';
import { ResultCache } from './result-cache.js';
import type { ReplicaState } from './replicas.js';
import { ToolSettingsTable } from './tool-settings.js';

/** What {@link createCallPolicy} needs. */
export interface CallPolicyOptions {
  readonly policy: PolicyConfig;
  /** Approvals and the audit log. */
  readonly store: Store;
  /** The replicas of servers that have several. */
  readonly replicasOf: ReplicaLookup;
  /** The replicas of every server that has several, for stats. */
  readonly replicaStates: () => Readonly<Record<string, readonly ReplicaState[]>>;
  /** Where operational problems go (audit records lost). */
  readonly log: (line: string) => void;
  /** Who may call what (absent: everyone may call everything). */
  readonly access?: { readonly control: AccessControl; readonly toolsetOf: ToolsetOf };
  /** Where a person decides an approval, said on the log when a call starts waiting. */
  readonly whereToApprove?: (id: string) => string;
}

/** What the gateway reports about its calls (`/api/stats`). */
export interface CallStats {
  readonly cache: CacheStats;
  readonly audit: { readonly enabled: boolean; readonly dropped: number };
  readonly replicas: Readonly<Record<string, readonly ReplicaState[]>>;
}

/**
 * The steps the `policy` section configures, built once with what they share (the compiled
 * tool settings, the result cache, the rate limiter, the request-state signer, the audit
 * log); the gateway composes them in its own order. With `passthrough` (for measuring the
 * pipeline's cost) each is a step that only calls `next`.
 */
export interface CallPolicy {
  readonly audit: CallMiddleware;
  readonly access: CallMiddleware;
  readonly policy: CallMiddleware;
  readonly confirm: CallMiddleware;
  readonly cache: CallMiddleware;
  readonly rateLimit: CallMiddleware;
  readonly retry: CallMiddleware;
  readonly route: CallMiddleware;
  stats(): CallStats;
  /**
   * What policy decides for a call of this tool with its listed annotations (for a dynamic
   * tool, the worst case: a call's own arguments may make it ask less).
   */
  decisionFor(entry: CatalogEntry): Decision;
  /** A server sent a client a message outside a call's own channels (a log message). */
  noteServerMessage(server: string): void;
  /** Writes every audit record still waiting. */
  flush(): Promise<void>;
  /** Flushes and stops the audit writer. */
  close(): Promise<void>;
}

/** How long after a call ends its audit record is built (redaction included). */
const AUDIT_BUILD_DELAY_MS = 50;

/** How long built audit records wait, at most, before they are written in one transaction. */
const AUDIT_FLUSH_INTERVAL_MS = 250;

/**
 * The audit log's flush window: a call's record is handed to the store's writer this long
 * after the call is answered, at most, and committed once its batch's insert (after those of
 * the batches before it, written in order) is done. A gateway stopped by SIGTERM, SIGINT or
 * its stdio client leaving writes every record before it exits; one killed outright
 * (`kill -9`, a crash) loses the records whose batch had not committed: the calls answered
 * within this window, and more while the store is behind.
 */
export const AUDIT_FLUSH_WINDOW_MS = AUDIT_BUILD_DELAY_MS + AUDIT_FLUSH_INTERVAL_MS;

/** A step that only calls `next`, named after the step it stands for. */
function passThrough(name: string): CallMiddleware {
  const step: CallMiddleware = (_ctx, next) => next();
  Object.defineProperty(step, 'name', { value: name });
  return step;
}

/** Builds the configured steps of the call path. */
export function createCallPolicy(options: CallPolicyOptions): CallPolicy {
  const { policy: config, store } = options;
  const settings = new ToolSettingsTable(config);
  const results = new ResultCache(config.cache);
  const auditOn = config.audit.enabled && !config.passthrough;
  let lost = 0;
  const auditLog = auditOn
    ? new AuditLog(
        createAuditWriter(store, {
          // Fewer, larger batches: the embedded store inserts 1,000 records in about twice
          // the time of 200, and it runs on the gateway's own thread.
          maxBatch: 1_000,
          flushIntervalMs: AUDIT_FLUSH_INTERVAL_MS,
          onUnavailable: (error, waiting, retryInMs) => {
            // One line when the outage starts, and again when it has lasted a while.
            if (retryInMs === 250 || retryInMs === 30_000)
              options.log(
                `audit: store unreachable, ${waiting} record(s) kept in memory, retrying in ${retryInMs} ms (${error instanceof Error ? error.message : String(error)})`,
              );
          },
          onError: (error, count) => {
            lost += count;
            // One line per burst of losses, not per record.
            if (lost === count || lost % 1000 < count)
              options.log(
                `audit: ${lost} record(s) lost so far (${error instanceof Error ? error.message : String(error)})`,
              );
          },
        }),
        {
          restrictedArguments: (server, tool) => settings.forTool(server, tool).restrictedArguments,
          delayMs: AUDIT_BUILD_DELAY_MS,
        },
      )
    : undefined;
  const on = (name: string, build: () => CallMiddleware): CallMiddleware =>
    config.passthrough ? passThrough(name) : build();
  return {
    audit: auditLog === undefined ? passThrough('audit') : audit(auditLog),
    // Never passed through: who may call what is not a cost to measure away.
    access:
      options.access === undefined
        ? passThrough('access')
        : access(options.access.control, options.access.toolsetOf),
    policy: on('policy', () => policy(settings)),
    confirm: on('confirm', () =>
      confirm({
        settings,
        store,
        waiting: config.waiting,
        log: options.log,
        ...(options.whereToApprove === undefined ? {} : { whereToApprove: options.whereToApprove }),
        // Spent nonces in the store: a state is accepted once by every gateway sharing it.
        signer: new RequestStateSigner({
          secret: config.requestState.secret,
          nonces: { claim: (nonce, ttlMs) => store.claimNonce(nonce, ttlMs) },
        }),
      }),
    ),
    cache: on('cache', () => cache(results, settings, config.cache)),
    rateLimit: on('rateLimit', () =>
      rateLimit(new RateLimiter(), settings, {
        maxWaitMs: config.rateLimit.maxWaitMs,
        progressMs: config.waiting.progressMs,
      }),
    ),
    retry: on('retry', () => retry(settings, config.retry)),
    route: on('route', () => route(options.replicasOf)),
    noteServerMessage: (server) => results.noteActivity(server),
    decisionFor: (entry) =>
      config.passthrough
        ? { kind: 'allow', reason: 'passthrough: policy is not applied' }
        : decideCall(entry.effective, settings.forTool(entry.server, entry.namespacedName)),
    stats: () => ({
      cache: results.stats(),
      audit: { enabled: auditLog !== undefined, dropped: auditLog?.dropped ?? 0 },
      replicas: options.replicaStates(),
    }),
    flush: () => auditLog?.flush() ?? Promise.resolve(),
    close: () => auditLog?.close() ?? Promise.resolve(),
  };
}
