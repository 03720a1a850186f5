import type { FC } from 'hono/jsx';
import type { DriftGrade, FieldChange, PinningMode } from '../../../core/pins/index.js';
import { DRIFT_GRADES } from '../../../core/pins/index.js';
import type { PinStatus, ToolPin } from '../../../store/types.js';
import type { TextPart, WaitingServer } from '../pin-data.js';
import { GRADE_MEANING, isSerious, shownValue, textChange, whileWaiting } from '../pin-data.js';
import type { PageContext } from '../layout.js';
import {
  Csrf,
  Empty,
  Layout,
  Notice,
  Pager,
  ReadOnlyNotice,
  Time,
  UI,
  pretty,
  queryString,
} from '../layout.js';

/** Where the pins page lives. */
export const PINS = `${UI}/pins`;

/** The URL of one pin's page. */
export function pinHref(pin: Pick<ToolPin, 'server' | 'tool'>): string {
  return `${PINS}/tool/${encodeURIComponent(`${pin.server}.${pin.tool}`)}`;
}

/** One grade, red when it holds a change back. */
export const GradePill: FC<{ grade: DriftGrade }> = ({ grade }) => (
  <span class={`grade${isSerious(grade) ? ' serious' : ''}`} title={GRADE_MEANING[grade]}>
    {grade}
  </span>
);

const STATUS_WORD: Readonly<Record<PinStatus, string>> = {
  pinned: 'pinned',
  pending: 'waiting',
  rejected: 'rejected',
  removed: 'removed',
};

/** A pin's status as a pill. */
export const StatusPill: FC<{ status: PinStatus }> = ({ status }) => (
  <span class={`pill p-${status}`}>{STATUS_WORD[status]}</span>
);

const Parts: FC<{ parts: readonly TextPart[] }> = ({ parts }) => (
  <pre class="value text">
    {parts.map((part) =>
      part.kind === 'added' ? (
        <ins>{part.text}</ins>
      ) : part.kind === 'removed' ? (
        <del>{part.text}</del>
      ) : (
        part.text
      ),
    )}
  </pre>
);

/** One changed value: its path, grade, the pinned value and the value now. */
const ChangeRow: FC<{ change: FieldChange }> = ({ change }) => {
  const texts =
    typeof change.before === 'string' && typeof change.after === 'string'
      ? textChange(change.before, change.after)
      : undefined;
  return (
    <tr>
      <th scope="row">
        <code>{change.path}</code>
      </th>
      <td data-label="Grade">
        <GradePill grade={change.grade} />
      </td>
      <td class="before" data-label="Pinned">
        {texts === undefined ? (
          <pre class="value">{shownValue(change.before)}</pre>
        ) : (
          <Parts parts={texts.before} />
        )}
      </td>
      <td class="after" data-label="Now">
        {texts === undefined ? (
          <pre class="value">{shownValue(change.after)}</pre>
        ) : (
          <Parts parts={texts.after} />
        )}
      </td>
    </tr>
  );
};

/** The drift of a pin, field by field, then the suspicious text (as `hintgate pins diff`). */
export const DriftDetails: FC<{ pin: ToolPin }> = ({ pin }) => {
  const drift = pin.drift;
  if (drift === undefined) return null;
  return (
    <>
      {drift.changes.length === 0 ? null : (
        <table class="diff">
          <caption class="sr">What changed in {`${pin.server}.${pin.tool}`}</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Grade</th>
              <th scope="col">Pinned</th>
              <th scope="col">Now</th>
            </tr>
          </thead>
          <tbody>
            {drift.changes.map((change) => (
              <ChangeRow change={change} />
            ))}
          </tbody>
        </table>
      )}
      {drift.findings.length === 0 ? null : (
        <ul class="findings" aria-label="Suspicious text">
          {drift.findings.map((finding) => (
            <li>
              <strong>Suspicious text</strong> in <code>{finding.field}</code> ({finding.kind}):{' '}
              {finding.message}
              <pre class="value excerpt">{finding.excerpt}</pre>
            </li>
          ))}
        </ul>
      )}
      {drift.kind === 'new' && drift.renamedFrom === undefined && pin.pending !== undefined ? (
        <details class="definition">
          <summary>The new tool's definition</summary>
          <pre class="schema">{pretty(pin.pending)}</pre>
        </details>
      ) : null}
    </>
  );
};

