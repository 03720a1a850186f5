import type { PolicyConfig, PolicyRule, RestrictedArguments } from '../config/policy-schema.js';
import type { ConfirmPolicy, ConfirmPolicyLayer } from '../core/policy/decide.js';
import { layerConfirmPolicy } from '../core/policy/decide.js';

/** Everything config says about calls to one tool, the layers already applied. */
export interface ToolSettings {
  /** What `decide` needs. */
  readonly confirm: ConfirmPolicy;
  /** How long the call waits for a person, when config sets it (else it depends on the client). */
  readonly approvalTimeoutMs: number | undefined;
  /** The client may be asked (elicitation, or `input_required`). */
  readonly elicitation: boolean;
  /** A queued call waits for the decision (else it is answered at once, "needs approval"). */
  readonly waitForApproval: boolean;
  readonly cache: boolean;
  /** Replaces the read-only or idempotent TTL when set. */
  readonly cacheTtlMs: number | undefined;
  readonly retry: boolean;
  /** Retry after a timeout too (declared idempotent tools only). */
  readonly retryOnTimeout: boolean;
  /** Calls per minute replacing the tool's `rateLimitHint`; `false` for none; unset: the hint. */
  readonly rateLimit: number | false | undefined;
  /** Replaces the call timeout when set. */
  readonly timeoutMs: number | undefined;
  readonly restrictedArguments: RestrictedArguments;
}

interface ToolPattern {
  readonly exact: string | undefined;
  readonly pattern: RegExp | undefined;
  readonly rule: PolicyRule;
}

/**
 * The `policy` section compiled for lookups on the call path: a tool's settings are the
 * global ones, then its server's rule, then every tool pattern matching its namespaced name
 * (in the order written), then a rule for its exact name; later layers win field by field.
 * Each tool's settings are computed once and kept.
 */
export class ToolSettingsTable {
  private readonly patterns: readonly ToolPattern[];
  private readonly byTool = new Map<string, ToolSettings>();

  constructor(private readonly policy: PolicyConfig) {
    const patterns: ToolPattern[] = [];
    const exact: ToolPattern[] = [];
    for (const [key, rule] of Object.entries(policy.tools)) {
      if (/[*?]/.test(key)) patterns.push({ exact: undefined, pattern: globToRegExp(key), rule });
      else exact.push({ exact: key, pattern: undefined, rule });
    }
    this.patterns = [...patterns, ...exact];
  }

  /** The settings for `server`'s tool of namespaced name `tool` (`server.name`). */
  forTool(server: string, tool: string): ToolSettings {
    let settings = this.byTool.get(tool);
    if (settings === undefined) {
      settings = this.compute(server, tool);
      this.byTool.set(tool, settings);
    }
    return settings;
  }

  private compute(server: string, tool: string): ToolSettings {
    const rules: PolicyRule[] = [];
    const serverRule = this.policy.servers[server];
    if (serverRule !== undefined) rules.push(serverRule);
    for (const candidate of this.patterns) {
      if (candidate.exact === tool || candidate.pattern?.test(tool) === true)
        rules.push(candidate.rule);
    }
    const global = this.policy;
    const pick = <K extends keyof PolicyRule>(key: K): PolicyRule[K] => {
      let value: PolicyRule[K] = undefined;
      for (const rule of rules) if (rule[key] !== undefined) value = rule[key];
      return value;
    };
    const globalLayer: ConfirmPolicyLayer = {
      confirm: global.confirm,
      autoApproveReadOnly: global.autoApproveReadOnly,
      requireApprovalQueue: global.requireApprovalQueue,
      deny: global.deny,
      message: global.message,
    };
    return {
      confirm: layerConfirmPolicy(globalLayer, ...rules.map(confirmLayer)),
      approvalTimeoutMs: pick('approvalTimeoutMs') ?? global.approvalTimeoutMs,
      elicitation: pick('elicitation') ?? global.elicitation,
      waitForApproval: pick('waitForApproval') ?? global.waitForApproval,
      cache: global.cache.enabled && (pick('cache') ?? true),
      cacheTtlMs: pick('cacheTtlMs'),
      retry: global.retry.enabled && (pick('retry') ?? true),
      retryOnTimeout: pick('retryOnTimeout') ?? global.retry.onTimeout,
      rateLimit: global.rateLimit.enabled ? pick('rateLimit') : false,
      timeoutMs: pick('timeoutMs'),
      restrictedArguments: pick('restrictedArguments') ?? global.audit.restrictedArguments,
    };
  }
}

function confirmLayer(rule: PolicyRule): ConfirmPolicyLayer {
  return {
    confirm: rule.confirm,
    autoApproveReadOnly: rule.autoApproveReadOnly,
    requireApprovalQueue: rule.requireApprovalQueue,
    deny: rule.deny,
    message: rule.message,
  };
}

/** `github.delete_*` → /^github\.delete_.*$/ (`*` any run of characters, `?` one). */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}
