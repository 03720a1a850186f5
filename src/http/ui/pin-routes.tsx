import type { Context, Hono } from 'hono';
import { HintgateError, errorMessage } from '../../core/errors.js';
import type { PinningMode } from '../../core/pins/index.js';
import { decidePins, pinTargetOf } from '../../gateway/pins/decide.js';
import { PIN_STATUSES } from '../../store/pins.js';
import type { PinStatus, PinTarget, ToolPin } from '../../store/types.js';
import type { DashboardGateway } from './data.js';
import { findTool } from './data.js';
import type { PageContext } from './layout.js';
import { UI } from './layout.js';
import { waitingPins } from './pin-data.js';
import type { PinFilter, PinList } from './pages/pins.js';
import { PINS, PinListPart, PinPageView, PinsPageView, WaitingPins } from './pages/pins.js';
import type { DashboardEnv, PageStatus } from './render.js';
import { jsonError, markup, page, safeNext, statusOf, textFields, wantsJson } from './render.js';

/** What the pins pages need from the rest of the dashboard. */
export interface PinRouteOptions {
  readonly gateway: DashboardGateway;
  /** The page context of a request (principal, approver role, waiting counts). */
  readonly ctx: (c: Context<DashboardEnv>) => Promise<PageContext>;
  readonly notFound: (c: Context<DashboardEnv>, message: string) => Promise<Response>;
}

const LIST_PAGE = 100;
const NOTE_LIMIT = 500;

/**
 * The pins pages under `/ui/pins`: what waits for a decision (a fragment the script reads
 * again on each `pins` event), every pinned tool, one pin's drift and definitions, and the
 * decisions, taken by a principal with the approver role and applied by the running gateway
 * from the store's event (clients get list_changed).
 */
export function pinRoutes(ui: Hono<DashboardEnv>, options: PinRouteOptions): void {
  const { gateway, ctx, notFound } = options;
  const { store } = gateway;
  const modeOf = (server: string): PinningMode => gateway.pins.settings(server).mode;

  const listPage = async (
    c: Context<DashboardEnv>,
    message?: { kind: 'ok' | 'error'; text: string },
    status: PageStatus = 200,
  ): Promise<Response> => {
    const { filter, problem } = pinFilterOf(c);
    const [waiting, all] = await Promise.all([
      waitingPins(store),
      store.listPins({ definitions: false }),
    ]);
    return page(
      c,
      <PinsPageView
        page={await ctx(c)}
        waiting={waiting}
        modeOf={modeOf}
        list={pinList(all, filter)}
        filter={filter}
        message={problem === undefined ? message : { kind: 'error', text: problem }}
      />,
      problem === undefined ? status : 400,
    );
  };

  ui.get('/pins/list', async (c) => {
    const { filter } = pinFilterOf(c);
    const all = await store.listPins({ definitions: false });
    return c.html(markup(<PinListPart list={pinList(all, filter)} filter={filter} />));
  });

  ui.get('/pins', (c) => listPage(c, doneMessage(c)));

  ui.get('/pins/waiting', async (c) => {
    const waiting = await waitingPins(store);
    const pending = waiting.reduce((sum, group) => sum + group.rejectable, 0);
    c.header('X-Pending-Count', String(pending));
    return c.html(markup(<WaitingPins page={await ctx(c)} waiting={waiting} modeOf={modeOf} />));
  });

  const pinPage = async (
    c: Context<DashboardEnv>,
    name: string,
    message?: { kind: 'ok' | 'error'; text: string },
    status: PageStatus = 200,
  ): Promise<Response> => {
    const target = pinTargetOf(name);
    if (target?.tool === undefined)
      return notFound(c, `"${name}" is not a tool: expected server.tool (e.g. notes.get_note).`);
    const [pin] = await store.listPins({ server: target.server, tool: target.tool });
    if (pin === undefined) return notFound(c, `No tool ${name} is pinned.`);
    const entry = findTool(gateway, name);
    return page(
      c,
      <PinPageView
        page={await ctx(c)}
        pin={pin}
        mode={modeOf(pin.server)}
        catalogHref={entry === undefined ? undefined : `${UI}/tools/${entry.refId}`}
        message={message}
      />,
      status,
    );
  };
  ui.get('/pins/tool/:tool', (c) => pinPage(c, c.req.param('tool'), doneMessage(c)));

  ui.post('/pins/decide', async (c) => {
    const form = textFields(await c.req.parseBody());
    const back = safeNext(form['back'], PINS);
    const json = wantsJson(c);
    const fail = async (error: unknown): Promise<Response> => {
      const status = statusOf(error);
      if (json) return jsonError(c, error, status);
      const text = errorMessage(error);
      const tool = form['tool'];
      return back.startsWith(`${PINS}/tool/`) && tool !== undefined
        ? pinPage(c, tool, { kind: 'error', text }, status)
        : listPage(c, { kind: 'error', text }, status);
    };
    const approver = (await ctx(c)).approver;
    if (!approver.ok) return fail(new HintgateError('FORBIDDEN', `Not decided: ${approver.why}`));
    let target: PinTarget;
    let action: 'approve' | 'reject';
    let note: string | undefined;
    try {
      target = decisionTarget(form['tool'], form['server']);
      action = decisionAction(form['decision']);
      note = decisionNote(form['note']);
    } catch (error) {
      return fail(error);
    }
    try {
      const decided = await decidePins(store, target, {
        action,
        by: `dashboard:${c.get('session').principal}`,
        ...(note === undefined ? {} : { note }),
      });
      const what = describeDecided(decided);
      const done = action === 'approve' ? 'approved' : 'rejected';
      if (json)
        return c.json({
          pins: decided,
          message:
            action === 'approve'
              ? `Approved ${what}: served at once, clients get list_changed.`
              : `Rejected ${what}: it stays held back.`,
        });
      const separator = back.includes('?') ? '&' : '?';
      return c.redirect(`${back}${separator}done=${done}&what=${encodeURIComponent(what)}`, 303);
    } catch (error) {
      return fail(error);
    }
  });
}

