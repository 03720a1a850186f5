/**
 * What the dashboard and its JSON API read from a running gateway: the catalog as the
 * global view shows it (global overrides applied), filtered and paged on the server, the
 * servers' states, and call statistics from the audit log.
 */
import type { AnnotationSource, HintField } from '../../core/annotations/types.js';
import {
  ANNOTATION_SOURCES,
  EXTENSION_FIELDS,
  HINT_FIELDS,
  MCP_ANNOTATION_FIELDS,
} from '../../core/annotations/types.js';
import { HintgateError } from '../../core/errors.js';
import { redactSecretText } from '../../core/util/redact.js';
import type { ServerConnection } from '../../downstream/downstream.js';
import type { AccessControl } from '../../gateway/access.js';
import type { CatalogEntry } from '../../gateway/catalog-entry.js';
import type { PinSettings } from '../../gateway/pins/book.js';
import { toolMeta } from '../../gateway/catalog-entry.js';
import type { Catalog } from '../../gateway/catalog.js';
import type { ToolsetService } from '../../gateway/toolsets/service.js';
import { ToolView } from '../../gateway/toolsets/view.js';
import type { Store } from '../../store/store.js';
import type { AuditRecord } from '../../store/types.js';

/** The parts of a gateway the dashboard reads and changes. */
export interface DashboardGateway {
  readonly catalog: Catalog;
  readonly servers: { all(): readonly ServerConnection[] };
  readonly toolsets: ToolsetService;
  readonly store: Store;
  readonly calls: { stats(): unknown };
  /** Who holds the approver role. */
  readonly access: Pick<AccessControl, 'isApprover' | 'principals'>;
  /** The pinning policy of each server. */
  readonly pins: { settings(server: string): PinSettings };
}

/** The annotation fields a tool page lists, in order. */
export const ANNOTATION_FIELDS: readonly string[] = [...MCP_ANNOTATION_FIELDS, ...EXTENSION_FIELDS];

/** A hint's value as shown: true, false, or unknown (nobody said; MCP's default holds). */
export type HintState = 'true' | 'false' | 'unknown';

/** One hint of one tool, with where its value came from. */
export interface HintCell {
  readonly field: HintField;
  readonly state: HintState;
  /** The value that holds (MCP's default when unknown). */
  readonly value: boolean;
  readonly source: AnnotationSource;
  readonly reason: string | undefined;
  readonly conflict: boolean;
}

/** The hints of a tool, in the order of {@link HINT_FIELDS}. */
export function hintCells(entry: CatalogEntry): HintCell[] {
  const { provenance, annotations, conflicts } = entry.effective;
  return HINT_FIELDS.map((field) => {
    const value = provenance[field];
    const source = value?.source ?? 'spec-default';
    return {
      field,
      state: source === 'spec-default' ? 'unknown' : annotations[field] === true ? 'true' : 'false',
      value: annotations[field] === true,
      source,
      reason: value?.reason,
      conflict: conflicts.some((conflict) => conflict.field === field),
    };
  });
}

