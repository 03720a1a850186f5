import { readFileSync } from 'node:fs';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { parseAssignments } from '../../core/annotations/assignments.js';
import { HintgateError, errorMessage } from '../../core/errors.js';
import { REF_ID_LENGTH } from '../../core/refs/ref-id.js';
import { parseWhen } from '../../core/util/when.js';
import { describeMember } from '../../gateway/toolsets/resolve.js';
import type { AuditQuery, ToolRef, ToolsetMember } from '../../store/types.js';
import type { RouteMounter } from '../app.js';
import { streamStoreEvents } from '../store-events.js';
import type { DashboardGateway } from './data.js';
import {
  ANNOTATION_FIELDS,
  catalogFilterFrom,
  findTool,
  globalView,
  queryCatalog,
  serverSummaries,
  toolStats,
} from './data.js';
import type { PageContext } from './layout.js';
import { UI } from './layout.js';
import { ApprovalQueue, ApprovalsPageView } from './pages/approvals.js';
import type { AuditFilters } from './pages/audit.js';
import { AUDIT_FILTERS, AuditPageView, STATS_WINDOWS, StatsPageView } from './pages/audit.js';
import { CatalogPageView } from './pages/catalog.js';
import { LoginPageView } from './pages/login.js';
import type { FailedForm } from './pages/tool.js';
import { ToolPageView, refersTo } from './pages/tool.js';
import type { ToolsetFormError } from './pages/toolsets.js';
import { ToolsetPageView, ToolsetsPageView } from './pages/toolsets.js';
import type { DashboardSession, DashboardSessions } from './session.js';
import { CSRF_FIELD } from './session.js';

type Env = { Variables: { session: DashboardSession } };

/** What the dashboard is built from. */
export interface DashboardOptions {
  readonly gateway: DashboardGateway;
  readonly sessions: DashboardSessions;
}

const ASSETS: Readonly<Record<string, string>> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
/** The assets, read once from `src/web` (or `dist/web` once built). */
const assetCache = new Map<string, string>();

function asset(name: string): string {
  let text = assetCache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`../../web/${name}`, import.meta.url), 'utf8');
    assetCache.set(name, text);
  }
  return text;
}

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

const DONE: Readonly<Record<string, string>> = {
  override: 'Override saved. Clients see it in their next tools/list.',
  'override-cleared': 'Override removed.',
  'note-added': 'Note added. Clients of that toolset see it in their next tools/list.',
  'note-saved': 'Note saved.',
  'note-removed': 'Note deleted.',
  created: 'Toolset created.',
  saved: 'Toolset saved.',
  default: 'Default toolset changed.',
  deleted: 'Toolset deleted.',
  approved: 'Approved: the call goes on.',
  denied: 'Denied: the call is refused.',
};

const REF_ID = new RegExp(`^[0-9a-f]{${REF_ID_LENGTH}}$`);
const AUDIT_PAGE = 50;
const AUDIT_MAX = 10_000;

/**
 * The dashboard at `/ui` (`/` points to it): pages rendered on the server with hono's JSX,
 * a few lines of script for the live approval queue, every asset served from here. Pages
 * need a session (a login with the front's token, or none when auth is off); every
 * state-changing request must come from this origin with the session's CSRF token.
 */
export function dashboardRoutes(options: DashboardOptions): RouteMounter {
  return (app: Hono) => {
    app.get('/', (c) => c.redirect(UI, 302));
    app.route(UI, dashboardApp(options));
  };
}

