import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Store } from '../store/store.js';
import type { StoreEvent } from '../store/types.js';

/** A comment line on the event stream this often, so a dead peer is noticed. */
const KEEPALIVE_MS = 15_000;

/**
 * Streams the store's change events as server-sent events: a `ready` event first, then one
 * event per store event that `accept` lets through (named by `name`, or unnamed), in order,
 * with a keepalive comment after 15 s of silence, until the client goes away.
 */
export function streamStoreEvents(
  c: Context,
  store: Pick<Store, 'watch'>,
  options: {
    readonly accept?: (event: StoreEvent) => boolean;
    /** Each event's name (a fixed one, or one per event); unnamed without. */
    readonly name?: string | ((event: StoreEvent) => string);
  } = {},
): Response {
  return streamSSE(c, async (stream) => {
    const queue: StoreEvent[] = [];
    let wake: (() => void) | undefined;
    const unwatch = store.watch((event) => {
      if (options.accept !== undefined && !options.accept(event)) return;
      queue.push(event);
      wake?.();
    });
    stream.onAbort(() => wake?.());
    try {
      await stream.writeSSE({ event: 'ready', data: '{}' });
      while (!stream.aborted) {
        const event = queue.shift();
        if (event !== undefined) {
          const name = typeof options.name === 'function' ? options.name(event) : options.name;
          await stream.writeSSE({
            ...(name === undefined ? {} : { event: name }),
            data: JSON.stringify(event),
          });
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, KEEPALIVE_MS).unref();
        });
        wake = undefined;
        if (queue.length === 0 && !stream.aborted) await stream.write(': keepalive\n\n');
      }
    } finally {
      unwatch();
    }
  });
}