/** Approve and Reject of one tool (or a note and the buttons), for an approver. */
const DecideForm: FC<{
  page: PageContext;
  target: { tool: string } | { server: string };
  approve: number;
  reject: number;
  back?: string | undefined;
}> = ({ page, target, approve, reject, back }) => {
  const server = 'server' in target;
  const name = server ? `every waiting tool of ${target.server}` : target.tool;
  return (
    <form
      method="post"
      action={`${PINS}/decide`}
      class={server ? 'decide decide-all' : 'decide'}
      data-enhance
    >
      <Csrf page={page} />
      {back === undefined ? null : <input type="hidden" name="back" value={back} />}
      {server ? (
        <>
          <input type="hidden" name="server" value={target.server} />
          <p class="decide-what">Every waiting tool of {target.server} at once:</p>
        </>
      ) : (
        <input type="hidden" name="tool" value={target.tool} />
      )}
      <label class="note-field">
        Note (optional)
        <input name="note" maxlength={500} />
      </label>
      <span class="buttons">
        {approve === 0 ? null : (
          <button
            type="submit"
            name="decision"
            value="approve"
            class="approve"
            data-confirm={server ? `Approve ${approve} definition(s) of ${name}?` : undefined}
          >
            {server ? `Approve all ${approve}` : 'Approve'}
          </button>
        )}
        {reject === 0 ? null : (
          <button
            type="submit"
            name="decision"
            value="reject"
            class="danger"
            data-confirm={server ? `Reject ${reject} definition(s) of ${name}?` : undefined}
          >
            {server ? `Reject all ${reject}` : 'Reject'}
          </button>
        )}
      </span>
    </form>
  );
};

/** One waiting definition: what drifted, what the gateway does meanwhile, the decision. */
export const DriftCard: FC<{
  page: PageContext;
  pin: ToolPin;
  mode: PinningMode;
  /** Where the decision's page goes back to (the pin's own page); default the list. */
  back?: string | undefined;
}> = ({ page, pin, mode, back }) => {
  const drift = pin.drift;
  const name = `${pin.server}.${pin.tool}`;
  const kind =
    drift === undefined
      ? 'changed'
      : drift.renamedFrom !== undefined
        ? `renamed from ${drift.renamedFrom}`
        : drift.kind === 'new'
          ? 'new tool'
          : 'changed';
  return (
    <li class={`drift s-${pin.status}`} data-item={name} data-label={name}>
      <div class="head">
        <a href={pinHref(pin)} class="tool">
          <code>{name}</code>
        </a>
        <span class="muted">{kind}</span>
        <StatusPill status={pin.status} />
        <span class="grades">
          {(drift?.grades ?? []).map((grade) => (
            <GradePill grade={grade} />
          ))}
        </span>
      </div>
      <p class="meanwhile">{whileWaiting(pin, mode)}</p>
      {pin.status === 'rejected' ? (
        <p class="muted small">
          Rejected by {pin.decidedBy ?? 'someone'}
          {pin.decidedAt === undefined ? null : (
            <>
              {' '}
              at <Time iso={pin.decidedAt} />
            </>
          )}
          {pin.note === undefined ? '' : `: ${pin.note}`}. It stays held back; approving it accepts
          it after all.
        </p>
      ) : null}
      <DriftDetails pin={pin} />
      {page.approver.ok ? (
        <DecideForm
          page={page}
          target={{ tool: name }}
          approve={1}
          reject={pin.status === 'pending' ? 1 : 0}
          back={back}
        />
      ) : null}
    </li>
  );
};

/** Every waiting definition, by server, with server-wide decisions: the live part of the page. */
export const WaitingPins: FC<{
  page: PageContext;
  waiting: readonly WaitingServer[];
  modeOf: (server: string) => PinningMode;
}> = ({ page, waiting, modeOf }) =>
  waiting.length === 0 ? (
    <Empty title="Nothing waits for a decision">
      <p>
        Every tool is served as pinned. A change that needs a person (a relaxed hint, text that
        speaks to the model, a new tool) appears here as soon as a server lists it, without
        reloading the page.
      </p>
    </Empty>
  ) : (
    <>
      {waiting.map((group) => (
        <section class="pin-server" aria-label={`Server ${group.server}`}>
          <div class="head">
            <h3>
              {group.server} <span class="count">{group.pins.length}</span>
            </h3>
            <span class="muted small">pinning mode: {modeOf(group.server)}</span>
          </div>
          {page.approver.ok && group.pins.length > 1 ? (
            <DecideForm
              page={page}
              target={{ server: group.server }}
              approve={group.approvable}
              reject={group.rejectable}
            />
          ) : null}
          <ul class="drifts">
            {group.pins.map((pin) => (
              <DriftCard page={page} pin={pin} mode={modeOf(group.server)} />
            ))}
          </ul>
        </section>
      ))}
    </>
  );

