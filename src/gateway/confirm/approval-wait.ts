import type { Approval, Store } from '../../store/store.js';

/** What waiting for an approval needs from the store. */
export type ApprovalStore = Pick<
  Store,
  'createApproval' | 'getApproval' | 'decideApproval' | 'expireApprovals' | 'watch'
>;

/** Options of {@link waitForApproval}. */
export interface ApprovalWaitOptions {
  /** How long the approval may stay pending (its own expiry, set when it was created). */
  readonly timeoutMs: number;
  /** The call's signal: when it aborts, the approval is withdrawn and the wait ends. */
  readonly signal: AbortSignal;
  /** A safety net beside the store's change events: the approval is read this often. */
  readonly pollMs?: number;
}

/** How long past the timeout the store's clock may lag before the approval counts as expired. */
const EXPIRY_GRACE_MS = 3_000;

/**
 * Waits until a pending approval is decided or expires, and returns it as it ended
 * (`approved`, `denied` or `expired`). It wakes on the store's change events (which reach
 * every gateway sharing a PostgreSQL store), rereads on `resync` and, as a safety net, every
 * `pollMs`. At the timeout it marks overdue approvals expired and reads this one again (a
 * decision made at the last moment still counts). When the client gives up on the call
 * (cancels it, times out, goes away), the approval is withdrawn (so nobody approves a call
 * that is gone, and nobody is said to have denied it) and the wait rejects with the signal's
 * reason.
 */
export function waitForApproval(
  store: ApprovalStore,
  id: string,
  { timeoutMs, signal, pollMs = 5_000 }: ApprovalWaitOptions,
): Promise<Approval> {
  return new Promise<Approval>((resolve, reject) => {
    let settled = false;
    let reading = false;
    let again = false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = Date.now() + timeoutMs;
    const finish = (): void => {
      settled = true;
      unwatch();
      clearInterval(poll);
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const read = async (final: boolean): Promise<void> => {
      if (settled) return;
      if (reading) {
        // A change arrived during a read that may have missed it: read once more after.
        again = true;
        return;
      }
      reading = true;
      try {
        if (final) await store.expireApprovals();
        const approval = await store.getApproval(id);
        if (settled) return;
        if (approval === undefined) {
          finish();
          reject(new Error(`approval ${id} disappeared from the store`));
          return;
        }
        if (approval.status !== 'pending') {
          finish();
          resolve(approval);
          return;
        }
        if (final && Date.now() > deadline + EXPIRY_GRACE_MS) {
          finish();
          resolve({ ...approval, status: 'expired' });
        }
      } catch {
        // The store is unreachable for a moment: the next event, poll or the deadline retries.
        if (final && !settled && Date.now() > deadline + EXPIRY_GRACE_MS) {
          finish();
          reject(new Error(`approval ${id}: the store could not be read`));
        }
      } finally {
        reading = false;
      }
      if (again && !settled) {
        again = false;
        await read(false);
      }
    };
    const onAbort = (): void => {
      if (settled) return;
      finish();
      void store
        .decideApproval(id, {
          status: 'withdrawn',
          by: 'client',
          note: `the client gave up on the call (${abortReason(signal)})`,
        })
        .catch(() => undefined);
      reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    };
    const unwatch = store.watch((event) => {
      if ((event.kind === 'approval' && event.id === id) || event.kind === 'resync')
        void read(false);
    });
    const poll = setInterval(() => void read(false), pollMs);
    poll.unref();
    const expire = (): void => {
      void read(true).then(() => {
        if (!settled) timer = setTimeout(expire, 200);
      });
    };
    timer = setTimeout(expire, timeoutMs);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Why a call's signal aborted, in words (the fronts abort with an Error or the client's reason). */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.message !== '') return reason.message;
  if (typeof reason === 'string' && reason !== '') return reason;
  return 'cancelled';
}
