import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Server, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { FastPath } from './stdio-fast-path.js';
import type { FrontBackend } from './backend.js';
import type { FrontHub } from './hub.js';
import { createFrontServer } from './sdk-server.js';
import { HandedOver } from './call.js';
import type { JsonObject, RpcId, RpcMessage } from '../mcp/json-rpc.js';
import { isJsonObject, isRpcRequest } from '../mcp/json-rpc.js';
import { LineReader, LineWriter, MAX_LINE_BYTES } from '../mcp/line-framing.js';
import { beforeInitializeAnswer, parseMessage, tooLargeAnswer } from './answers.js';
import { envelopeVersion } from '../mcp/era.js';
import type { SessionInfo } from './session.js';
import { emptySession } from './session.js';

/** Requests a 2025 client may send before its `initialize` has been answered. */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping']);

/** Options of {@link serveFrontStdio}. */
export interface StdioFrontOptions {
  readonly backend: FrontBackend;
  readonly hub: FrontHub;
  readonly input: Readable;
  readonly output: Writable;
  /** Answer tools/call (and tools/list) without the SDK's request machinery. Default true. */
  readonly fastPath?: boolean;
  readonly onerror?: (error: Error) => void;
}

/** A running stdio front. */
export interface StdioFront {
  /** Resolves when the client has gone (stdin closed) or {@link close} was called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves MCP on a pair of streams (the process's stdin and stdout) for clients of both eras:
 * the SDK's `serveStdio` picks the era from the opening message and pins one front instance;
 * hintgate's own transport under it frames lines, answers malformed JSON-RPC itself (-32700,
 * -32600) and keeps serving, refuses requests before `initialize` on a 2025 connection, and
 * takes tools/call (and tools/list) on the fast path once the connection is established.
 * A 2025 client's call that a 2026 server answers with `input_required` is handed to the
 * SDK's front server with that result, for its shim.
 */
export function serveFrontStdio(options: StdioFrontOptions): StdioFront {
  const transport = new FrontStdioTransport(options);
  const handle = serveStdio(
    async ({ era }) => {
      // Capabilities and instructions are fixed at the opening exchange: wait for the servers
      // (at most the startup wait) so that they include what the servers declare.
      await options.backend.ready();
      const server = createFrontServer(options.backend, {
        era,
        front: 'stdio',
        connectionId: 'stdio',
        hub: options.hub,
        ...(era === 'legacy' ? { handedOver: transport.handedOver } : {}),
      });
      if (era === 'legacy') transport.legacyServer = server;
      return server;
    },
    {
      legacy: 'serve',
      transport,
      ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
    },
  );
  return {
    closed: transport.closed,
    close: async () => {
      await handle.close();
      await transport.close();
    },
  };
}

/**
 * hintgate's front stdio transport. Everything goes to the SDK except what the fast path
 * takes: tools/call on an established connection runs the gateway pipeline directly and its
 * answer is written as raw JSON-RPC (with the 2026 stamps for 2026 clients).
 */
export class FrontStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;
  /** The pinned 2025 instance, to relay server-to-client requests of fast-path calls. */
  legacyServer: Server | undefined;
  /** Fast-path calls that need the SDK's shim, with their first round's result. */
  readonly handedOver = new HandedOver();
  readonly closed: Promise<void>;

  private readonly reader = new LineReader();
  private readonly writer: LineWriter;
  private readonly fast: FastPath | undefined;
  private resolveClosed!: () => void;
  private isClosed = false;
  private initializeId: RpcId | undefined;
  private initializeParams: JsonObject | undefined;
  private session: SessionInfo | undefined;
  private modernPinned = false;

  constructor(private readonly options: StdioFrontOptions) {
    this.writer = new LineWriter(options.output, (error) => this.onerror?.(error));
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.fast =
      options.fastPath === false
        ? undefined
        : new FastPath(
            options.backend,
            (line) => this.writer.write(line),
            () => this.legacyServer,
            () =>
              this.legacyServer === undefined
                ? undefined
                : options.hub.logLevelOf(this.legacyServer),
            (request, result) => {
              this.handedOver.put(request.id, request.params ?? {}, result);
              this.onmessage?.(request);
            },
          );
  }

  start(): Promise<void> {
    const input = this.options.input;
    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.on('close', this.onEnd);
    input.on('error', (error: Error) => this.onerror?.(error));
    this.options.output.on('error', (error: Error) => {
      this.onerror?.(error);
      void this.close();
    });
    return Promise.resolve();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (!this.reader.push(bytes, this.onLine)) this.reply(tooLargeAnswer(MAX_LINE_BYTES));
  };

  private readonly onEnd = (): void => {
    void this.close();
  };

  private readonly onLine = (line: string): void => {
    const received = parseMessage(line);
    if (received.ok) this.receive(received.message as unknown as RpcMessage);
    else this.reply(received.answer);
  };

  private receive(message: RpcMessage): void {
    if (isRpcRequest(message)) {
      const enveloped = envelopeVersion(message.params) !== undefined;
      if (!enveloped && !this.modernPinned && this.session === undefined) {
        if (message.method === 'initialize') {
          this.initializeId = message.id;
          this.initializeParams = message.params;
        } else if (!BEFORE_INITIALIZE.has(message.method)) {
          this.reply(
            beforeInitializeAnswer(
              message.id,
              message.method,
              'send initialize first (or use the 2026-07-28 per-request envelope)',
            ),
          );
          return;
        }
      }
      if (enveloped && message.method !== 'server/discover') this.modernPinned = true;
      if (this.fast !== undefined && this.fast.take(message, this.session, this.modernPinned))
        return;
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      if (this.fast?.cancel(message.params) === true) return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const outgoing = message as unknown as RpcMessage;
    if (
      this.initializeId !== undefined &&
      'id' in outgoing &&
      outgoing.id === this.initializeId &&
      !('method' in outgoing)
    ) {
      this.initialized(outgoing.result);
    }
    this.handedOver.answered(outgoing);
    this.writer.write(JSON.stringify(message));
    return Promise.resolve();
  }

  /** The `initialize` answer went out: the 2025 session is established. */
  private initialized(result: JsonObject | undefined): void {
    this.initializeId = undefined;
    if (result === undefined) return;
    const params = this.initializeParams ?? {};
    const version = result['protocolVersion'];
    this.session = {
      ...emptySession('stdio', 'stdio'),
      era: 'legacy',
      protocolVersion: typeof version === 'string' ? version : undefined,
      clientInfo: isJsonObject(params['clientInfo']) ? params['clientInfo'] : undefined,
      clientCapabilities: isJsonObject(params['capabilities']) ? params['capabilities'] : undefined,
    };
  }

  private reply(message: RpcMessage): void {
    this.writer.write(JSON.stringify(message));
  }

  close(): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    this.isClosed = true;
    const input = this.options.input;
    input.off('data', this.onData);
    input.off('end', this.onEnd);
    input.off('close', this.onEnd);
    this.fast?.abortAll();
    this.writer.close();
    this.reader.clear();
    this.onclose?.();
    this.resolveClosed();
    return Promise.resolve();
  }
}
