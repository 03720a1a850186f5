import type { FC } from 'hono/jsx';
import type { Approval } from '../../../store/types.js';
import type { PageContext } from '../layout.js';
import {
  Csrf,
  Empty,
  Layout,
  Notice,
  ReadOnlyNotice,
  Time,
  UI,
  hintLabel,
  pretty,
} from '../layout.js';

/** The pending calls, each with its arguments, who asked, why, time left and the buttons. */
export const ApprovalQueue: FC<{ page: PageContext; pending: readonly Approval[] }> = ({
  page,
  pending,
}) =>
  pending.length === 0 ? (
    <Empty title="Nothing is waiting for approval">
      <p>
        A call that needs a person and cannot ask its client appears here at once, without reloading
        the page.
      </p>
    </Empty>
  ) : (
    <ul class="queue">
      {pending.map((approval) => (
        <li
          class="approval"
          data-approval={approval.id}
          data-item={approval.id}
          data-label={approval.tool}
        >
          <div class="head">
            <code class="tool">{approval.tool}</code>
            <span class="left" data-expires={approval.expiresAt}>
              expires <Time iso={approval.expiresAt} />
            </span>
          </div>
          <p class="reason">{approval.reason}</p>
          <dl class="facts">
            <dt>Asked by</dt>
            <dd>
              {approval.requestedBy === undefined ? null : (
                <strong class="requester">{approval.requestedBy} </strong>
              )}
              {approval.requestedBy === undefined ? '' : 'through '}
              {approval.client ?? 'an unknown client'}
              {approval.sessionId === undefined ? null : (
                <span class="muted small"> · session {approval.sessionId.slice(0, 12)}</span>
              )}
            </dd>
            <dt>Asked at</dt>
            <dd>
              <Time iso={approval.createdAt} />
            </dd>
            <dt>Hints</dt>
            <dd>
              {Object.entries(approval.annotations)
                .filter(([field, value]) => field.endsWith('Hint') && typeof value === 'boolean')
                .map(([field, value]) => (
                  <span class={`hint is-${String(value)}`}>
                    <span class="mark" aria-hidden="true">
                      {value === true ? '✓' : '✗'}
                    </span>
                    <span class="name">{hintLabel(field)}</span>
                    <span class="sr">{` = ${String(value)}`}</span>
                  </span>
                ))}
            </dd>
          </dl>
          <details open>
            <summary>Arguments (secrets redacted)</summary>
            <pre class="args">{pretty(approval.arguments ?? {})}</pre>
          </details>
          {!page.approver.ok ? null : approval.requestedBy === page.principal ? (
            <p class="muted small">
              You made this call ({page.principal}): another approver decides it.
            </p>
          ) : (
            <form
              method="post"
              action={`${UI}/approvals/${approval.id}`}
              class="decide"
              data-enhance
            >
              <Csrf page={page} />
              <label class="note-field">
                Note (optional)
                <input name="note" maxlength={500} />
              </label>
              <span class="buttons">
                <button type="submit" name="decision" value="approve" class="approve">
                  Approve
                </button>
                <button type="submit" name="decision" value="deny" class="danger">
                  Deny
                </button>
              </span>
            </form>
          )}
        </li>
      ))}
    </ul>
  );

/** Recently decided approvals. */
const Decided: FC<{ decided: readonly Approval[] }> = ({ decided }) =>
  decided.length === 0 ? (
    <p class="muted">No decisions yet.</p>
  ) : (
    <table>
      <thead>
        <tr>
          <th scope="col">Asked (UTC)</th>
          <th scope="col">Tool</th>
          <th scope="col">Status</th>
          <th scope="col">By</th>
          <th scope="col">Note</th>
        </tr>
      </thead>
      <tbody>
        {decided.map((approval) => (
          <tr>
            <td>
              <Time iso={approval.createdAt} />
            </td>
            <td>
              <code>{approval.tool}</code>
            </td>
            <td>
              <span class={`pill s-${approval.status}`}>{approval.status}</span>
            </td>
            <td>{approval.decidedBy ?? '—'}</td>
            <td>{approval.note ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );

/** The approvals page: the live queue, then recent decisions. */
export const ApprovalsPageView: FC<{
  page: PageContext;
  pending: readonly Approval[];
  decided: readonly Approval[];
  message?: { kind: 'ok' | 'error'; text: string } | undefined;
}> = ({ page, pending, decided, message }) => (
  <Layout title="Approvals" page={page}>
    {message === undefined ? null : <Notice kind={message.kind}>{message.text}</Notice>}
    <ReadOnlyNotice page={page} what="on calls" />
    <section aria-labelledby="queue-heading">
      <h2 id="queue-heading">
        Waiting{' '}
        <span class="count" id="pending-count">
          {pending.length}
        </span>
      </h2>
      <div
        id="approval-queue"
        class="live"
        data-events="approval"
        data-fragment={`${UI}/approvals/queue`}
        data-count-name="approvals"
        data-announce="Waiting for approval"
      >
        <ApprovalQueue page={page} pending={pending} />
      </div>
    </section>
    <section aria-labelledby="decided-heading">
      <h2 id="decided-heading">Recent decisions</h2>
      <div id="approval-decided">
        <Decided decided={decided} />
      </div>
    </section>
  </Layout>
);
