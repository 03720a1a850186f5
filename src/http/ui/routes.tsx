import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { parseAssignments } from '../../core/annotations/assignments.js';
import { HintgateError, errorMessage } from '../../core/errors.js';
import { REF_ID_LENGTH } from '../../core/refs/ref-id.js';
import { parseWhen } from '../../core/util/when.js';
import { ANONYMOUS } from '../../gateway/access.js';
import { describeMember } from '../../gateway/toolsets/resolve.js';
import type { AuditQuery, ToolRef, ToolsetMember } from '../../store/types.js';
import { checkMember } from '../../store/validate.js';
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
import type { ApproverState, PageContext } from './layout.js';
import { Layout, Notice, UI } from './layout.js';
import { ApprovalQueue, ApprovalsPageView } from './pages/approvals.js';
import type { AuditFilters } from './pages/audit.js';
import { AUDIT_FILTERS, AuditPageView, STATS_WINDOWS, StatsPageView } from './pages/audit.js';
import { CatalogPageView } from './pages/catalog.js';
import { LoginPageView } from './pages/login.js';
import type { FailedForm } from './pages/tool.js';
import { ToolPageView, refersTo } from './pages/tool.js';
import type { DefaultOrigin, ToolsetFormError } from './pages/toolsets.js';
import { ToolsetPageView, ToolsetsPageView } from './pages/toolsets.js';
import { ASSET_TYPES, asset } from './assets.js';
import { pinRoutes } from './pin-routes.js';
import { WaitingCounts } from './waiting.js';
import type { DashboardEnv as Env } from './render.js';
import {
  isForm,
  jsonError,
  markup,
  page,
  safeNext,
  statusOf,
  str,
  textFields,
  wantsJson,
} from './render.js';
import type { DashboardSession, DashboardSessions } from './session.js';
import { CSRF_FIELD } from './session.js';

/** What the dashboard is built from. */
export interface DashboardOptions {
  readonly gateway: DashboardGateway;
  readonly sessions: DashboardSessions;
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

  /** Whether a session's principal may decide approvals and pins, or why not. */
  const approverOf = (session: DashboardSession): ApproverState => {
    if (session.principal === ANONYMOUS) {
      return {
        ok: false,
        why: sessions.canSignIn
          ? 'nobody is signed in. Sign in with a token whose principal has the approver role (access.approvers in config).'
          : 'nobody is signed in and the gateway has no token to sign in with (auth is off). Decide with the CLI (`hintgate approvals`, `hintgate pins`), or give the approver a named token (http.tokens) or the dashboard a token (http.uiToken) and name it in access.approvers.',
      };
    }
    const principal = gateway.access.principals.lookup(session.principal);
    return gateway.access.isApprover(principal)
      ? { ok: true }
      : {
          ok: false,
          why: `${session.principal} does not have the approver role (access.approvers in config).`,
        };
  };

  /** What waits for a person, for the navigation's counts. */
  const waiting = new WaitingCounts(store);

  /** The page context of a request that has a session. */
  const ctx = async (c: Context<Env>): Promise<PageContext> => {
    const session = c.get('session');
    return {
      path: c.req.path.replace(/\/$/, ''),
      csrf: session.csrf,
      principal: session.principal,
      canSignOut: session.principal !== ANONYMOUS,
      canSignIn: sessions.canSignIn,
      approver: approverOf(session),
      waiting: await waiting.get(),
    };
  };