/** What a redirect after a decision says (`done`, `what`). */
function doneMessage(c: Context): { kind: 'ok'; text: string } | undefined {
  const what = c.req.query('what') ?? '';
  const done = c.req.query('done') ?? '';
  switch (done) {
    case 'approved':
      return {
        kind: 'ok',
        text: `Approved ${what}: it is the pin now. The gateway serves it at once; clients get list_changed.`,
      };
    case 'rejected':
      return {
        kind: 'ok',
        text: `Rejected ${what}: the pin stands and the change stays held back.`,
      };
    default:
      return undefined;
  }
}

/** One pin per tool named, or the count when there are many. */
function describeDecided(pins: readonly ToolPin[]): string {
  if (pins.length <= 3) return pins.map((pin) => `${pin.server}.${pin.tool}`).join(', ');
  return `${pins.length} definitions of ${pins[0]?.server ?? 'the server'}`;
}

/** The target of a decision: one tool (`server.tool`) or every waiting tool of a server. */
function decisionTarget(tool: string | undefined, server: string | undefined): PinTarget {
  if (tool !== undefined && tool !== '') {
    const target = pinTargetOf(tool);
    if (target?.tool === undefined)
      throw new HintgateError(
        'INPUT_INVALID',
        `tool: expected server.tool (e.g. notes.get_note), got "${tool.slice(0, 100)}"`,
      );
    return target;
  }
  if (server !== undefined && server.trim() !== '') return { server: server.trim() };
  throw new HintgateError('INPUT_INVALID', 'name a tool (server.tool) or a server to decide on');
}

function decisionAction(value: string | undefined): 'approve' | 'reject' {
  if (value === 'approve' || value === 'reject') return value;
  throw new HintgateError(
    'INPUT_INVALID',
    `decision: expected approve or reject, got "${(value ?? '').slice(0, 40)}"`,
  );
}

function decisionNote(value: string | undefined): string | undefined {
  const note = (value ?? '').trim();
  if (note === '') return undefined;
  if (note.length > NOTE_LIMIT)
    throw new HintgateError(
      'INPUT_INVALID',
      `note: at most ${NOTE_LIMIT} characters (this one has ${note.length})`,
    );
  return note;
}

/** The list's filter from the query; a status that is none is named (and not applied). */
function pinFilterOf(c: Context): { filter: PinFilter; problem: string | undefined } {
  const status = c.req.query('status') || undefined;
  const known = status === undefined || PIN_STATUSES.includes(status as PinStatus);
  return {
    filter: {
      server: c.req.query('server') || undefined,
      status: known ? status : undefined,
      q: c.req.query('q')?.trim() || undefined,
      page: Math.max(1, Math.trunc(Number(c.req.query('page') ?? 1)) || 1),
    },
    problem: known
      ? undefined
      : `status: expected one of ${PIN_STATUSES.join(', ')}; got "${String(status).slice(0, 40)}"`,
  };
}

/** One page of every pin, filtered, with the counts of each status (of the server chosen). */
function pinList(all: readonly ToolPin[], filter: PinFilter): PinList {
  const servers = [...new Set(all.map((pin) => pin.server))].sort();
  const ofServer =
    filter.server === undefined ? all : all.filter((pin) => pin.server === filter.server);
  const counts: Record<PinStatus, number> = { pinned: 0, pending: 0, rejected: 0, removed: 0 };
  for (const pin of ofServer) counts[pin.status]++;
  const words = (filter.q ?? '').toLowerCase();
  const matching = ofServer.filter(
    (pin) =>
      (filter.status === undefined || pin.status === filter.status) &&
      (words === '' || `${pin.server}.${pin.tool}`.toLowerCase().includes(words)),
  );
  const pages = Math.max(1, Math.ceil(matching.length / LIST_PAGE));
  const current = Math.min(filter.page, pages);
  return {
    pins: matching.slice((current - 1) * LIST_PAGE, current * LIST_PAGE),
    total: matching.length,
    page: current,
    pages,
    servers,
    counts,
  };
}
