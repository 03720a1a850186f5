import type { AccessConfig, AccessRule } from '../config/access-schema.js';
import type { Config } from '../config/schema.js';
import type { ToolAnnotations } from '../core/annotations/types.js';
import type { CatalogEntry } from './catalog-entry.js';
import { globToRegExp } from './tool-settings.js';
import type { RestrictedListing, ToolView } from './toolsets/view.js';

/** Who made a request: a named token, an OAuth subject, or `anonymous` (no auth, stdio). */
export interface Principal {
  readonly name: string;
  readonly groups: readonly string[];
}

/** The principal of requests that carry no credential (stdio, HTTP with auth off). */
export const ANONYMOUS = 'anonymous';

/** Principals learnt from access tokens are kept at most this many (the oldest forgotten). */
const MAX_LEARNT = 10_000;

/**
 * The groups of every principal the gateway knows: the named tokens of config, and the
 * principals of validated OAuth access tokens as they come (their groups from a claim).
 * A session carries only its principal's name; access rules and approvals ask here.
 */
export class PrincipalDirectory {
  private readonly configured = new Map<string, readonly string[]>();
  private readonly learnt = new Map<string, readonly string[]>();

  constructor(principals: readonly Principal[] = []) {
    for (const principal of principals) this.configured.set(principal.name, principal.groups);
  }

  /** Records the groups of a principal seen on a request (a validated access token). */
  remember(principal: Principal): void {
    if (this.configured.has(principal.name)) return;
    const known = this.learnt.get(principal.name);
    if (known !== undefined && sameGroups(known, principal.groups)) return;
    this.learnt.delete(principal.name);
    if (this.learnt.size >= MAX_LEARNT) this.learnt.delete(this.learnt.keys().next().value!);
    this.learnt.set(principal.name, principal.groups);
  }

  /** The principal of a session's principal name (`anonymous` when there is none). */
  lookup(name: string | undefined): Principal {
    if (name === undefined) return { name: ANONYMOUS, groups: [] };
    return { name, groups: this.configured.get(name) ?? this.learnt.get(name) ?? [] };
  }
}

/**
 * The principals config names: each of `http.tokens` with its groups (their secrets are
 * the front's business), and `bearer`, the single `http.token`.
 */
export function configuredPrincipals(config: Pick<Config, 'http'>): Principal[] {
  return config.http.tokens.map((entry) => ({ name: entry.name, groups: entry.groups }));
}

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((group, i) => group === b[i]);
}

/** What access rules decided for one principal and one tool. */
export interface AccessDecision {
  readonly allowed: boolean;
  /** Which rule decided (`access.rules[2]`, `access.toolsets.ops[0]`) or `access.default`. */
  readonly by: string;
  /** The deciding rule's `reason`, when it has one. */
  readonly reason: string | undefined;
  /** Whether the decision read the tool's annotations (then a call's own may differ). */
  readonly readAnnotations: boolean;
}

/** A tool as access rules see it. */
export interface AccessSubject {
  readonly server: string;
  readonly namespacedName: string;
  readonly annotations: ToolAnnotations;
}

interface CompiledRule {
  readonly rule: AccessRule;
  readonly label: string;
  readonly tools: readonly RegExp[] | undefined;
}

/** True when `who` (principals, `group:<name>`, `*`) names the principal. */
export function namesPrincipal(who: readonly string[], principal: Principal): boolean {
  for (const entry of who) {
    if (entry === '*' || entry === principal.name) return true;
    if (entry.startsWith('group:') && principal.groups.includes(entry.slice(6))) return true;
  }
  return false;
}

/**
 * The `access` section, compiled: which tools a principal may see and call (the rules of the
 * toolset in use first, then the global ones, the first match deciding, else the default)
 * and who may approve.
 */
export class AccessControl {
  private readonly global: readonly CompiledRule[];
  private readonly byToolset: ReadonlyMap<string, readonly CompiledRule[]>;
  /** True when no rule exists and everything is allowed: the checks cost nothing. */
  readonly open: boolean;

