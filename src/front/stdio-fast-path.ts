import type { Server } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { envelopeVersion } from '../mcp/era.js';
import type { DynamicMethod } from '../mcp/dynamic-wire.js';
import { TOOLS_ANNOTATIONS_METHOD, TOOLS_RESOLVE_METHOD } from '../mcp/dynamic-wire.js';
import type { JsonObject, RpcId, RpcRequest } from '../mcp/json-rpc.js';
import { failureLine, notificationLine, resultLine, toolsListResult } from './answers.js';
import type { FrontBackend } from './backend.js';
import type { ClientLink } from './call.js';
import { ControllerPool, callTool, modernSession } from './call.js';
import type { SessionInfo } from './session.js';

const LOOSE = z.looseObject({});

/**
 * What the fast path does with a 2025 client's call whose result is `input_required` (a
 * 2026 server asking for input): `request` goes to the SDK's front server with `result`, which
 * its handler takes as the result of its first round instead of calling the tool again
 * (see {@link HandedOver}); the SDK's shim then asks the client with real elicitation requests
 * and makes the next rounds.
 */
export type Handover = (request: RpcRequest, result: JsonObject) => void;

/**
 * The fast path of the stdio front: tools/call (and tools/list, tools/annotations and
 * tools/resolve) on an established connection are answered without the SDK's request
 * machinery. The call still runs the
 * whole gateway pipeline (`backend.callTool`); only the SDK's decoding, validation and
 * encoding layers are skipped, which is most of what a plain SDK relay costs. Everything
 * it does not take (the first requests, 2026 requests before the era is pinned) goes to the
 * SDK unchanged. A 2025 client's call of a 2026 server's tool is taken too: only the rare
 * `input_required` result needs the SDK's shim, and it is handed over with that result.
 */
export class FastPath {
  private readonly inflight = new Map<RpcId, AbortController>();
  private readonly pool = new ControllerPool();
  private readonly serverInfo: JsonObject;
  private readonly serverInfoJson: string;
  /** The connection's client, for 2025 requests (it can be sent requests) and 2026 ones. */
  private readonly legacyLink: ClientLink;
  private readonly modernLink: ClientLink;

  constructor(
    private readonly backend: FrontBackend,
    private readonly write: (line: string) => void,
    legacyServer: () => Server | undefined,
    logLevel: () => string | undefined,
    private readonly handover: Handover,
  ) {
    this.serverInfo = { ...backend.serverInfo };
    this.serverInfoJson = JSON.stringify(this.serverInfo);
    const notify = (method: string, params: JsonObject) =>
      this.write(notificationLine(method, params));
    this.modernLink = { notify, request: undefined, logLevel: () => undefined };
    this.legacyLink = {
      notify,
      logLevel,
      request: (request, signal) => {
        const server = legacyServer();
        if (server === undefined)
          return Promise.reject(new Error('the client has not initialized the connection'));
        return server.request({ method: request.method, params: request.params }, LOOSE, {
          signal,
          timeout: 600_000,
        });
      },
    };
  }

  /**
   * Takes the request when it can: `legacy` is the connection's 2025 session (after
   * initialize), `modernPinned` whether 2026 requests have established the connection.
   */
  take(request: RpcRequest, legacy: SessionInfo | undefined, modernPinned: boolean): boolean {
    const { method, params } = request;
    const dynamic = method === TOOLS_ANNOTATIONS_METHOD || method === TOOLS_RESOLVE_METHOD;
    if (method !== 'tools/call' && method !== 'tools/list' && !dynamic) return false;
    let session: SessionInfo | undefined;
    if (envelopeVersion(params) === undefined) session = legacy;
    else if (modernPinned) session = modernSession(params, 'stdio', 'stdio', undefined);
    if (session === undefined) return false;
    if (dynamic) return this.resolve(request, method, session);
    return method === 'tools/list' ? this.list(request, session) : this.call(request, session);
  }

  /** A client's `notifications/cancelled` for a fast-path call; true when it was one. */
  cancel(params: JsonObject | undefined): boolean {
    const id = params?.['requestId'];
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    const controller = this.inflight.get(id);
    if (controller === undefined) return false;
    this.inflight.delete(id);
    controller.abort(
      new Error(
        typeof params?.['reason'] === 'string' ? params['reason'] : 'cancelled by the client',
      ),
    );
    return true;
  }

  /** Aborts every call in flight (the client went away). */
  abortAll(): void {
    for (const controller of this.inflight.values())
      controller.abort(new Error('the client disconnected'));
    this.inflight.clear();
  }

  private list(request: RpcRequest, session: SessionInfo): boolean {
    if (request.params?.['cursor'] !== undefined) return false;
    if (toolsListResult(this.backend, session, this.serverInfoJson) === undefined) return false;
    const id = JSON.stringify(request.id);
    void this.backend.ready(session).then(() => {
      const result = toolsListResult(this.backend, session, this.serverInfoJson) ?? '{"tools":[]}';
      this.write(`{"jsonrpc":"2.0","id":${id},"result":${result}}`);
    });
    return true;
  }

  private call(request: RpcRequest, session: SessionInfo): boolean {
    const params = request.params ?? {};
    const name = params['name'];
    if (typeof name !== 'string') return false;
    const { id } = request;
    const controller = this.pool.acquire();
    this.inflight.set(id, controller);
    const called = callTool(this.backend, {
      params,
      session,
      signal: controller.signal,
      link: session.era === 'legacy' ? this.legacyLink : this.modernLink,
    });
    this.answer(id, controller, called, (result) => {
      if (session.era === 'legacy' && result['resultType'] === 'input_required') {
        this.handover(request, result);
        return undefined;
      }
      return resultLine(id, result, session, this.serverInfo);
    });
    return true;
  }

  /** `tools/annotations` or `tools/resolve`, answered as the front server's handler answers it. */
  private resolve(request: RpcRequest, method: DynamicMethod, session: SessionInfo): boolean {
    const { id } = request;
    const controller = this.pool.acquire();
    this.inflight.set(id, controller);
    const resolved = this.backend.ready().then(() =>
      this.backend.resolveAnnotations({
        method,
        params: request.params ?? {},
        session,
        signal: controller.signal,
      }),
    );
    this.answer(id, controller, resolved, (reply) =>
      reply.ok
        ? resultLine(id, reply.result, session, this.serverInfo)
        : JSON.stringify({ jsonrpc: '2.0', id, error: reply.error }),
    );
    return true;
  }

  /**
   * Writes the answer to request `id` once `work` settles (`line` of its value, or the error),
   * unless the request was cancelled; then frees its controller. A `line` that returns
   * undefined has passed the request on.
   */
  private answer<T>(
    id: RpcId,
    controller: AbortController,
    work: Promise<T>,
    line: (value: T) => string | undefined,
  ): void {
    // One `then` whose handlers each free the controller: no `finally` promise of its own.
    work.then(
      (value) => {
        try {
          if (controller.signal.aborted) return;
          const text = line(value);
          if (text !== undefined) this.write(text);
        } catch (error) {
          this.write(failureLine(id, error));
        } finally {
          this.settled(id, controller);
        }
      },
      (error: unknown) => {
        if (!controller.signal.aborted) this.write(failureLine(id, error));
        this.settled(id, controller);
      },
    );
  }

  /** Request `id` was answered (or cancelled): its controller goes back to the pool. */
  private settled(id: RpcId, controller: AbortController): void {
    if (this.inflight.get(id) === controller) this.inflight.delete(id);
    this.pool.release(controller);
  }
}
