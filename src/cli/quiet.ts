import { performance } from 'node:perf_hooks';

/** How long the event loop must have been nearly idle, by default, in ms. */
export const QUIET_MS = 1_000;

/** The share of that time the event loop may have been busy and still count as quiet. */
export const QUIET_UTILIZATION = 0.05;

/**
 * A meter of this process's event loop: each call returns the share of the time since the
 * last call (or since the meter was made) that the loop was busy, not waiting for I/O. Read
 * from `performance.eventLoopUtilization`, so what it watches pays nothing for it.
 */
export function loopBusyMeter(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return busy;
  };
}

/** Options of {@link whenQuiet}. */
export interface QuietOptions {
  /** The span the loop must have been nearly idle over, checked once per span. */
  readonly spanMs?: number;
  /** The busy share (0-1) below which a span is quiet. */
  readonly utilization?: number;
}

/**
 * Runs `task` once this process's event loop has been nearly idle for a whole span: for
 * background work (starting the embedded database's process to check the start snapshot) that
 * would otherwise take the CPU its clients' calls are waiting for. Quiet is read with a
 * {@link loopBusyMeter}, so the calls themselves pay nothing for being watched. Returns a
 * function that cancels the wait; the wait keeps no process alive.
 */
export function whenQuiet(task: () => void, options: QuietOptions = {}): () => void {
  const spanMs = options.spanMs ?? QUIET_MS;
  const threshold = options.utilization ?? QUIET_UTILIZATION;
  const busy = loopBusyMeter();
  const timer = setInterval(() => {
    if (busy() >= threshold) return;
    clearInterval(timer);
    task();
  }, spanMs);
  timer.unref();
  return () => clearInterval(timer);
}
