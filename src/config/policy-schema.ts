import { z } from 'zod';

/** The longest call timeout: Node's timers hold at most 2^31 - 1 ms (about 24 days). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The longest an approval may wait (the store's own bound): a day. */
const MAX_APPROVAL_TIMEOUT_MS = 86_400_000;

const CONFIRM_MODES = ['destructive', 'writes', 'always', 'never'] as const;
const RESTRICTED_ARGUMENTS = ['omit', 'redacted', 'full'] as const;

/**
 * Settings that can be given globally, per server and per tool; a tool's settings are the
 * global ones, then its server's, then every matching tool rule's, later winning field by
 * field.
 */
const ruleFields = {
  /** Which calls need a person's confirmation. */
  confirm: z.enum(CONFIRM_MODES, 'expected destructive, writes, always or never').optional(),
  /** Read-only calls never need confirmation, whatever `confirm` says. */
  autoApproveReadOnly: z.boolean().optional(),
  /**
   * Only the approval queue may approve (a person, out of band), never the client's
   * elicitation answer, which a headless client can give by itself.
   */
  requireApprovalQueue: z.boolean().optional(),
  /** Refuse every call. */
  deny: z.boolean().optional(),
  /** The sentence a denied or unapproved call answers with, instead of the default. */
  message: z.string().min(1).max(2000).optional(),
  /**
   * How long a call waits for a person (the approval queue, or the client's confirmation)
   * before it is expired (refused), for every client; unset, `waiting` decides by client.
   */
  approvalTimeoutMs: z.number().int().positive().max(MAX_APPROVAL_TIMEOUT_MS).optional(),
  /** Ask the client (elicitation, or `input_required` for 2026 clients) when it can answer. */
  elicitation: z.boolean().optional(),
  /**
   * Keep a call waiting in the approval queue until someone decides (true), or answer at once
   * with "needs approval", saying where a person approves it (false); the same call made
   * again after the approval goes through.
   */
  waitForApproval: z.boolean().optional(),
  /** Cache results of read-only and idempotent calls. */
  cache: z.boolean().optional(),
  /** How long a cached result lives, instead of the read-only or idempotent default. */
  cacheTtlMs: z.number().int().positive().optional(),
  /** Retry safe calls after transport failures. */
  retry: z.boolean().optional(),
  /**
   * Also retry after a timeout, when the tool is declared idempotent (by its server or an
   * override, not inferred). A timeout is not a transport failure: the call may still run.
   */
  retryOnTimeout: z.boolean().optional(),
  /** Calls per minute, instead of the tool's `rateLimitHint`; `false` for no limit. */
  rateLimit: z.union([z.number().positive(), z.literal(false)]).optional(),
  /** The call timeout, instead of the tool's `estimatedDuration` and the server's `callMs`. */
  timeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS).optional(),
  /**
   * Arguments of `auditRequired` or `securityLevel: restricted` tools in the audit log:
   * `omit` (replaced as a whole), `redacted` (secret-looking keys redacted, like any tool's),
   * or `full` (kept exactly).
   */
  restrictedArguments: z.enum(RESTRICTED_ARGUMENTS, 'expected omit, redacted or full').optional(),
};

/** Settings for one server or for the tools matching a pattern. */
export const policyRuleSchema = z.strictObject(ruleFields);

const cacheSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /**
   * Also cache tools whose read-only or idempotent hint hintgate only inferred (from names
   * and descriptions) rather than the server declaring it or config setting it.
   */
  inferred: z.boolean().default(false),
  /** How long a read-only result is kept. */
  readOnlyTtlMs: z.number().int().positive().default(300_000),
  /** How long an idempotent (not read-only, not destructive) result is kept. */
  idempotentTtlMs: z.number().int().positive().default(30_000),
  /** At most this many results; the least recently used go first. */
  maxEntries: z.number().int().positive().default(1_000),
  /** At most this many bytes of results (as JSON); the least recently used go first. */
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /** A result larger than this is never cached. */
  maxEntryBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
});

const retrySchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Attempts in all, the first included. */
  maxAttempts: z.number().int().min(1).max(10).default(3),
  /** The wait before the second attempt (a tool's `estimatedDuration` replaces it). */
  initialDelayMs: z.number().int().nonnegative().default(100),
  /** The longest wait between attempts. */
  maxDelayMs: z.number().int().positive().default(5_000),
  /** Each wait is this many times the one before (then jittered up to twice as long). */
  factor: z.number().min(1).max(10).default(2),
  /** Retry after a timeout too (declared idempotent tools only); a rule's `retryOnTimeout` wins. */
  onTimeout: z.boolean().default(false),
  /**
   * Every attempt and wait of one call within this many milliseconds from its start: the
   * client gives up after its own request timeout (60 s in the MCP SDK and the Inspector),
   * and an answer after that reaches no one.
   */
  totalMs: z.number().int().positive().max(MAX_TIMEOUT_MS).default(50_000),
});

const rateLimitSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /**
   * An over-limit call waits for its turn when that comes within this many milliseconds;
   * otherwise it is answered at once with an error saying when to try again.
   */
  maxWaitMs: z.number().int().nonnegative().default(5_000),
});

const timeoutsSchema = z
  .strictObject({
    /**
     * A tool's default timeout is its `estimatedDuration` times this (instead of the server's
     * `timeouts.callMs`); `false` leaves estimates out. A rule's `timeoutMs` replaces both.
     */
    estimateFactor: z
      .union(
        [z.number().min(1).max(1000), z.literal(false)],
        'expected a number (1 to 1000) or false',
      )
      .default(5),
    /** A timeout from an estimate is at least this long, */
    minMs: z.number().int().positive().max(MAX_TIMEOUT_MS).default(5_000),
    /** and at most this long (an estimate is a server's hint, not a promise). */
    maxMs: z.number().int().positive().max(MAX_TIMEOUT_MS).default(3_600_000),
  })
  .refine((timeouts) => timeouts.minMs <= timeouts.maxMs, {
    path: ['minMs'],
    message: 'expected at most maxMs',
  });

const routingSchema = z.strictObject({
  /** A replica failing this many calls in a row (transport failures) is taken out. */
  failureThreshold: z.number().int().positive().default(3),
  /** How long a replica stays out before one call probes it again. */
  cooldownMs: z.number().int().positive().default(30_000),
});

const auditSchema = z.strictObject({
  /** Record every call in the store's audit log. */
  enabled: z.boolean().default(true),
  /** See the rule field of the same name. */
  restrictedArguments: z
    .enum(RESTRICTED_ARGUMENTS, 'expected omit, redacted or full')
    .default('omit'),
});

/**
 * Calls that wait (for a person's approval, a rate limit's turn, a server that says nothing)
 * while their client waits too: MCP clients give up on a request after a timeout of their
 * own (60 s in the MCP SDK and the Inspector) unless progress restarts it.
 */
const waitingSchema = z.strictObject({
  /**
   * A client that sent a progress token hears a progress notification at least this often
   * while its call waits, so one that restarts its timeout on progress keeps waiting; 0 for
   * none.
   */
  progressMs: z.number().int().nonnegative().max(MAX_TIMEOUT_MS).default(5_000),
  /**
   * How long a call waits for a person when its client cannot be kept waiting (no progress
   * token): under the 60 s request timeout of the MCP SDK and the Inspector, so the client
   * reads the refusal instead of timing out.
   */
  approvalTimeoutMs: z.number().int().positive().max(MAX_APPROVAL_TIMEOUT_MS).default(50_000),
  /**
   * How long a call waits for a person when its client is kept waiting by progress, or does
   * not wait at all (a 2026 client asked with `input_required`, `waitForApproval: false`).
   */
  keptAliveApprovalTimeoutMs: z
    .number()
    .int()
    .positive()
    .max(MAX_APPROVAL_TIMEOUT_MS)
    .default(300_000),
});

