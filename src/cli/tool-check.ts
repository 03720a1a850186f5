import { closest, distance } from 'fastest-levenshtein';
import { HintgateError, errorMessage } from '../core/errors.js';
import type { AdminCatalog } from '../http/admin.js';
import { RemoteStore } from '../store/remote.js';
import type { Store } from '../store/store.js';
import type { ToolRef, ToolsetMember } from '../store/types.js';

/** What a store command is told a tool or server is. */
export type CheckTarget =
  | { readonly kind: 'tool'; readonly ref: ToolRef }
  | { readonly kind: 'server'; readonly server: string };

/** What checking targets against a running gateway's catalog found. */
export type CheckOutcome =
  /** Every target exists. */
  | { readonly kind: 'ok' }
  /** Some do not: one sentence each. */
  | {
      readonly kind: 'missing';
      readonly problems: readonly string[];
      readonly unsure: readonly string[];
    }
  /** Nothing could be said (no gateway running, or it could not answer), or not of these. */
  | { readonly kind: 'unchecked'; readonly why: string; readonly unsure: readonly string[] };

/** The targets of toolset members (a tool by name or refId, or a whole server). */
export function memberTargets(members: readonly ToolsetMember[]): CheckTarget[] {
  return members.map((member): CheckTarget => {
    switch (member.kind) {
      case 'tool':
        return { kind: 'tool', ref: { namespacedName: member.namespacedName } };
      case 'ref':
        return { kind: 'tool', ref: { refId: member.refId } };
      case 'server':
        return { kind: 'server', server: member.server };
    }
  });
}

/**
 * Checks tools and servers a command is about to write against the catalog of the gateway
 * running on the store (reached through its admin endpoint). The config's servers are never
 * started just for this: without a running gateway (or with PostgreSQL, where none can be
 * found) the outcome is `unchecked`, saying why. A tool of a server that is down cannot be
 * checked either (`unsure`).
 */
export async function checkTargets(
  store: Store,
  targets: readonly CheckTarget[],
): Promise<CheckOutcome> {
  if (targets.length === 0) return { kind: 'ok' };
  if (!(store instanceof RemoteStore)) {
    const why =
      store.kind === 'postgres'
        ? 'the store is PostgreSQL, where the CLI finds no running gateway to ask'
        : 'no gateway is running on this data directory (its servers are not started just for this)';
    return { kind: 'unchecked', why, unsure: [] };
  }
  let catalog: AdminCatalog;
  try {
    catalog = await fetchCatalog(store);
  } catch (error) {
    return {
      kind: 'unchecked',
      why: `the running gateway could not say (${errorMessage(error)})`,
      unsure: [],
    };
  }
  const problems: string[] = [];
  const unsure: string[] = [];
  for (const target of targets) {
    const found = checkTarget(catalog, target);
    if (found.kind === 'missing') problems.push(found.text);
    if (found.kind === 'unsure') unsure.push(found.text);
  }
  if (problems.length > 0) return { kind: 'missing', problems, unsure };
  if (unsure.length > 0) return { kind: 'unchecked', why: unsure.join('; '), unsure };
  return { kind: 'ok' };
}

