import type { FC } from 'hono/jsx';
import type { AuditRecord } from '../../../store/types.js';
import type { ToolStats } from '../data.js';
import type { PageContext } from '../layout.js';
import { Empty, Layout, Notice, Pager, UI, queryString } from '../layout.js';
import { CallsTable } from './tool.js';

/** The audit page's filters, as typed (the same as `hintgate audit`'s options). */
export interface AuditFilters {
  readonly tool?: string | undefined;
  readonly server?: string | undefined;
  readonly session?: string | undefined;
  readonly decision?: string | undefined;
  readonly outcome?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

export const AUDIT_FILTERS = [
  'tool',
  'server',
  'session',
  'decision',
  'outcome',
  'since',
  'until',
] as const;

const PLACEHOLDER: Readonly<Record<(typeof AUDIT_FILTERS)[number], string>> = {
  tool: 'server.tool',
  server: 'server',
  session: 'session id',
  decision: 'allow, approved, denied…',
  outcome: 'ok, error, denied…',
  since: '10m, 2h, 7d or a date',
  until: '2026-01-31T12:00:00Z',
};

/** The audit log, newest first, paged. */
export const AuditPageView: FC<{
  page: PageContext;
  filters: AuditFilters;
  records: readonly AuditRecord[] | undefined;
  total: number;
  pageNumber: number;
  pages: number;
  capped: boolean;
  error?: string | undefined;
}> = ({ page, filters, records, total, pageNumber, pages, capped, error }) => (
  <Layout title="Audit" page={page}>
    <form method="get" action={`${UI}/audit`} class="filters" role="search">
      {AUDIT_FILTERS.map((name) => (
        <label>
          {name}
          <input name={name} value={filters[name] ?? ''} placeholder={PLACEHOLDER[name]} />
        </label>
      ))}
      <button type="submit">Filter</button>
      <a href={`${UI}/audit`} class="button secondary">
        Clear
      </a>
    </form>
    {error === undefined ? null : <Notice kind="error">{error}</Notice>}
    {records === undefined ? null : records.length === 0 ? (
      <Empty title="No calls recorded">
        <p>
          {Object.values(filters).some((value) => value !== undefined && value !== '')
            ? 'Nothing matches these filters.'
            : 'Calls made through the gateway are recorded here.'}
        </p>
      </Empty>
    ) : (
      <>
        <CallsTable records={records} showTool={true} />
        <Pager
          page={pageNumber}
          pages={pages}
          total={total}
          noun={capped ? 'records (the newest 10,000; narrow with since/until)' : 'records'}
          href={(n) => `${UI}/audit${queryString({ ...filters, page: n })}`}
        />
      </>
    )}
  </Layout>
);

/** The windows the stats page offers. */
export const STATS_WINDOWS = ['15m', '1h', '24h', '7d', '30d'] as const;

/** Calls, errors, latency and cache hits per tool over a window. */
export const StatsPageView: FC<{
  page: PageContext;
  window: string;
  stats: readonly ToolStats[];
  records: number;
  capped: boolean;
  gateway: unknown;
  error?: string | undefined;
}> = ({ page, window, stats, records, capped, gateway, error }) => (
  <Layout title="Stats" page={page}>
    {error === undefined ? null : <Notice kind="error">{error}</Notice>}
    <form method="get" action={`${UI}/stats`} class="filters">
      <label>
        Window
        <select name="window">
          {STATS_WINDOWS.map((value) => (
            <option value={value} selected={value === window}>
              last {value}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Show</button>
    </form>
    <p class="muted">
      {records.toLocaleString('en')} call(s) in the last {window}
      {capped ? ' (the newest 10,000 of them)' : ''}.
    </p>
    {stats.length === 0 ? (
      <Empty title="No calls in this window">
        <p>Choose a longer window, or make some calls.</p>
      </Empty>
    ) : (
      <table class="stats">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col" class="num">
              Calls
            </th>
            <th scope="col" class="num">
              Errors
            </th>
            <th scope="col" class="num">
              Error rate
            </th>
            <th scope="col" class="num">
              Refused
            </th>
            <th scope="col" class="num">
              p50 ms
            </th>
            <th scope="col" class="num">
              p95 ms
            </th>
            <th scope="col" class="num">
              Cache hits
            </th>
          </tr>
        </thead>
        <tbody>
          {stats.map((row) => (
            <tr>
              <th scope="row">
                <a href={`${UI}/audit${queryString({ tool: row.tool, since: window })}`}>
                  <code>{row.tool}</code>
                </a>
              </th>
              <td class="num">{row.calls}</td>
              <td class="num">{row.errors}</td>
              <td class={`num${row.errorRate > 0.1 ? ' bad' : ''}`}>
                {(row.errorRate * 100).toFixed(1)}%
              </td>
              <td class="num">{row.refused}</td>
              <td class="num">{row.p50Ms ?? '—'}</td>
              <td class="num">{row.p95Ms ?? '—'}</td>
              <td class="num">{row.cacheHits}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
    <details>
      <summary>Gateway counters (cache, audit, replicas)</summary>
      <pre>{JSON.stringify(gateway, null, 2)}</pre>
    </details>
  </Layout>
);
