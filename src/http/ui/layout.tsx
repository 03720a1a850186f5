import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import type { AnnotationSource } from '../../core/annotations/types.js';
import type { HintCell } from './data.js';
import { assetUrl } from './assets.js';
import { UI } from './paths.js';
import { CSRF_FIELD } from './session.js';

export { UI } from './paths.js';

/** Whether the signed-in principal may decide approvals and pins, or why not. */
export type ApproverState = { readonly ok: true } | { readonly ok: false; readonly why: string };

/** What waits for a person, as the navigation counts it (undefined: could not be read). */
export interface Waiting {
  readonly approvals: number | undefined;
  readonly pins: number | undefined;
}

/** What every page knows about the request. */
export interface PageContext {
  readonly path: string;
  /** The session's CSRF token, put in every form. */
  readonly csrf: string;
  readonly principal: string;
  /** Whether a login exists to sign out of. */
  readonly canSignOut: boolean;
  /** Whether an anonymous browser (auth off) may sign in with a token to act as its principal. */
  readonly canSignIn: boolean;
  /** Whether this principal holds the approver role (`access.approvers`). */
  readonly approver: ApproverState;
  readonly waiting: Waiting;
}

const NAV: readonly (readonly [string, string, keyof Waiting | undefined])[] = [
  ['', 'Catalog', undefined],
  ['/approvals', 'Approvals', 'approvals'],
  ['/pins', 'Pins', 'pins'],
  ['/audit', 'Audit', undefined],
  ['/stats', 'Stats', undefined],
  ['/toolsets', 'Toolsets', undefined],
];

/** A count of waiting things beside a navigation link; hidden at zero (the script fills it). */
const NavCount: FC<{ name: keyof Waiting; count: number | undefined }> = ({ name, count }) => (
  <span class="nav-count" data-count={name} hidden={count === undefined || count === 0}>
    {count === undefined || count === 0 ? '' : String(count)}
    <span class="sr"> waiting</span>
  </span>
);

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
      <link rel="stylesheet" href={assetUrl('dashboard.css')} />
      <link rel="icon" href={assetUrl('favicon.svg')} type="image/svg+xml" />
      <script src={assetUrl('dashboard.js')} defer></script>
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
          {NAV.map(([path, label, count]) => {
            const href = `${UI}${path}`;
            const current =
              path === ''
                ? page.path === UI || page.path.startsWith(`${UI}/tools/`)
                : page.path.startsWith(href);
            return (
              <a href={href} aria-current={current ? 'page' : undefined}>
                {label}
                {count === undefined ? null : <NavCount name={count} count={page.waiting[count]} />}
              </a>
            );
          })}
        </nav>
        <div class="who">
          <span class="principal">{page.principal}</span>
          {page.canSignOut ? (
            <form method="post" action={`${UI}/logout`} class="inline">
              <Csrf page={page} />
              <button type="submit" class="link">
                Sign out
              </button>
            </form>
          ) : page.canSignIn ? (
            <a class="link" href={`${UI}/login?next=${encodeURIComponent(page.path || UI)}`}>
              Sign in
            </a>
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

/** Says why this principal sees decisions read-only (nothing when it may decide). */
export const ReadOnlyNotice: FC<{ page: PageContext; what: string }> = ({ page, what }) =>
  page.approver.ok ? null : (
    <Notice kind="warn">
      You can look but not decide {what}: {page.approver.why}
    </Notice>
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
 * of the value is written on the badge; the reason of an inferred value is in its title.
 */
export const HintBadge: FC<{ cell: HintCell }> = ({ cell }) => {
  const said =
    cell.state === 'unknown'
      ? `${cell.field} unknown (MCP default ${String(cell.value)})`
      : `${cell.field} = ${cell.state}, ${SOURCE_LABEL[cell.source]}${cell.reason === undefined ? '' : `: ${cell.reason}`}`;
  // The mark (✓ ✗ ?) is drawn by the stylesheet from the state; screen readers hear the
  // state in words. Pages of hundreds of tools stay small: the reason is said once, in the
  // title, and on the tool's page.
  return (
    <span
      class={`hint is-${cell.state} src-${cell.source}${cell.conflict ? ' conflict' : ''}`}
      title={said + (cell.conflict ? ' (conflict)' : '')}
    >
      <span class="name">{hintLabel(cell.field)}</span>
      {cell.state === 'unknown' ? null : <span class="sr">{` ${cell.state},`}</span>}
      <span class="src">{cell.state === 'unknown' ? 'unknown' : SOURCE_LABEL[cell.source]}</span>
      {cell.conflict ? <span class="sr"> (conflict)</span> : null}
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