const requestStateSchema = z.strictObject({
  /**
   * The key signing the `requestState` of confirmation rounds (2026 clients). Give the same
   * one to every gateway behind a load balancer; by default each process makes its own.
   */
  secret: z.string().min(32, 'expected at least 32 characters').optional(),
});

/** The `policy` section: confirmation, caching, retry, rate limits, routing and audit. */
export const policySchema = z.strictObject({
  confirm: z
    .enum(CONFIRM_MODES, 'expected destructive, writes, always or never')
    .default('destructive'),
  autoApproveReadOnly: z.boolean().default(true),
  requireApprovalQueue: z.boolean().default(false),
  deny: z.boolean().default(false),
  message: z.string().min(1).max(2000).optional(),
  /** Set: how long every call waits for a person. Unset: as `waiting` says for its client. */
  approvalTimeoutMs: z.number().int().positive().max(MAX_APPROVAL_TIMEOUT_MS).optional(),
  elicitation: z.boolean().default(true),
  waitForApproval: z.boolean().default(true),
  /** Rules per server, by server name. */
  servers: z.record(z.string(), policyRuleSchema).default({}),
  /**
   * Rules per tool, by namespaced name (`server.tool`) or a pattern of it (`*` any run of
   * characters, `?` one): matching patterns apply in the order written, exact names last.
   */
  tools: z.record(z.string().min(1), policyRuleSchema).default({}),
  cache: cacheSchema.default(cacheSchema.parse({})),
  retry: retrySchema.default(retrySchema.parse({})),
  rateLimit: rateLimitSchema.default(rateLimitSchema.parse({})),
  timeouts: timeoutsSchema.default(timeoutsSchema.parse({})),
  routing: routingSchema.default(routingSchema.parse({})),
  audit: auditSchema.default(auditSchema.parse({})),
  requestState: requestStateSchema.default(requestStateSchema.parse({})),
  waiting: waitingSchema.default(waitingSchema.parse({})),
  /**
   * Every step but resolve, annotate and forward passes calls straight through (no
   * confirmation, cache, retry, rate limit, routing or audit): for measuring the pipeline.
   */
  passthrough: z.boolean().default(false),
});

/** A key of the `policy` section that names nothing configured. */
export interface PolicyReferenceIssue {
  readonly path: readonly string[];
  readonly message: string;
}

/**
 * Keys of `policy.servers` and `policy.tools` that can never apply: a server not in
 * `mcpServers`, a tool key that is neither `server.tool` nor a pattern, a tool of a server
 * that does not exist. A misspelled name in a safety rule would otherwise be ignored
 * without a word.
 */
export function policyReferenceIssues(
  policy: Pick<PolicyConfig, 'servers' | 'tools'>,
  servers: ReadonlySet<string>,
): PolicyReferenceIssue[] {
  const issues: PolicyReferenceIssue[] = [];
  const known = (): string =>
    servers.size === 0 ? 'none are configured' : `expected one of ${[...servers].join(', ')}`;
  for (const name of Object.keys(policy.servers)) {
    if (!servers.has(name))
      issues.push({
        path: ['policy', 'servers', name],
        message: `no server named "${name}" in mcpServers (${known()})`,
      });
  }
  for (const key of Object.keys(policy.tools)) {
    const dot = key.indexOf('.');
    const server = dot === -1 ? undefined : key.slice(0, dot);
    if (server === undefined) {
      if (!/[*?]/.test(key))
        issues.push({
          path: ['policy', 'tools', key],
          message: `expected a namespaced name (server.tool) or a pattern with * or ?`,
        });
    } else if (!/[*?]/.test(server) && !servers.has(server)) {
      issues.push({
        path: ['policy', 'tools', key],
        message: `no server named "${server}" in mcpServers (${known()})`,
      });
    }
  }
  return issues;
}

/** The validated `policy` section. */
export type PolicyConfig = z.output<typeof policySchema>;
/** One server or tool rule. */
export type PolicyRule = z.output<typeof policyRuleSchema>;
/** How the arguments of restricted tools are audited. */
export type RestrictedArguments = (typeof RESTRICTED_ARGUMENTS)[number];
