import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** Events kept per 2025 HTTP session for clients that reconnect with `Last-Event-ID`. */
export const DEFAULT_EVENTS_KEPT = 512;

/**
 * The events of one 2025 HTTP session's SSE streams, newest last, at most `limit` of them:
 * every event gets an id (`<stream>:<n>`), and a client whose stream broke resumes it with a
 * GET carrying `Last-Event-ID` (the SDK's transport replays through this store, and the HTTP
 * fast path stores its own streams' events here too). An id older than what is kept resumes
 * nothing: the client retries the request instead.
 */
export class SessionEventStore implements EventStore {
  private readonly events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];
  private sequence = 0;

  constructor(private readonly limit = DEFAULT_EVENTS_KEPT) {}

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    return Promise.resolve(this.store(streamId, message));
  }

  /** {@link storeEvent} without the promise, for the fast path. */
  store(streamId: string, message: JSONRPCMessage): string {
    const id = `${streamId}:${++this.sequence}`;
    this.events.push({ id, streamId, message });
    if (this.events.length > this.limit) this.events.splice(0, this.events.length - this.limit);
    return id;
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const cut = eventId.lastIndexOf(':');
    return Promise.resolve(cut <= 0 ? undefined : eventId.slice(0, cut));
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? '';
    const after = this.events.findIndex((event) => event.id === lastEventId);
    if (after < 0) return streamId;
    for (const event of this.events.slice(after + 1)) {
      // Priming events (empty messages) carry only an id: nothing to replay.
      if (event.streamId === streamId && Object.keys(event.message).length > 0)
        await send(event.id, event.message);
    }
    return streamId;
  }
}