  constructor(
    private readonly config: AccessConfig,
    readonly principals: PrincipalDirectory,
  ) {
    this.global = compile(config.rules, 'access.rules');
    this.byToolset = new Map(
      Object.entries(config.toolsets).map(([name, rules]) => [
        name,
        compile(rules, `access.toolsets.${name}`),
      ]),
    );
    this.open = config.default === 'allow' && this.global.length === 0 && this.byToolset.size === 0;
  }

  /** What the rules say about one principal calling one tool, in one toolset (or none). */
  decide(
    principal: Principal,
    toolset: string | undefined,
    subject: AccessSubject,
  ): AccessDecision {
    const scoped = toolset === undefined ? undefined : this.byToolset.get(toolset);
    let readAnnotations = false;
    for (const rules of scoped === undefined ? [this.global] : [scoped, this.global]) {
      for (const compiled of rules) {
        const { rule } = compiled;
        if (!namesPrincipal(rule.who, principal)) continue;
        if (rule.servers !== undefined && !rule.servers.includes(subject.server)) continue;
        if (
          compiled.tools !== undefined &&
          !compiled.tools.some((pattern) => pattern.test(subject.namespacedName))
        )
          continue;
        if (rule.annotations !== undefined) {
          readAnnotations = true;
          if (!annotationsMatch(rule.annotations, subject.annotations)) continue;
        }
        return {
          allowed: rule.effect === 'allow',
          by: compiled.label,
          reason: rule.reason,
          readAnnotations,
        };
      }
    }
    return {
      allowed: this.config.default === 'allow',
      by: 'access.default',
      reason: undefined,
      readAnnotations,
    };
  }

  /** What an entry (as a view shows it) means to the rules. */
  decideEntry(
    principal: Principal,
    toolset: string | undefined,
    entry: CatalogEntry,
  ): AccessDecision {
    return this.decide(principal, toolset, {
      server: entry.server,
      namespacedName: entry.namespacedName,
      annotations: entry.effective.annotations,
    });
  }

  /**
   * The listing of a view a principal may see (only the tools it may call, none of the
   * `hidden` servers'), or undefined when nothing restricts it (the view's own listing then).
   */
  listing(
    view: ToolView,
    principalName: string | undefined,
    hidden: readonly string[] = [],
  ): RestrictedListing | undefined {
    if (this.open && hidden.length === 0) return undefined;
    const principal = this.principals.lookup(principalName);
    const toolset = view.toolsetName;
    const key = `${principal.name}\u0000${principal.groups.join('\u0000')}`;
    if (hidden.length === 0)
      return view.restrictedTo(key, (entry) => this.decideEntry(principal, toolset, entry).allowed);
    return view.restrictedTo(
      `${key}\u0001${hidden.join('\u0000')}`,
      (entry) =>
        !hidden.includes(entry.server) &&
        (this.open || this.decideEntry(principal, toolset, entry).allowed),
    );
  }

  /** True when the principal has the approver role (`access.approvers`). */
  isApprover(principal: Principal): boolean {
    return namesPrincipal(this.config.approvers, principal);
  }

  /** True when some principal may approve over HTTP. */
  get hasApprovers(): boolean {
    return this.config.approvers.length > 0;
  }
}

function compile(rules: readonly AccessRule[], path: string): CompiledRule[] {
  return rules.map((rule, index) => ({
    rule,
    label: `${path}[${index}]`,
    tools: rule.tools?.map(globToRegExp),
  }));
}

/** Whether a tool's annotations agree with a rule's `annotations` (each field given). */
function annotationsMatch(
  wanted: NonNullable<AccessRule['annotations']>,
  hints: ToolAnnotations,
): boolean {
  const readOnly = hints.readOnlyHint === true;
  if (wanted.readOnly !== undefined && wanted.readOnly !== readOnly) return false;
  // A write is destructive unless it says otherwise (the spec's default).
  const destructive = !readOnly && hints.destructiveHint !== false;
  if (wanted.destructive !== undefined && wanted.destructive !== destructive) return false;
  const openWorld = hints.openWorldHint !== false;
  if (wanted.openWorld !== undefined && wanted.openWorld !== openWorld) return false;
  return true;
}
