import type { CallContext } from './context.js';

/** A call's keep-alive while it waits: `touch` when the client heard something else, `stop` when done. */
export interface KeepAlive {
  /** The client just heard from the call (a server's progress): the next word can wait. */
  touch(): void;
  /** The wait is over: no more progress from the gateway. */
  stop(): void;
}

const NONE: KeepAlive = { touch: () => undefined, stop: () => undefined };

/** Options of {@link keepAlive}. */
export interface KeepAliveOptions {
  /** How often the client hears (ms); 0 for never. */
  readonly everyMs: number;
  /** Say it at once as well (the call starts waiting for a reason the client should know). */
  readonly now?: boolean;
}

/**
 * Tells the client of a waiting call, at least every `everyMs`, that the call still waits
 * and why (`message`): a progress notification, when the client sent a progress token (a
 * client that restarts its request timeout on progress then waits as long as the call
 * does). A period in which the client heard something else (`touch`) is skipped. Costs
 * nothing for a client that asked for no progress.
 */
export function keepAlive(
  ctx: CallContext,
  message: string,
  { everyMs, now = false }: KeepAliveOptions,
): KeepAlive {
  const say = ctx.keepAlive;
  if (say === undefined || everyMs <= 0 || ctx.signal.aborted) return NONE;
  if (now) say(message);
  let heard = false;
  const timer = setInterval(() => {
    if (ctx.signal.aborted) {
      clearInterval(timer);
      return;
    }
    if (heard) heard = false;
    else say(message);
  }, everyMs);
  timer.unref();
  return {
    touch: () => {
      heard = true;
    },
    stop: () => clearInterval(timer),
  };
}