async function fetchCatalog(store: RemoteStore): Promise<AdminCatalog> {
  const { url, token } = store.endpoint;
  const response = await fetch(`${url.replace(/\/+$/, '')}/catalog`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as AdminCatalog & { error?: { message?: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body;
}

type TargetFinding =
  { readonly kind: 'found' } | { readonly kind: 'missing' | 'unsure'; readonly text: string };

function checkTarget(catalog: AdminCatalog, target: CheckTarget): TargetFinding {
  const servers = catalog.servers;
  const serverNames = servers.map((server) => server.name).sort();
  const serverList = serverNames.join(', ') || 'none';
  if (target.kind === 'server') {
    if (serverNames.includes(target.server)) return { kind: 'found' };
    return {
      kind: 'missing',
      text: `server "${target.server}": the running gateway has no such server (servers: ${serverList})${didYouMean(target.server, serverNames)}`,
    };
  }
  const { namespacedName, refId } = target.ref;
  if (namespacedName !== undefined) {
    if (catalog.tools.some((tool) => tool.namespacedName === namespacedName)) {
      return { kind: 'found' };
    }
    // The server is the longest server name the reference starts with, then a dot.
    const server = servers
      .filter((candidate) => namespacedName.startsWith(`${candidate.name}.`))
      .sort((a, b) => b.name.length - a.name.length)[0];
    if (server === undefined) {
      return {
        kind: 'missing',
        text: `${namespacedName}: the running gateway has no server of that name (servers: ${serverList})`,
      };
    }
    const name = namespacedName.slice(server.name.length + 1);
    if (server.state !== 'up') {
      return {
        kind: 'unsure',
        text: `server "${server.name}" is ${server.state}${server.reason === undefined ? '' : ` (${server.reason})`}, so whether it has a tool "${name}" is not known`,
      };
    }
    const names = catalog.tools
      .filter((tool) => tool.server === server.name)
      .map((tool) => tool.namespacedName.slice(server.name.length + 1));
    const near = suggest(name, names);
    return {
      kind: 'missing',
      text: `${namespacedName}: server "${server.name}" has no tool "${name}"${near === undefined ? '' : ` (did you mean ${server.name}.${near}?)`}`,
    };
  }
  if (refId !== undefined && catalog.tools.some((tool) => tool.refId === refId)) {
    return { kind: 'found' };
  }
  const notUp = servers.filter((server) => server.state !== 'up').map((server) => server.name);
  if (notUp.length > 0) {
    return {
      kind: 'unsure',
      text: `refId ${refId ?? '?'} is no tool of the servers up now, and ${notUp.join(', ')} ${notUp.length === 1 ? 'is' : 'are'} not up`,
    };
  }
  return { kind: 'missing', text: `refId ${refId ?? '?'}: no tool of the running gateway has it` };
}

/** The nearest of `candidates` when it is a likely typo of `value` (a third of it at most). */
function suggest(value: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const nearest = closest(value, [...candidates]);
  return distance(value, nearest) <= Math.max(1, Math.floor(value.length / 3))
    ? nearest
    : undefined;
}

/** ` (did you mean x?)`, or nothing. */
function didYouMean(value: string, candidates: readonly string[]): string {
  const near = suggest(value, candidates);
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}

/** How a target is named in messages. */
function describeTarget(target: CheckTarget): string {
  if (target.kind === 'server') return `server "${target.server}"`;
  return target.ref.namespacedName ?? `refId ${target.ref.refId ?? '?'}`;
}

/**
 * Checks `targets` on the command's store, then writes: with `strict`, a target that does
 * not exist, or that could not be checked, refuses the command before anything is written
 * (INPUT_INVALID saying why). Returns what `write` returned and what the check found, for
 * {@link reportCheck} once the write is confirmed.
 */
export async function checkedWrite<T>(
  store: Store,
  targets: readonly CheckTarget[],
  strict: boolean,
  write: () => Promise<T>,
): Promise<{ value: T; check: CheckOutcome; targets: readonly CheckTarget[] }> {
  const check = await checkTargets(store, targets);
  if (strict && check.kind === 'missing') {
    throw new HintgateError(
      'INPUT_INVALID',
      `--strict: ${check.problems.join('; ')}; nothing was written`,
    );
  }
  if (strict && check.kind === 'unchecked') {
    throw new HintgateError(
      'INPUT_INVALID',
      `--strict: ${targets.map(describeTarget).join(', ')} could not be checked: ${check.why}; nothing was written`,
    );
  }
  return { value: await write(), check, targets };
}

/**
 * Says on stderr what the check found: a warning per target that does not exist (written
 * anyway: an orphan, kept and used once such a tool appears), or that nothing could be
 * checked. Silent when everything exists.
 */
export function reportCheck(
  outcome: { readonly check: CheckOutcome; readonly targets: readonly CheckTarget[] },
  say: (line: string) => void,
): void {
  const { check, targets } = outcome;
  if (check.kind === 'missing') {
    for (const problem of check.problems) say(`warning: ${problem}`);
    say(
      'kept anyway: it resolves to no tool now (an orphan, used once such a tool appears); --strict refuses instead',
    );
    for (const text of check.unsure) say(`not checked: ${text}`);
  } else if (check.kind === 'unchecked' && check.unsure.length > 0) {
    for (const text of check.unsure) say(`not checked: ${text}`);
  } else if (check.kind === 'unchecked') {
    say(`not checked against the catalog: ${targets.map(describeTarget).join(', ')}: ${check.why}`);
  }
}
