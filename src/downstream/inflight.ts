import { HintgateError } from '../core/errors.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import type { ServerRequestRelay } from '../mcp/relay.js';

/** A call in flight, with where what the server sends during it goes. */
export interface InflightCall {
  /**
   * Who the call is for (a session of one principal): the server's messages are routed only
   * when a single caller has calls in flight. Undefined: a caller of its own.
   */
  readonly caller?: string | undefined;
  /** The client of the call, for the server's elicitation and sampling requests. */
  readonly relay: ServerRequestRelay | undefined;
  /** The client of the call, for the server's log messages. */
  readonly onLog: ((params: JsonObject) => void) | undefined;
}

/** Where a server's log message went. */
export type LogRoute =
  /** To the client of the call it came during. */
  | 'call'
  /** Nowhere yet: no call was in flight, so it is the server's own. */
  | 'server'
  /** Nowhere: calls of several callers were in flight, and it could be any of theirs. */
  | 'ambiguous';

/**
 * The calls in flight on one server, latest last. What a server sends to "the client" outside
 * of an answer (an elicitation or sampling request, a log message) is not tied to a call on
 * the wire: it goes to the client of the latest call in flight that can take it when all
 * those calls are one caller's, never to every client. When calls of several callers are in
 * flight, nobody can tell whose it is: a request fails, saying so, and a log message is
 * dropped (sending it to the wrong session would leak one caller's work to another). With
 * none in flight, a request fails and a log message is the server's own.
 */
export class InflightCalls {
  private readonly calls = new Set<InflightCall>();

  /** Registers a call; the function returned ends it. */
  add(call: InflightCall): () => void {
    const entry: InflightCall = { caller: call.caller, relay: call.relay, onLog: call.onLog };
    this.calls.add(entry);
    return () => this.calls.delete(entry);
  }

  /** The handler the SDK client runs for a server-to-client request of `method`. */
  relayHandler(server: string, method: string) {
    return async (
      request: { params?: unknown },
      ctx: { mcpReq: { signal: AbortSignal } },
    ): Promise<JsonObject> => {
      const found = this.latest((call) => call.relay);
      if (found === 'ambiguous') {
        throw new HintgateError(
          'CONFLICT',
          `hintgate cannot tell which client to relay ${method} to: calls of several clients of server "${server}" are in flight`,
        );
      }
      const target = found?.relay;
      if (target === undefined) {
        throw new HintgateError(
          'NOT_FOUND',
          `hintgate has no client to relay ${method} to (no call of server "${server}" that can answer it is in flight)`,
        );
      }
      const params = isJsonObject(request.params) ? request.params : {};
      return target({ method, params }, ctx.mcpReq.signal);
    };
  }

  /** Sends a log message to the client of the call it came during, when that is known. */
  routeLog(params: JsonObject): LogRoute {
    const found = this.latest((call) => call.onLog);
    if (found === 'ambiguous') return 'ambiguous';
    const onLog = found?.onLog;
    if (onLog === undefined) return 'server';
    onLog(params);
    return 'call';
  }

  /** The latest call that can take it, or 'ambiguous' when such calls have several callers. */
  private latest(has: (call: InflightCall) => unknown): InflightCall | 'ambiguous' | undefined {
    let found: InflightCall | undefined;
    for (const call of this.calls) {
      if (has(call) === undefined) continue;
      if (found !== undefined && (call.caller === undefined || call.caller !== found.caller))
        return 'ambiguous';
      found = call;
    }
    return found;
  }
}