/** Filters of the list of every pin. */
export interface PinFilter {
  readonly server?: string | undefined;
  readonly status?: string | undefined;
  readonly q?: string | undefined;
  readonly page: number;
}

/** One page of every pin (rows without their definitions). */
export interface PinList {
  readonly pins: readonly ToolPin[];
  readonly total: number;
  readonly page: number;
  readonly pages: number;
  readonly servers: readonly string[];
  readonly counts: Readonly<Record<PinStatus, number>>;
}

const ListFilters: FC<{ filter: PinFilter; servers: readonly string[] }> = ({
  filter,
  servers,
}) => (
  <form method="get" action={PINS} class="filters" role="search" aria-label="Pinned tools">
    <label>
      Tool
      <input type="search" name="q" value={filter.q ?? ''} placeholder="part of a name" />
    </label>
    <label>
      Server
      <select name="server">
        <option value="">all</option>
        {servers.map((server) => (
          <option value={server} selected={filter.server === server}>
            {server}
          </option>
        ))}
      </select>
    </label>
    <label>
      Status
      <select name="status">
        <option value="">any</option>
        {(['pinned', 'pending', 'rejected', 'removed'] as const).map((status) => (
          <option value={status} selected={filter.status === status}>
            {STATUS_WORD[status]}
          </option>
        ))}
      </select>
    </label>
    <button type="submit">Filter</button>
    <a href={PINS} class="button secondary">
      Clear
    </a>
  </form>
);