function dashboardApp({ gateway, sessions }: DashboardOptions): Hono<Env> {
  const ui = new Hono<Env>();
  const { store, toolsets } = gateway;

  ui.use('*', async (c, next) => {
    const refused = sessions.checkHost(c.req.raw);
    if (refused !== undefined) return refused;
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
    if (c.res.headers.get('content-type')?.startsWith('text/html') === true)
      c.header('Cache-Control', 'no-store');
    return undefined;
  });
  ui.use('*', bodyLimit({ maxSize: 256 * 1024, onError: (c) => c.text('request too large', 413) }));

  ui.get('/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (type === undefined) return c.text('not found', 404);
    return c.body(asset(file), 200, {
      'Content-Type': type,
      'Cache-Control': 'no-cache',
    });
  });

  ui.get('/login', (c) => {
    if (!sessions.loginRequired) return c.redirect(UI, 303);
    return page(c, <LoginPageView next={safeNext(c.req.query('next'))} />);
  });
  ui.post('/login', async (c) => {
    const problem = sessions.refuseUnsafe(c.req.raw, undefined, undefined);
    // Login has no session yet: only the origin is checked (a login CSRF needs a foreign page).
    if (problem !== undefined && problem !== 'not signed in') return c.text(problem, 403);
    const form = await c.req.parseBody();
    const next = safeNext(str(form['next']));
    const session = sessions.login(str(form['token']) ?? '');
    if (session === undefined) {
      return page(
        c,
        <LoginPageView next={next} error="That token is not the gateway's token." />,
        401,
      );
    }
    c.header('Set-Cookie', sessions.cookie(session, c.req.raw));
    return c.redirect(next, 303);
  });

  // Everything below needs a session.
  ui.use('*', async (c, next) => {
    let session = sessions.sessionOf(c.req.raw);
    if (session === undefined && !sessions.loginRequired && c.req.method === 'GET') {
      session = sessions.anonymous();
      c.header('Set-Cookie', sessions.cookie(session, c.req.raw));
    }
    if (session === undefined) {
      if (c.req.method === 'GET' && c.req.header('accept')?.includes('text/html') !== false) {
        return c.redirect(`${UI}/login?next=${encodeURIComponent(c.req.path)}`, 303);
      }
      return c.json({ error: { code: 'UNAUTHORIZED', message: 'sign in first' } }, 401);
    }
    let formToken: string | undefined;
    if (c.req.method === 'POST' && isForm(c.req.header('content-type'))) {
      formToken = str((await c.req.parseBody())[CSRF_FIELD]);
    }
    const problem = sessions.refuseUnsafe(c.req.raw, session, formToken);
    if (problem !== undefined) {
      return c.json({ error: { code: 'FORBIDDEN', message: problem } }, 403);
    }
    c.set('session', session);
    await next();
    return undefined;
  });

  ui.post('/logout', (c) => {
    sessions.close(c.get('session'));
    c.header('Set-Cookie', sessions.clearCookie(c.req.raw));
    return c.redirect(sessions.loginRequired ? `${UI}/login` : UI, 303);
  });

  // Catalog.
  ui.get('/', (c) => {
    const filter = catalogFilterFrom((name) => c.req.query(name));
    let result;
    let error: string | undefined;
    try {
      result = queryCatalog(globalView(gateway).entries, filter);
    } catch (caught) {
      error = errorMessage(caught);
    }
    return page(
      c,
      <CatalogPageView
        page={ctx(c)}
        view={{ servers: serverSummaries(gateway), filter, result, error }}
      />,
      error === undefined ? 200 : 400,
    );
  });

  // One tool.
  const toolPage = async (
    c: Context<Env>,
    ref: string,
    selected: string | undefined,
    extra: { failed?: FailedForm; done?: string | undefined } = {},
  ): Promise<Response> => {
    const global = findTool(gateway, ref);
    if (global === undefined)
      return notFound(c, `No tool "${ref}" in the catalog (its server may be down).`);
    const summaries = await store.listToolsets();
    const all = (
      await Promise.all(summaries.map((summary) => store.getToolset(summary.name)))
    ).filter((toolset) => toolset !== undefined);
    const chosen = all.some((toolset) => toolset.name === selected) ? selected : undefined;
    const entry =
      chosen === undefined
        ? global
        : ((await toolsets.viewOf(chosen)).viewOf(
            gateway.catalog.getByRefId(global.refId) ?? global,
          ) ?? global);
    const calls = await store.queryAudit({ tool: global.namespacedName, limit: 20 });
    return page(
      c,
      <ToolPageView
        page={ctx(c)}
        data={{
          entry,
          toolsets: all,
          selected: chosen,
          globalOverride: toolsets
            .globalOverrides()
            .find((override) => refersTo(override.tool, global)),
          calls,
          failed: extra.failed,
          done: extra.done,
        }}
      />,
      extra.failed === undefined ? 200 : 400,
    );
  };

  ui.get('/tools/:ref', (c) =>
    toolPage(c, c.req.param('ref'), c.req.query('toolset'), {
      done: DONE[c.req.query('done') ?? ''],
    }),
  );

  ui.post('/tools/:ref/overrides', async (c) => {
    const ref = c.req.param('ref');
    const entry = findTool(gateway, ref);
    if (entry === undefined) return notFound(c, `No tool "${ref}" in the catalog.`);
    const form = textFields(await c.req.parseBody());
    const scope = form['scope'] === '' || form['scope'] === undefined ? undefined : form['scope'];
    const id = `override:${scope ?? 'global'}`;
    try {
      const current =
        scope === undefined
          ? toolsets.globalOverrides().find((override) => refersTo(override.tool, entry))
          : (await store.getToolset(scope))?.overrides.find((override) =>
              refersTo(override.tool, entry),
            );
      const tool: ToolRef = current?.tool ?? { namespacedName: entry.namespacedName };
      const assignments = ANNOTATION_FIELDS.filter(
        (field) => (form[field] ?? '').trim() !== '',
      ).map((field) => `${field}=${(form[field] ?? '').trim()}`);
      const cleared = Object.keys(current?.annotations ?? {}).filter(
        (field) => (form[field] ?? '').trim() === '',
      );
      // Read and checked in full before anything is written.
      const annotations = assignments.length === 0 ? undefined : parseAssignments(assignments);
      const where = scope === undefined ? {} : { toolset: scope };
      if (annotations !== undefined) await store.setOverride(tool, annotations, where);
      if (cleared.length > 0) await store.unsetOverride(tool, { ...where, fields: cleared });
      await (scope === undefined ? toolsets.refreshGlobals() : toolsets.refresh(scope));
      const done = annotations === undefined ? 'override-cleared' : 'override';
      return c.redirect(
        `${UI}/tools/${entry.refId}?done=${done}${scope === undefined ? '' : `&toolset=${encodeURIComponent(scope)}`}`,
        303,
      );
    } catch (caught) {
      return toolPage(c, ref, scope, { failed: { id, values: form, error: errorMessage(caught) } });
    }
  });

  ui.post('/tools/:ref/notes/:action', async (c) => {
    const ref = c.req.param('ref');
    const action = c.req.param('action');
    const entry = findTool(gateway, ref);
    if (entry === undefined) return notFound(c, `No tool "${ref}" in the catalog.`);
    const form = textFields(await c.req.parseBody());
    const toolset = form['toolset'] ?? '';
    const name = form['name'] ?? '';
    const id = action === 'add' ? 'note-add' : `note:${toolset}:${name}`;
    try {
      const stored = (await store.getToolset(toolset))?.notes.find(
        (note) => note.name === name && refersTo(note.tool, entry),
      );
      const tool: ToolRef = stored?.tool ?? { namespacedName: entry.namespacedName };
      let done: string;
      switch (action) {
        case 'add': {
          const result = await store.addNotes(toolset, tool, [{ name, note: form['note'] ?? '' }]);
          const skipped = result.skipped[0];
          if (skipped !== undefined) throw new HintgateError('CONFLICT', skipped.warning);
          done = 'note-added';
          break;
        }
        case 'edit':
          await store.editNote(toolset, tool, name, form['note'] ?? '');
          done = 'note-saved';
          break;
        case 'remove':
          await store.removeNote(toolset, tool, name);
          done = 'note-removed';
          break;
        default:
          return notFound(c, `No note action "${action}".`);
      }
      await toolsets.refresh(toolset);
      return c.redirect(
        `${UI}/tools/${entry.refId}?done=${done}&toolset=${encodeURIComponent(toolset)}`,
        303,
      );
    } catch (caught) {
      return toolPage(c, ref, toolset, {
        failed: { id, values: form, error: errorMessage(caught) },
      });
    }
  });

  // Approvals.
  const pendingApprovals = () => store.listApprovals({ status: 'pending', limit: 200 });
  ui.get('/approvals', async (c) => {
    const [pending, recent] = await Promise.all([
      pendingApprovals(),
      store.listApprovals({ limit: 50 }),
    ]);
    const done = DONE[c.req.query('done') ?? ''];
    return page(
      c,
      <ApprovalsPageView
        page={ctx(c)}
        pending={pending}
        decided={recent.filter((approval) => approval.status !== 'pending').slice(0, 20)}
        message={done === undefined ? undefined : { kind: 'ok', text: done }}
      />,
    );
  });
  ui.get('/approvals/queue', async (c) => {
    const pending = await pendingApprovals();
    c.header('X-Pending-Count', String(pending.length));
    return c.html(markup(<ApprovalQueue page={ctx(c)} pending={pending} />));
  });
  ui.post('/approvals/:id', async (c) => {
    const form = textFields(await c.req.parseBody());
    const decision = form['decision'];
    const wantsJson = c.req.header('accept')?.includes('application/json') === true;
    if (decision !== 'approve' && decision !== 'deny') {
      return c.json(
        { error: { code: 'INPUT_INVALID', message: 'decision: expected approve or deny' } },
        400,
      );
    }
    const note = (form['note'] ?? '').trim();
    try {
      const approval = await store.decideApproval(c.req.param('id'), {
        status: decision === 'approve' ? 'approved' : 'denied',
        by: `dashboard:${c.get('session').principal}`,
        ...(note === '' ? {} : { note }),
      });
      if (wantsJson) return c.json(approval);
      return c.redirect(`${UI}/approvals?done=${approval.status}`, 303);
    } catch (caught) {
      const status = caught instanceof HintgateError && caught.code === 'NOT_FOUND' ? 404 : 409;
      if (wantsJson)
        return c.json(
          {
            error: {
              code: caught instanceof HintgateError ? caught.code : 'INTERNAL',
              message: errorMessage(caught),
            },
          },
          status,
        );
      const [pending, recent] = await Promise.all([
        pendingApprovals(),
        store.listApprovals({ limit: 50 }),
      ]);
      return page(
        c,
        <ApprovalsPageView
          page={ctx(c)}
          pending={pending}
          decided={recent.filter((approval) => approval.status !== 'pending').slice(0, 20)}
          message={{ kind: 'error', text: errorMessage(caught) }}
        />,
        status,
      );
    }
  });
  ui.get('/events', (c) =>
    streamStoreEvents(c, store, {
      name: 'approval',
      accept: (event) => event.kind === 'approval' || event.kind === 'resync',
    }),
  );

  // Audit.
  ui.get('/audit', async (c) => {
    const filters: AuditFilters = Object.fromEntries(
      AUDIT_FILTERS.map((name) => [name, c.req.query(name)?.trim() || undefined]),
    );
    const pageNumber = Math.max(1, Math.trunc(Number(c.req.query('page') ?? 1)) || 1);
    const view = { filters, pageNumber, records: undefined, total: 0, pages: 1, capped: false };
    let query: AuditQuery;
    try {
      query = {
        ...(filters.tool === undefined ? {} : { tool: filters.tool }),
        ...(filters.server === undefined ? {} : { server: filters.server }),
        ...(filters.session === undefined ? {} : { sessionId: filters.session }),
        ...(filters.decision === undefined ? {} : { decision: filters.decision }),
        ...(filters.outcome === undefined ? {} : { outcome: filters.outcome }),
        ...(filters.since === undefined ? {} : { since: parseWhen(filters.since, 'since') }),
        ...(filters.until === undefined ? {} : { until: parseWhen(filters.until, 'until') }),
      };
    } catch (caught) {
      return page(c, <AuditPageView page={ctx(c)} {...view} error={errorMessage(caught)} />, 400);
    }
    // Newest first; a page is a slice of the newest (page × 50 + 1) records, so a page never
    // skips or repeats a record that shares its time with another.
    const wanted = Math.min(AUDIT_MAX, pageNumber * AUDIT_PAGE + 1);
    const found = await store.queryAudit({ ...query, limit: wanted });
    const capped = found.length >= AUDIT_MAX;
    const total =
      found.length > pageNumber * AUDIT_PAGE ? pageNumber * AUDIT_PAGE + 1 : found.length;
    const pages = Math.max(1, Math.ceil(total / AUDIT_PAGE));
    const shown = Math.min(pageNumber, pages);
    return page(
      c,
      <AuditPageView
        page={ctx(c)}
        filters={filters}
        records={found.slice((shown - 1) * AUDIT_PAGE, shown * AUDIT_PAGE)}
        total={found.length}
        pageNumber={shown}
        pages={found.length > pageNumber * AUDIT_PAGE ? shown + 1 : pages}
        capped={capped}
      />,
    );
  });

  // Stats.
  ui.get('/stats', async (c) => {
    const window = (STATS_WINDOWS as readonly string[]).includes(c.req.query('window') ?? '')
      ? (c.req.query('window') as string)
      : '24h';
    const records = await store.queryAudit({
      since: parseWhen(window, 'window'),
      limit: AUDIT_MAX,
    });
    return page(
      c,
      <StatsPageView
        page={ctx(c)}
        window={window}
        stats={toolStats(records)}
        records={records.length}
        capped={records.length >= AUDIT_MAX}
        gateway={gateway.calls.stats()}
      />,
    );
  });

  // Toolsets.
  const toolsetsPage = async (c: Context<Env>, failed?: ToolsetFormError) =>
    page(
      c,
      <ToolsetsPageView
        page={ctx(c)}
        toolsets={await store.listToolsets()}
        defaultToolset={toolsets.defaultToolset}
        failed={failed}
        done={DONE[c.req.query('done') ?? '']}
      />,
      failed === undefined ? 200 : 400,
    );
  ui.get('/toolsets', (c) => toolsetsPage(c));
  ui.post('/toolsets', async (c) => {
    const form = textFields(await c.req.parseBody());
    try {
      const toolset = await store.createToolset({
        name: (form['name'] ?? '').trim(),
        description: form['description'] ?? '',
        members: parseMembers(form['members'] ?? ''),
      });
      return c.redirect(`${UI}/toolsets/${encodeURIComponent(toolset.name)}?done=created`, 303);
    } catch (caught) {
      return toolsetsPage(c, { values: form, error: errorMessage(caught) });
    }
  });
  const toolsetPage = async (c: Context<Env>, name: string, failed?: ToolsetFormError) => {
    const toolset = await store.getToolset(name);
    if (toolset === undefined) return notFound(c, `No toolset "${name}".`);
    const view = await toolsets.viewOf(name).catch(() => undefined);
    const orphans =
      view === undefined ? [] : view.orphans.members.map((orphan) => describeMember(orphan.member));
    return page(
      c,
      <ToolsetPageView
        page={ctx(c)}
        toolset={toolset}
        isDefault={toolsets.defaultToolset === name}
        orphans={orphans}
        failed={failed}
        done={DONE[c.req.query('done') ?? '']}
      />,
      failed === undefined ? 200 : 400,
    );
  };
  ui.get('/toolsets/:name', (c) => toolsetPage(c, c.req.param('name')));
  ui.post('/toolsets/:name', async (c) => {
    const name = c.req.param('name');
    const form = textFields(await c.req.parseBody());
    try {
      await store.updateToolset(name, {
        description: form['description'] ?? '',
        members: parseMembers(form['members'] ?? ''),
      });
      await toolsets.refresh(name);
      return c.redirect(`${UI}/toolsets/${encodeURIComponent(name)}?done=saved`, 303);
    } catch (caught) {
      return toolsetPage(c, name, { values: form, error: errorMessage(caught) });
    }
  });
  ui.post('/toolsets/:name/default', async (c) => {
    const name = c.req.param('name');
    const form = textFields(await c.req.parseBody());
    try {
      await toolsets.setDefault(form['action'] === 'clear' ? undefined : name);
      return c.redirect(`${UI}/toolsets/${encodeURIComponent(name)}?done=default`, 303);
    } catch (caught) {
      return toolsetPage(c, name, { values: {}, error: errorMessage(caught) });
    }
  });
  ui.post('/toolsets/:name/delete', async (c) => {
    const name = c.req.param('name');
    try {
      if (toolsets.defaultToolset === name) await toolsets.setDefault(undefined);
      await store.deleteToolset(name);
      return c.redirect(`${UI}/toolsets?done=deleted`, 303);
    } catch (caught) {
      return toolsetPage(c, name, { values: {}, error: errorMessage(caught) });
    }
  });

  ui.notFound((c) => notFound(c, `No page at ${c.req.path}.`));
  return ui;
}

