import { HintgateError } from '../core/errors.js';
import { HINT_FIELDS } from '../core/annotations/types.js';
import type { Decision } from '../core/policy/decide.js';
import type { CatalogEntry, ListedToolMeta } from '../gateway/catalog-entry.js';
import { TOOL_META_KEY, toolMeta } from '../gateway/catalog-entry.js';
import { describeDown } from '../gateway/servers.js';
import type { ToolView } from '../gateway/toolsets/view.js';
import type { ServerConnection } from '../downstream/downstream.js';
import { BADGE_LEGEND, hintBadges } from './badges.js';
import { writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import { withGateway } from './run-catalog.js';
import { orphanLines } from './run-toolset.js';
import type { StoreCommandOptions } from './store-access.js';

/** Options of `hintgate tools`. */
export interface ToolsOptions extends StoreCommandOptions {
  readonly json?: boolean;
  /** Show this toolset's tools, with its notes and overrides. */
  readonly toolset?: string;
  /** Add the reason behind every inferred value. */
  readonly explain?: boolean;
}

/**
 * Connects to every configured server, prints the catalog (or one toolset's view of it)
 * with overrides applied and where each value came from, and closes them.
 */
export async function runTools(options: ToolsOptions): Promise<void> {
  await withGateway(options, async (gateway) => {
    const servers = gateway.servers.all();
    const view = await gateway.toolsets.viewOf(options.toolset);
    const decisionOf = (entry: CatalogEntry): Decision => gateway.calls.decisionFor(entry);
    await writeOut(
      options.json === true
        ? formatJson(toolsJson(servers, view, decisionOf))
        : toolsTable(servers, view, decisionOf, options.explain === true),
    );
    const down = servers.filter((server) => server.status.state !== 'up');
    if (down.length > 0) {
      throw new HintgateError(
        'DOWNSTREAM_UNAVAILABLE',
        `${down.length} of ${servers.length} server(s) did not come up`,
      );
    }
  });
}

/** hintgate's listed description of an entry (overrides and notes of the view included). */
function listedMeta(entry: CatalogEntry): ListedToolMeta {
  return (entry.listed['_meta'] as Record<string, unknown>)[TOOL_META_KEY] as ListedToolMeta;
}

function overrideCell(entry: CatalogEntry): string {
  const scopes = listedMeta(entry).overrides ?? {};
  return Object.entries(scopes)
    .map(([field, scope]) => `${field}=${String(entry.effective.annotations[field])} (${scope})`)
    .join(', ');
}

/**
 * Why a tool is dynamic, in a cell: `server tools/resolve`, `sql /sql`, `rule config rule 1`;
 * empty for a static tool.
 */
function dynamicCell(entry: CatalogEntry): string {
  return (entry.dynamic?.sources ?? [])
    .map((source) => {
      switch (source.source) {
        case 'server':
          return `server ${source.method}`;
        case 'rule':
          return source.rule;
        case 'classifier':
          return `${source.classifier} ${source.pointer}`;
      }
    })
    .join(', ');
}

/**
 * What policy does with a call of the tool, in a cell: empty when it is allowed, `confirm`
 * (the client is asked, else the approval queue), `approval queue` (only a person in the
 * queue), `denied`; `(per call)` for a dynamic tool, whose calls may ask less.
 */
function policyCell(entry: CatalogEntry, decision: Decision): string {
  const text =
    decision.kind === 'allow'
      ? ''
      : decision.kind === 'deny'
        ? 'denied'
        : decision.channel === 'queue'
          ? 'approval queue'
          : 'confirm';
  return text !== '' && entry.dynamic !== undefined ? `${text} (per call)` : text;
}

/** One line counting the tools policy will ask about, queue or refuse. */
function policySummary(entries: readonly CatalogEntry[], decisionOf: DecisionOf): string {
  let confirm = 0;
  let queue = 0;
  let denied = 0;
  for (const entry of entries) {
    const decision = decisionOf(entry);
    if (decision.kind === 'deny') denied++;
    else if (decision.kind === 'confirm' && decision.channel === 'queue') queue++;
    else if (decision.kind === 'confirm') confirm++;
  }
  if (confirm + queue + denied === 0) return 'policy: every tool is called without asking';
  return `policy: ${confirm} tool(s) confirm (the client is asked when it can answer, else the approval queue), ${queue} only through the approval queue, ${denied} denied; --explain says why`;
}

type DecisionOf = (entry: CatalogEntry) => Decision;

function toolsTable(
  servers: readonly ServerConnection[],
  view: ToolView,
  decisionOf: DecisionOf,
  explain: boolean,
): string {
  const entries = view.entries;
  const overridden = entries.some((entry) => listedMeta(entry).overrides !== undefined);
  const dynamic = entries.some((entry) => entry.dynamic !== undefined);
  const table = formatTable(entries, [
    { heading: 'tool', cell: (entry) => entry.flattenedName },
    { heading: 'server', cell: (entry) => entry.server },
    { heading: 'hints', cell: hintBadges },
    { heading: 'title', cell: (entry) => String(entry.effective.annotations.title ?? '') },
    { heading: 'policy', cell: (entry) => policyCell(entry, decisionOf(entry)) },
    ...(overridden ? [{ heading: 'overrides', cell: overrideCell }] : []),
    ...(dynamic ? [{ heading: 'dynamic', cell: dynamicCell }] : []),
  ]);
  const heading =
    view.toolsetName === undefined
      ? []
      : [`toolset ${view.toolsetName}: ${entries.length} tool(s)`];
  const lines = [
    ...heading,
    entries.length === 0 ? '(no tools)' : table,
    '',
    BADGE_LEGEND,
    policySummary(entries, decisionOf),
    '',
  ];
  for (const server of servers) {
    const status = server.status;
    if (status.state === 'up') {
      lines.push(
        `server "${server.name}": up, ${server.snapshot.tools.length} tool(s), protocol ${status.protocolVersion}`,
      );
    } else if (status.state === 'down') {
      lines.push(describeDown(server.name, status));
    } else {
      lines.push(`server "${server.name}": ${status.state}`);
    }
  }
  for (const entry of entries) {
    for (const conflict of entry.effective.conflicts) {
      lines.push(
        `conflict: ${entry.flattenedName}: ${conflict.reason}; acting on ${conflict.field}=${String(conflict.resolved)}`,
      );
    }
  }
  if (dynamic) {
    lines.push(
      '',
      'dynamic: listed with their worst case; each call is refined for its arguments (by the server, a rule or a classifier of the argument shown)',
    );
  }
  if (explain) {
    lines.push('');
    for (const entry of entries) {
      const meta = toolMeta(entry);
      const reasons = Object.entries(meta.reasons);
      const why = meta.dynamic?.why ?? [];
      const decision = decisionOf(entry);
      if (reasons.length === 0 && why.length === 0 && decision.kind === 'allow') continue;
      lines.push(`${entry.flattenedName}:`);
      if (decision.kind !== 'allow') {
        lines.push(`  ${policyCell(entry, decision)}: ${decision.reason}`);
      }
      for (const [field, reason] of reasons) {
        lines.push(`  ${field} (${meta.sources[field] ?? '?'}): ${reason}`);
      }
      for (const sentence of why) lines.push(`  dynamic: ${sentence}`);
    }
  }
  const orphans = view.orphans;
  if (orphans.members.length + orphans.notes.length + orphans.overrides.length > 0) {
    lines.push('', ...orphanLines(orphans));
  }
  return `${lines.join('\n')}\n`;
}

function toolsJson(
  servers: readonly ServerConnection[],
  view: ToolView,
  decisionOf: DecisionOf,
): unknown {
  return {
    servers: servers.map((server) => ({
      name: server.name,
      ...server.status,
      tools: server.snapshot.tools.length,
    })),
    ...(view.toolsetName === undefined ? {} : { toolset: view.toolsetName }),
    tools: view.entries.map((entry) => {
      const meta = toolMeta(entry);
      const listed = listedMeta(entry);
      const annotations: Record<string, unknown> = {};
      const effective = entry.effective.annotations;
      if (effective.title !== undefined) annotations['title'] = effective.title;
      for (const field of HINT_FIELDS) annotations[field] = effective[field];
      return {
        server: entry.server,
        name: entry.name,
        namespacedName: entry.namespacedName,
        flattenedName: entry.flattenedName,
        refId: entry.refId,
        description: entry.listed['description'] ?? entry.description,
        declared: entry.declared ?? null,
        annotations,
        extensions: meta.extensions,
        sources: meta.sources,
        reasons: meta.reasons,
        conflicts: meta.conflicts,
        overrides: listed.overrides ?? {},
        notes: listed.notes ?? [],
        dynamic: meta.dynamic ?? null,
        policy: policyJson(decisionOf(entry)),
      };
    }),
    orphans: view.orphans,
  };
}

/** A decision as `tools --json` gives it. */
function policyJson(decision: Decision): Record<string, unknown> {
  return {
    decision: decision.kind,
    ...(decision.kind === 'confirm' ? { channel: decision.channel } : {}),
    reason: decision.reason,
  };
}