const PinTable: FC<{ list: PinList; filter: PinFilter }> = ({ list, filter }) => (
  <>
    <table class="pins">
      <caption class="sr">Pinned tools</caption>
      <thead>
        <tr>
          <th scope="col">Tool</th>
          <th scope="col">Status</th>
          <th scope="col">Drift</th>
          <th scope="col">Hash</th>
          <th scope="col">First seen (UTC)</th>
          <th scope="col">Last decision</th>
        </tr>
      </thead>
      <tbody>
        {list.pins.map((pin) => (
          <tr>
            <th scope="row">
              <a href={pinHref(pin)}>
                <code>{`${pin.server}.${pin.tool}`}</code>
              </a>
            </th>
            <td>
              <StatusPill status={pin.status} />
            </td>
            <td>
              {pin.drift === undefined || pin.status === 'pinned' || pin.status === 'removed' ? (
                <span class="muted">—</span>
              ) : (
                pin.drift.grades.map((grade) => <GradePill grade={grade} />)
              )}
            </td>
            <td>
              <code class="small">{(pin.hash ?? '—').slice(0, 12)}</code>
            </td>
            <td>
              <Time iso={pin.firstSeen} />
            </td>
            <td class="small">
              {pin.decidedBy === undefined ? (
                <span class="muted">—</span>
              ) : (
                <>
                  {pin.decidedBy}
                  {pin.decidedAt === undefined ? null : (
                    <div class="muted">
                      <Time iso={pin.decidedAt} />
                    </div>
                  )}
                </>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    <Pager
      page={list.page}
      pages={list.pages}
      total={list.total}
      noun="pins"
      href={(n) =>
        `${PINS}${queryString({ q: filter.q, server: filter.server, status: filter.status, page: n })}`
      }
    />
  </>
);

/** The list of every pin: the counts, then the page of pins (read again on each change). */
export const PinListPart: FC<{ list: PinList; filter: PinFilter }> = ({ list, filter }) => (
  <>
    <p class="muted small">
      {list.counts.pinned.toLocaleString('en')} pinned · {list.counts.pending} waiting ·{' '}
      {list.counts.rejected} rejected · {list.counts.removed} removed
      {filter.server === undefined ? '' : ` (server ${filter.server})`}
    </p>
    {list.total === 0 ? (
      <Empty title="No pins match">
        <p>
          {list.servers.length === 0
            ? 'Tools are pinned when a server first lists them.'
            : 'Change the filters, or clear them.'}
        </p>
      </Empty>
    ) : (
      <PinTable list={list} filter={filter} />
    )}
  </>
);

/** The pins page: what waits for a decision (live), then every pinned tool. */
export const PinsPageView: FC<{
  page: PageContext;
  waiting: readonly WaitingServer[];
  modeOf: (server: string) => PinningMode;
  list: PinList;
  filter: PinFilter;
  message?: { kind: 'ok' | 'error'; text: string } | undefined;
}> = ({ page, waiting, modeOf, list, filter, message }) => {
  const count = waiting.reduce((sum, group) => sum + group.pins.length, 0);
  return (
    <Layout title="Pins and drift" page={page}>
      {message === undefined ? null : <Notice kind={message.kind}>{message.text}</Notice>}
      <ReadOnlyNotice page={page} what="on drift" />
      <p class="muted">
        hintgate keeps every tool's definition as it first saw it (or as a person approved it) and
        checks each listing against it. A change that says "safer", text that speaks to the model
        and new tools wait here for a person; "more dangerous" and wording changes are applied and
        recorded.
      </p>
      <section aria-labelledby="waiting-heading">
        <h2 id="waiting-heading">
          Waiting for a decision{' '}
          <span class="count" id="pending-count">
            {count}
          </span>
        </h2>
        <div
          id="pins-waiting"
          class="live"
          data-events="pins"
          data-fragment={`${PINS}/waiting`}
          data-count-name="pins"
          data-announce="Drift waiting for a decision"
        >
          <WaitingPins page={page} waiting={waiting} modeOf={modeOf} />
        </div>
      </section>
      <section aria-labelledby="list-heading">
        <h2 id="list-heading">Pinned tools</h2>
        <ListFilters filter={filter} servers={list.servers} />
        <div
          id="pins-list"
          class="live"
          data-events="pins"
          data-fragment={`${PINS}/list${queryString({
            q: filter.q,
            server: filter.server,
            status: filter.status,
            page: filter.page === 1 ? undefined : filter.page,
          })}`}
        >
          <PinListPart list={list} filter={filter} />
        </div>
      </section>
      <details class="legend-grades">
        <summary>What the grades mean</summary>
        <dl>
          {DRIFT_GRADES.map((grade) => (
            <>
              <dt>
                <GradePill grade={grade} />
              </dt>
              <dd>{GRADE_MEANING[grade]}</dd>
            </>
          ))}
        </dl>
      </details>
    </Layout>
  );
};

/** One pin: its drift, the decision, the pinned and the waiting definitions side by side. */
export const PinPageView: FC<{
  page: PageContext;
  pin: ToolPin;
  mode: PinningMode;
  catalogHref: string | undefined;
  message?: { kind: 'ok' | 'error'; text: string } | undefined;
}> = ({ page, pin, mode, catalogHref, message }) => {
  const waiting =
    pin.pending !== undefined && (pin.status === 'pending' || pin.status === 'rejected');
  return (
    <Layout title={`${pin.server}.${pin.tool}`} page={page}>
      <p class="muted">
        <a href={PINS}>Pins</a> · <StatusPill status={pin.status} /> · first seen{' '}
        <Time iso={pin.firstSeen} />
        {catalogHref === undefined ? null : (
          <>
            {' '}
            · <a href={catalogHref}>in the catalog</a>
          </>
        )}
      </p>
      {message === undefined ? null : <Notice kind={message.kind}>{message.text}</Notice>}
      {waiting ? <ReadOnlyNotice page={page} what="on this tool" /> : null}
      {waiting ? (
        <ul class="drifts">
          <DriftCard page={page} pin={pin} mode={mode} back={pinHref(pin)} />
        </ul>
      ) : (
        <p>
          Nothing waits: the tool is served as pinned
          {pin.status === 'removed' ? ' (the server no longer lists it)' : ''}.
        </p>
      )}
      {pin.decidedBy === undefined ? null : (
        <p class="muted small">
          Last decision by {pin.decidedBy}
          {pin.decidedAt === undefined ? null : (
            <>
              {' '}
              at <Time iso={pin.decidedAt} />
            </>
          )}
          {pin.note === undefined ? '' : `: ${pin.note}`}
        </p>
      )}
      <div class="definitions">
        <section aria-labelledby="pinned-heading">
          <h2 id="pinned-heading">Pinned definition</h2>
          <p class="muted small">
            Hash <code>{pin.hash ?? '—'}</code>
          </p>
          {pin.definition === undefined ? (
            <p class="muted">Nothing pinned yet: a new tool.</p>
          ) : (
            <pre class="schema">{pretty(pin.definition)}</pre>
          )}
        </section>
        {pin.pending === undefined ? null : (
          <section aria-labelledby="pending-heading">
            <h2 id="pending-heading">Definition listed now</h2>
            <p class="muted small">
              Hash <code>{pin.pendingHash ?? '—'}</code>
            </p>
            <pre class="schema">{pretty(pin.pending)}</pre>
          </section>
        )}
      </div>
    </Layout>
  );
};