  /** A page saying what was not found, with the navigation to go on. */
  const notFound = async (c: Context<Env>, message: string): Promise<Response> => {
    const session = c.get('session') as DashboardSession | undefined;
    if (session === undefined) return c.text(message, 404);
    return page(
      c,
      <Layout title="Not found" page={await ctx(c)}>
        <Notice kind="error">{message}</Notice>
        <p>
          <a href={UI}>Back to the catalog</a>
        </p>
      </Layout>,
      404,
    );
  };

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
    const found = asset(file);
    if (found === undefined) return c.text('not found', 404);
    // The URL of this very content is kept for good; any other is checked again each time.
    const current = c.req.query('v') === found.version;
    return c.body(found.text, 200, {
      'Content-Type': ASSET_TYPES[file] ?? 'application/octet-stream',
      'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  });

  ui.get('/login', (c) => {
    if (!sessions.canSignIn) return c.redirect(UI, 303);
    return page(
      c,
      <LoginPageView next={safeNext(c.req.query('next'))} optional={!sessions.loginRequired} />,
    );
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
        <LoginPageView
          next={next}
          optional={!sessions.loginRequired}
          error="That token is not one of the gateway's tokens."
        />,
        401,
      );
    }
    // The session it replaces (an anonymous one, or another principal's) ends here.
    const previous = sessions.sessionOf(c.req.raw);
    if (previous !== undefined) sessions.close(previous);
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
        const wanted = c.req.path + new URL(c.req.url).search;
        return c.redirect(`${UI}/login?next=${encodeURIComponent(wanted)}`, 303);
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
  ui.get('/', async (c) => {
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
        page={await ctx(c)}
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
        page={await ctx(c)}
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
        page={await ctx(c)}
        pending={pending}
        decided={recent.filter((approval) => approval.status !== 'pending').slice(0, 20)}
        message={done === undefined ? undefined : { kind: 'ok', text: done }}
      />,
    );
  });
  ui.get('/approvals/queue', async (c) => {
    const pending = await pendingApprovals();
    c.header('X-Pending-Count', String(pending.length));
    return c.html(markup(<ApprovalQueue page={await ctx(c)} pending={pending} />));
  });
  ui.post('/approvals/:id', async (c) => {
    const form = textFields(await c.req.parseBody());
    const decision = form['decision'];
    const json = wantsJson(c);
    const note = (form['note'] ?? '').trim();
    const session = c.get('session');
    const approver = approverOf(session);
    try {
      // A person with the approver role decides, never the principal that made the call.
      if (!approver.ok) throw new HintgateError('FORBIDDEN', `Not decided: ${approver.why}`);
      if (decision !== 'approve' && decision !== 'deny')
        throw new HintgateError(
          'INPUT_INVALID',
          `decision: expected approve or deny, got "${(decision ?? '').slice(0, 40)}"`,
        );
      if (note.length > 500)
        throw new HintgateError(
          'INPUT_INVALID',
          `note: at most 500 characters (this one has ${note.length})`,
        );
      const asked = await store.getApproval(c.req.param('id'));
      if (asked?.requestedBy !== undefined && asked.requestedBy === session.principal)
        throw new HintgateError(
          'FORBIDDEN',
          `Not decided: ${session.principal} made this call and may not decide its approval; another approver must.`,
        );
      const approval = await store.decideApproval(c.req.param('id'), {
        status: decision === 'approve' ? 'approved' : 'denied',
        by: `dashboard:${session.principal}`,
        ...(note === '' ? {} : { note }),
      });
      if (json)
        return c.json({
          ...approval,
          message: `${approval.status === 'approved' ? 'Approved' : 'Denied'}: ${approval.tool}`,
        });
      return c.redirect(`${UI}/approvals?done=${approval.status}`, 303);
    } catch (caught) {
      const status = statusOf(caught);
      if (json) return jsonError(c, caught, status);
      const [pending, recent] = await Promise.all([
        pendingApprovals(),
        store.listApprovals({ limit: 50 }),
      ]);
      return page(
        c,
        <ApprovalsPageView
          page={await ctx(c)}
          pending={pending}
          decided={recent.filter((approval) => approval.status !== 'pending').slice(0, 20)}
          message={{ kind: 'error', text: errorMessage(caught) }}
        />,
        status,
      );
    }
  });
  // One stream for the live parts of every page: `approval` events (the queue), `pins`
  // events (decisions and re-checks of a server's pins), `resync` (reread everything).
  ui.get('/events', (c) =>
    streamStoreEvents(c, store, {
      name: (event) => (event.kind === 'drift' ? 'pins' : event.kind),
      accept: (event) =>
        event.kind === 'approval' ||
        event.kind === 'pins' ||
        event.kind === 'drift' ||
        event.kind === 'resync',
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
      return page(
        c,
        <AuditPageView page={await ctx(c)} {...view} error={errorMessage(caught)} />,
        400,
      );
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
        page={await ctx(c)}
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
    const asked = c.req.query('window');
    const known = asked === undefined || (STATS_WINDOWS as readonly string[]).includes(asked);
    const window = known && asked !== undefined ? asked : '24h';
    const records = await store.queryAudit({
      since: parseWhen(window, 'window'),
      limit: AUDIT_MAX,
    });
    return page(
      c,
      <StatsPageView
        page={await ctx(c)}
        window={window}
        stats={toolStats(records)}
        records={records.length}
        capped={records.length >= AUDIT_MAX}
        gateway={gateway.calls.stats()}
        error={
          known
            ? undefined
            : `window: expected one of ${STATS_WINDOWS.join(', ')}; got "${String(asked).slice(0, 40)}" (showing ${window})`
        }
      />,
      known ? 200 : 400,
    );
  });

  // Toolsets.
  const defaultOrigin = (): DefaultOrigin => {
    const chosen = toolsets.chosenDefault;
    return {
      configured: toolsets.configuredDefault,
      chosen: chosen !== undefined,
      chosenBy: chosen?.by,
    };
  };
  const toolsetsPage = async (c: Context<Env>, failed?: ToolsetFormError) =>
    page(
      c,
      <ToolsetsPageView
        page={await ctx(c)}
        toolsets={await store.listToolsets()}
        defaultToolset={toolsets.defaultToolset}
        defaultOrigin={defaultOrigin()}
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
        page={await ctx(c)}
        toolset={toolset}
        isDefault={toolsets.defaultToolset === name}
        defaultOrigin={defaultOrigin()}
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
      const action = form['action'];
      await toolsets.setDefault(
        action === 'clear'
          ? { kind: 'none' }
          : action === 'config'
            ? { kind: 'config' }
            : { kind: 'toolset', name },
        `dashboard:${c.get('session').principal}`,
      );
      return c.redirect(`${UI}/toolsets/${encodeURIComponent(name)}?done=default`, 303);
    } catch (caught) {
      return toolsetPage(c, name, { values: {}, error: errorMessage(caught) });
    }
  });
  ui.post('/toolsets/:name/delete', async (c) => {
    const name = c.req.param('name');
    try {
      await store.deleteToolset(name);
      await toolsets.refreshDefault();
      return c.redirect(`${UI}/toolsets?done=deleted`, 303);
    } catch (caught) {
      return toolsetPage(c, name, { values: {}, error: errorMessage(caught) });
    }
  });

  pinRoutes(ui, { gateway, ctx, notFound });

  // A mounted app's own notFound is not used: the last route answers any other page.
  ui.get('*', (c) => notFound(c, `No page at ${c.req.path}.`));
  return ui;
}

/**
 * Members from text, one per line: a refId (16 hex characters), `server.tool`, or a server
 * name (all its tools). Blank lines are skipped; a line that is none of these is an
 * INPUT_INVALID error naming it by its number, before anything is written.
 */
export function parseMembers(text: string): ToolsetMember[] {
  const members: ToolsetMember[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const member: ToolsetMember = REF_ID.test(line)
      ? { kind: 'ref', refId: line }
      : line.includes('.')
        ? { kind: 'tool', namespacedName: line }
        : { kind: 'server', server: line };
    const [issue] = checkMember(member, 'member');
    if (issue !== undefined)
      throw new HintgateError(
        'INPUT_INVALID',
        `members, line ${index + 1} ("${line.slice(0, 80)}"): ${issue.message}`,
      );
    members.push(member);
  }
  return members;
}
