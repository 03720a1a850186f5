import { HintgateError } from '../core/errors.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import type { ServerRequestRelay } from '../mcp/relay.js';

/** A call in flight, with where what the server sends during it goes. */
export interface InflightCall {
  /** The client of the call, for the server's elicitation and sampling requests. */
  readonly relay: ServerRequestRelay | undefined;
  /** The client of the call, for the server's log messages. */
  readonly onLog: ((params: JsonObject) => void) | undefined;
}

/**
 * The calls in flight on one server, latest last. What a server sends to "the client" outside
 * of an answer (an elicitation or sampling request, a log message) is not tied to a call on
 * the wire: it goes to the client of the latest call in flight that can take it, never to
 * every client; with none in flight, a request fails and a log message is the server's own.
 */
export class InflightCalls {
  private readonly calls = new Set<InflightCall>();

  /** Registers a call; the function returned ends it. */
  add(call: InflightCall): () => void {
    const entry = { relay: call.relay, onLog: call.onLog };
    this.calls.add(entry);
    return () => this.calls.delete(entry);
  }

  /** The handler the SDK client runs for a server-to-client request of `method`. */
  relayHandler(server: string, method: string) {
    return async (
      request: { params?: unknown },
      ctx: { mcpReq: { signal: AbortSignal } },
    ): Promise<JsonObject> => {
      const target = this.latest((call) => call.relay)?.relay;
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

  /** Sends a log message to the client of the latest call; false when none is in flight. */
  routeLog(params: JsonObject): boolean {
    const onLog = this.latest((call) => call.onLog)?.onLog;
    if (onLog === undefined) return false;
    onLog(params);
    return true;
  }

  private latest(has: (call: InflightCall) => unknown): InflightCall | undefined {
    let found: InflightCall | undefined;
    for (const call of this.calls) if (has(call) !== undefined) found = call;
    return found;
  }
}
