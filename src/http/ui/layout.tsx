import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import type { AnnotationSource } from '../../core/annotations/types.js';
import type { HintCell } from './data.js';
import { CSRF_FIELD } from './session.js';

/** Where the dashboard lives. */
export const UI = '/ui';

/** What every page knows about the request. */
export interface PageContext {
  readonly path: string;
  /** The session's CSRF token, put in every form. */
  readonly csrf: string;
  readonly principal: string;
  /** Whether a login exists to sign out of. */
  readonly canSignOut: boolean;
}

const NAV: readonly (readonly [string, string])[] = [
  ['', 'Catalog'],
  ['/approvals', 'Approvals'],
  ['/audit', 'Audit'],
  ['/stats', 'Stats'],
  ['/toolsets', 'Toolsets'],
];

/** The page around every view: header, navigation, the main region. */
export const Layout: FC<PropsWithChildren<{ title: string; page: PageContext }>> = ({
  title,
  page,
  children,
}) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${title} · hintgate`}</title>
      <link rel="stylesheet" href={`${UI}/assets/dashboard.css`} />
      <link rel="icon" href={`${UI}/assets/favicon.svg`} type="image/svg+xml" />
      <script src={`${UI}/assets/dashboard.js`} defer></script>
    </head>
    <body>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={UI}>
          hint<b>gate</b>
        </a>
        <nav aria-label="Dashboard">
          {NAV.map(([path, label]) => {
            const href = `${UI}${path}`;
            const current =
              path === ''
                ? page.path === UI || page.path.startsWith(`${UI}/tools`)
                : page.path.startsWith(href);
            return (
              <a href={href} aria-current={current ? 'page' : undefined}>
                {label}
              </a>
            );
          })}
        </nav>
        <div class="who">
          {page.principal}
          {page.canSignOut ? (
            <form method="post" action={`${UI}/logout`} class="inline">
              <Csrf page={page} />
              <button type="submit" class="link">
                Sign out
              </button>
            </form>
          ) : null}
        </div>
      </header>
      <main id="main" tabindex={-1}>
        <h1>{title}</h1>
        {children}
      </main>
      <div id="live" class="toast" role="status" aria-live="polite"></div>
    </body>
  </html>
);

/** The CSRF token as a hidden form field. */
export const Csrf: FC<{ page: PageContext }> = ({ page }) => (
  <input type="hidden" name={CSRF_FIELD} value={page.csrf} />
);

/** A message box: an error, a warning, or a confirmation. */
export const Notice: FC<{ kind: 'error' | 'ok' | 'warn'; children?: Child }> = ({
  kind,
  children,
}) => (
  <p class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
    {children}
  </p>
);

/** What an empty list says, and what to do about it. */
export const Empty: FC<PropsWithChildren<{ title: string }>> = ({ title, children }) => (
  <div class="empty">
    <p>
      <strong>{title}</strong>
    </p>
    {children}
  </div>
);

const SHORT: Readonly<Record<string, string>> = {
  readOnlyHint: 'read-only',
  destructiveHint: 'destructive',
  idempotentHint: 'idempotent',
  openWorldHint: 'open-world',
};

/** How each source reads on a badge. */
export const SOURCE_LABEL: Readonly<Record<AnnotationSource, string>> = {
  declared: 'declared',
  inferred: 'inferred',
  'server-default': 'server default',
  override: 'override',
  dynamic: 'dynamic',
  'spec-default': 'MCP default',
};

/** A readable name of a hint field. */
export function hintLabel(field: string): string {
  return SHORT[field] ?? field;
}

/**
 * One hint: true, false and unknown look different (color, mark and word), and the source
 * of the value is written on the badge; the reason of an inferred value is in its title and
 * in the text read by screen readers.
 */
export const HintBadge: FC<{ cell: HintCell }> = ({ cell }) => {
  const mark = cell.state === 'true' ? '✓' : cell.state === 'false' ? '✗' : '?';
  const said =
    cell.state === 'unknown'
      ? `${cell.field} unknown (MCP default ${String(cell.value)})`
      : `${cell.field} = ${cell.state}, ${SOURCE_LABEL[cell.source]}${cell.reason === undefined ? '' : `: ${cell.reason}`}`;
  return (
    <span
      class={`hint is-${cell.state} src-${cell.source}${cell.conflict ? ' conflict' : ''}`}
      title={said + (cell.conflict ? ' (conflict)' : '')}
    >
      <span class="mark" aria-hidden="true">
        {mark}
      </span>
      <span class="name">{hintLabel(cell.field)}</span>
      <span class="src">{cell.state === 'unknown' ? 'unknown' : SOURCE_LABEL[cell.source]}</span>
      <span class="sr">{` (${said})`}</span>
    </span>
  );
};

/** Pager links that keep the other query parameters. */
export const Pager: FC<{
  page: number;
  pages: number;
  total: number;
  href: (page: number) => string;
  noun: string;
}> = ({ page, pages, total, href, noun }) => (
  <nav class="pager" aria-label="Pages">
    <span>
      {total.toLocaleString('en')} {noun}
      {pages > 1 ? ` · page ${page} of ${pages}` : ''}
    </span>
    {page > 1 ? <a href={href(page - 1)}>← Previous</a> : null}
    {page < pages ? (
      <a href={href(page + 1)} rel="next">
        Next →
      </a>
    ) : null}
  </nav>
);

/** A time as a short UTC string, with the ISO value for machines. */
export const Time: FC<{ iso: string }> = ({ iso }) => (
  <time datetime={iso} title={iso}>
    {iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')}
  </time>
);

/** A query string from the values given (empty ones left out). */
export function queryString(values: Readonly<Record<string, string | number | undefined>>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** A value as pretty JSON. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}
