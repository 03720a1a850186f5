import type { FC } from 'hono/jsx';
import { ANNOTATION_SOURCES, HINT_FIELDS } from '../../../core/annotations/types.js';
import type { CatalogFilter, CatalogPage, ServerSummary } from '../data.js';
import { PAGE_SIZES, hintCells } from '../data.js';
import type { PageContext } from '../layout.js';
import {
  Empty,
  HintBadge,
  Layout,
  Notice,
  Pager,
  SOURCE_LABEL,
  Time,
  UI,
  hintLabel,
  queryString,
} from '../layout.js';

/** What the catalog page shows. */
export interface CatalogView {
  readonly servers: readonly ServerSummary[];
  readonly filter: CatalogFilter;
  readonly result: CatalogPage | undefined;
  /** A filter that could not be read. */
  readonly error?: string | undefined;
}

const Servers: FC<{ servers: readonly ServerSummary[] }> = ({ servers }) =>
  servers.length === 0 ? (
    <Empty title="No servers configured">
      <p>
        Add servers under <code>mcpServers</code> in the config file and restart the gateway.
      </p>
    </Empty>
  ) : (
    <table class="servers">
      <caption class="sr">Servers</caption>
      <thead>
        <tr>
          <th scope="col">Server</th>
          <th scope="col">State</th>
          <th scope="col">Protocol</th>
          <th scope="col" class="num">
            Tools
          </th>
        </tr>
      </thead>
      <tbody>
        {servers.map((server) => (
          <tr>
            <th scope="row">
              <a href={`${UI}${queryString({ server: server.name })}`}>{server.name}</a>
            </th>
            <td>
              <span class={`state state-${server.state}`}>{server.state}</span>
              {server.reason === undefined ? null : <span class="why"> {server.reason}</span>}
              {server.retryAt === undefined ? null : (
                <span class="muted">
                  {' '}
                  · retrying at <Time iso={server.retryAt} />
                </span>
              )}
            </td>
            <td>
              {server.era === undefined ? (
                <span class="muted">—</span>
              ) : (
                <span>
                  {server.protocolVersion} <span class="muted">({server.era})</span>
                </span>
              )}
            </td>
            <td class="num">{server.tools}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );

const Filters: FC<{ view: CatalogView }> = ({ view }) => {
  const { filter } = view;
  return (
    <form method="get" action={UI} class="filters" role="search">
      <label>
        Search
        <input
          type="search"
          name="q"
          value={filter.q ?? ''}
          placeholder="name, description, refId"
          autofocus
        />
      </label>
      <label>
        Server
        <select name="server">
          <option value="">all</option>
          {view.servers.map((server) => (
            <option value={server.name} selected={filter.server === server.name}>
              {server.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Hint
        <select name="hint">
          <option value="">any</option>
          {HINT_FIELDS.flatMap((field) =>
            (['true', 'false', 'unknown'] as const).map((state) => (
              <option value={`${field}:${state}`} selected={filter.hint === `${field}:${state}`}>
                {`${hintLabel(field)}: ${state}`}
              </option>
            )),
          )}
        </select>
      </label>
      <label>
        Source
        <select name="source">
          <option value="">any</option>
          {ANNOTATION_SOURCES.map((source) => (
            <option value={source} selected={filter.source === source}>
              {SOURCE_LABEL[source]}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input type="checkbox" name="conflict" value="1" checked={filter.conflict === true} />
        Conflicts only
      </label>
      <label>
        Per page
        <select name="size">
          {PAGE_SIZES.map((size) => (
            <option value={String(size)} selected={view.result?.size === size}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Filter</button>
      <a href={UI} class="button secondary">
        Clear
      </a>
    </form>
  );
};

/** The catalog: servers with their state, then the tools with their hints and sources. */
export const CatalogPageView: FC<{ page: PageContext; view: CatalogView }> = ({ page, view }) => {
  const { result, filter } = view;
  const link = (n: number) =>
    `${UI}${queryString({
      q: filter.q,
      server: filter.server,
      hint: filter.hint,
      source: filter.source,
      conflict: filter.conflict === true ? '1' : undefined,
      size: result?.size,
      page: n,
    })}`;
  return (
    <Layout title="Catalog" page={page}>
      <section aria-labelledby="servers-heading">
        <h2 id="servers-heading">Servers</h2>
        <Servers servers={view.servers} />
      </section>
      <section aria-labelledby="tools-heading">
        <h2 id="tools-heading">Tools</h2>
        <Filters view={view} />
        <p class="legend" aria-label="Legend">
          <span class="hint is-true">
            <span class="mark">✓</span> true
          </span>
          <span class="hint is-false">
            <span class="mark">✗</span> false
          </span>
          <span class="hint is-unknown">
            <span class="mark">?</span> unknown (nobody said; MCP's default applies)
          </span>
          <span class="hint conflict">conflict</span>
          <span class="muted">The word under each hint says where the value came from.</span>
        </p>
        {view.error === undefined ? null : <Notice kind="error">{view.error}</Notice>}
        {result === undefined ? null : result.total === 0 ? (
          <Empty title="No tools match">
            <p>
              {view.servers.some((server) => server.state === 'up')
                ? 'Change the search or the filters, or clear them.'
                : 'No server is up yet: the tools appear when a server is up.'}
            </p>
          </Empty>
        ) : (
          <>
            <table class="tools">
              <caption class="sr">Tools</caption>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Hints</th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody>
                {result.tools.map((entry) => {
                  const conflicts = entry.effective.conflicts;
                  return (
                    <tr class={conflicts.length > 0 ? 'has-conflict' : undefined}>
                      <th scope="row">
                        <a href={`${UI}/tools/${entry.refId}`}>{entry.flattenedName}</a>
                        <div class="muted small">{entry.namespacedName}</div>
                        {conflicts.length > 0 ? (
                          <div class="conflict-note">
                            {conflicts.map((conflict) => (
                              <div>⚠ {conflict.reason}</div>
                            ))}
                          </div>
                        ) : null}
                      </th>
                      <td class="hints">
                        {hintCells(entry).map((cell) => (
                          <HintBadge cell={cell} />
                        ))}
                      </td>
                      <td class="desc">{firstLine(entry.description)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            <Pager
              page={result.page}
              pages={result.pages}
              total={result.total}
              href={link}
              noun="tools"
            />
          </>
        )}
      </section>
    </Layout>
  );
};

function firstLine(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return '—';
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 180 ? `${line.slice(0, 177)}…` : line;
}