/** The page context of a request that has a session. */
function ctx(c: Context<Env>): PageContext {
  const session = c.get('session');
  return {
    path: c.req.path.replace(/\/$/, ''),
    csrf: session.csrf,
    principal: session.principal,
    canSignOut: session.principal !== 'anonymous',
  };
}

function page(
  c: Context,
  node: JSX.Element,
  status: 200 | 400 | 401 | 403 | 404 | 409 = 200,
): Response {
  return c.html(`<!doctype html>${markup(node)}`, status);
}

function notFound(c: Context<Env>, message: string): Response {
  const session = c.get('session') as DashboardSession | undefined;
  if (session === undefined) return c.text(message, 404);
  return page(
    c,
    <div>
      <p>{message}</p>
    </div>,
    404,
  );
}

/** A JSX tree as HTML (every component here renders synchronously). */
function markup(node: JSX.Element): string {
  return (node as unknown as { toString(): string }).toString();
}

/** A `next` target that stays inside the dashboard. */
function safeNext(value: string | undefined): string {
  return value !== undefined && value.startsWith(`${UI}`) && !value.startsWith('//') ? value : UI;
}

function isForm(type: string | undefined): boolean {
  return (
    type?.startsWith('application/x-www-form-urlencoded') === true ||
    type?.startsWith('multipart/form-data') === true
  );
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A parsed form's text fields (files ignored). */
function textFields(body: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key !== CSRF_FIELD && typeof value === 'string') fields[key] = value;
  }
  return fields;
}

/**
 * Members from text, one per line: a refId (16 hex characters), `server.tool`, or a server
 * name (all its tools). Blank lines are skipped; the store checks the rest.
 */
export function parseMembers(text: string): ToolsetMember[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line): ToolsetMember => {
      if (REF_ID.test(line)) return { kind: 'ref', refId: line };
      if (line.includes('.')) return { kind: 'tool', namespacedName: line };
      return { kind: 'server', server: line };
    });
}