/** Filters of the catalog; every one optional. */
export interface CatalogFilter {
  /** Words that must all appear in the name, namespaced name or description. */
  readonly q?: string | undefined;
  readonly server?: string | undefined;
  /** `field:state`, e.g. `destructiveHint:true` or `readOnlyHint:unknown`. */
  readonly hint?: string | undefined;
  /** Some field's value came from this source. */
  readonly source?: string | undefined;
  /** Only tools with a conflict between declared and inferred values. */
  readonly conflict?: boolean | undefined;
  /** 1-based. */
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

/** A filter from query parameters (`q`, `server`, `hint`, `source`, `conflict=1`, `page`, `size`). */
export function catalogFilterFrom(query: (name: string) => string | undefined): CatalogFilter {
  return {
    q: query('q'),
    server: query('server'),
    hint: query('hint'),
    source: query('source'),
    conflict: query('conflict') === '1',
    page: Number(query('page') ?? 1),
    size: Number(query('size') ?? 50),
  };
}

/** One page of the catalog. */
export interface CatalogPage {
  readonly total: number;
  readonly page: number;
  readonly pages: number;
  readonly size: number;
  readonly tools: readonly CatalogEntry[];
}

export const PAGE_SIZES = [25, 50, 100, 200] as const;
const DEFAULT_PAGE_SIZE = 50;
const HINT_STATES = new Set<string>(['true', 'false', 'unknown']);

/** Checks a filter's values, naming the first that is wrong (INPUT_INVALID). */
export function checkCatalogFilter(filter: CatalogFilter): void {
  if (filter.hint !== undefined && filter.hint !== '') {
    const [field, state] = filter.hint.split(':');
    if (!(HINT_FIELDS as readonly string[]).includes(field ?? '') || !HINT_STATES.has(state ?? ''))
      throw new HintgateError(
        'INPUT_INVALID',
        `hint: expected field:state with a field among ${HINT_FIELDS.join(', ')} and a state among true, false, unknown; got "${filter.hint}"`,
      );
  }
  if (
    filter.source !== undefined &&
    filter.source !== '' &&
    !(ANNOTATION_SOURCES as readonly string[]).includes(filter.source)
  )
    throw new HintgateError(
      'INPUT_INVALID',
      `source: expected one of ${ANNOTATION_SOURCES.join(', ')}; got "${filter.source}"`,
    );
}

/** Each entry's lowercased search text, made once per entry (entries are never changed). */
const SEARCH_TEXT = new WeakMap<CatalogEntry, string>();

function searchText(entry: CatalogEntry): string {
  let text = SEARCH_TEXT.get(entry);
  if (text === undefined) {
    text =
      `${entry.flattenedName}\n${entry.namespacedName}\n${entry.refId}\n${entry.description ?? ''}`.toLowerCase();
    SEARCH_TEXT.set(entry, text);
  }
  return text;
}

/**
 * One page of the tools matching a filter, in catalog order (by server, then the server's
 * own order). A single pass over the entries: 10,000 tools filter in a few milliseconds.
 */
export function queryCatalog(entries: readonly CatalogEntry[], filter: CatalogFilter): CatalogPage {
  checkCatalogFilter(filter);
  const words = (filter.q ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  const [hintField, hintState] = (filter.hint ?? '').split(':') as [HintField | '', string?];
  const source = filter.source === '' ? undefined : filter.source;
  const server = filter.server === '' ? undefined : filter.server;
  const matches = (entry: CatalogEntry): boolean => {
    if (server !== undefined && entry.server !== server) return false;
    if (filter.conflict === true && entry.effective.conflicts.length === 0) return false;
    if (hintField !== '') {
      const value = entry.effective.provenance[hintField];
      const state =
        value === undefined || value.source === 'spec-default'
          ? 'unknown'
          : entry.effective.annotations[hintField] === true
            ? 'true'
            : 'false';
      if (state !== hintState) return false;
    }
    if (source !== undefined) {
      let found = false;
      for (const value of Object.values(entry.effective.provenance)) {
        if (value.source === source) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    if (words.length > 0) {
      const text = searchText(entry);
      for (const word of words) if (!text.includes(word)) return false;
    }
    return true;
  };
  const size = PAGE_SIZES.includes(filter.size as (typeof PAGE_SIZES)[number])
    ? (filter.size as number)
    : DEFAULT_PAGE_SIZE;
  const matching = entries.filter(matches);
  const pages = Math.max(1, Math.ceil(matching.length / size));
  const page = Math.min(Math.max(1, Math.trunc(filter.page ?? 1) || 1), pages);
  return {
    total: matching.length,
    page,
    pages,
    size,
    tools: matching.slice((page - 1) * size, page * size),
  };
}

/** A tool as the JSON API describes it. */
export function toolJson(entry: CatalogEntry): Record<string, unknown> {
  const meta = toolMeta(entry);
  return {
    server: entry.server,
    name: entry.name,
    namespacedName: entry.namespacedName,
    flattenedName: entry.flattenedName,
    refId: entry.refId,
    description: entry.listed['description'] ?? null,
    annotations: entry.effective.annotations,
    sources: meta.sources,
    reasons: meta.reasons,
    conflicts: meta.conflicts,
    ...(meta.dynamic === undefined ? {} : { dynamic: meta.dynamic }),
  };
}

const GLOBAL_VIEWS = new WeakMap<Catalog, ToolView>();

/**
 * The catalog as a session without a toolset sees it: every tool, global overrides applied.
 * Built once per (catalog version, global overrides) and kept.
 */
export function globalView(gateway: DashboardGateway): ToolView {
  const key = {
    catalogVersion: gateway.catalog.version,
    toolset: undefined,
    globalOverrides: gateway.toolsets.globalOverrides(),
    localTools: false,
  };
  const cached = GLOBAL_VIEWS.get(gateway.catalog);
  if (cached?.matches(key) === true) return cached;
  const view = new ToolView({ key, catalog: gateway.catalog, localTools: [] });
  GLOBAL_VIEWS.set(gateway.catalog, view);
  return view;
}

/** A tool by refId, namespaced or flattened name, as the global view shows it. */
export function findTool(gateway: DashboardGateway, ref: string): CatalogEntry | undefined {
  const entry = gateway.catalog.getByRefId(ref) ?? gateway.catalog.resolve(ref);
  return entry === undefined ? undefined : globalView(gateway).viewOf(entry);
}

/** A server as the dashboard shows it. */
export interface ServerSummary {
  readonly name: string;
  readonly state: 'starting' | 'up' | 'down' | 'closed';
  readonly era?: string;
  readonly protocolVersion?: string;
  readonly reason?: string;
  readonly retryAt?: string;
  readonly since: string;
  readonly tools: number;
}

/** Every enabled server with its state and tool count, by name. */
export function serverSummaries(gateway: DashboardGateway): ServerSummary[] {
  return gateway.servers.all().map((server) => {
    const status = server.status;
    const base = {
      name: server.name,
      state: status.state,
      since: new Date(status.since).toISOString(),
      tools: gateway.catalog.entriesOf(server.name).length,
    };
    switch (status.state) {
      case 'up':
        return { ...base, era: status.era, protocolVersion: status.protocolVersion };
      case 'down':
        return {
          ...base,
          // A server's own error text may carry a credential (a URL's password, a token).
          reason: redactSecretText(status.reason),
          ...(status.retryAt === undefined
            ? {}
            : { retryAt: new Date(status.retryAt).toISOString() }),
        };
      case 'starting':
      case 'closed':
        return base;
    }
  });
}

/** Call statistics of one tool over a window. */
export interface ToolStats {
  readonly tool: string;
  readonly calls: number;
  /** Calls that failed: `error`, `tool-error` or `timeout`. */
  readonly errors: number;
  /** Calls refused before the server: `denied`, `rate-limited`. */
  readonly refused: number;
  readonly errorRate: number;
  readonly p50Ms: number | undefined;
  readonly p95Ms: number | undefined;
  readonly cacheHits: number;
}

const FAILED = new Set(['error', 'tool-error', 'timeout']);
const REFUSED = new Set(['denied', 'rate-limited']);

/**
 * Per-tool statistics of audit records, the busiest tools first. Records of pin checks and
 * decisions (`pin:…`) are no calls and are left out.
 */
export function toolStats(records: readonly AuditRecord[]): ToolStats[] {
  const byTool = new Map<string, AuditRecord[]>();
  for (const record of records) {
    if (record.decision.startsWith('pin:')) continue;
    const tool = record.namespacedName ?? record.tool;
    let list = byTool.get(tool);
    if (list === undefined) byTool.set(tool, (list = []));
    list.push(record);
  }
  const stats: ToolStats[] = [];
  for (const [tool, list] of byTool) {
    const durations = list
      .map((record) => record.durationMs)
      .filter((ms): ms is number => ms !== undefined)
      .sort((a, b) => a - b);
    const errors = list.filter((record) => FAILED.has(record.outcome)).length;
    stats.push({
      tool,
      calls: list.length,
      errors,
      refused: list.filter((record) => REFUSED.has(record.outcome)).length,
      errorRate: errors / list.length,
      p50Ms: quantile(durations, 0.5),
      p95Ms: quantile(durations, 0.95),
      cacheHits: list.filter((record) => record.cacheHit).length,
    });
  }
  return stats.sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
}

/** The nearest-rank quantile of sorted values. */
function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
