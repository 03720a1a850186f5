import { join } from 'node:path';
import type { AuthProvider, PriorDiscovery, Transport } from '@modelcontextprotocol/client';
import {
  Client,
  SSEClientTransport,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import * as z from 'zod';
import type { ServerConfig } from '../config/schema.js';
import { errorMessage } from '../core/errors.js';
import { provenanceCapabilities } from '../mcp/provenance.js';
import { toolResolutionCapabilities } from '../mcp/dynamic-wire.js';
import { DownstreamError } from '../mcp/rpc-errors.js';
import { fromClientError } from './errors.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import { ChildProcessTransport } from './stdio-transport.js';
import { stderrReason } from './stderr-reason.js';

/**
 * What hintgate declares to downstream servers as their client: it relays elicitation and
 * sampling to its own clients, and negotiates the tool-resolution extension so that servers
 * mark the tools they resolve (hintgate forwards `tools/resolve` to them).
 */
export const DOWNSTREAM_CLIENT_CAPABILITIES = {
  elicitation: { form: {} },
  sampling: {},
  ...toolResolutionCapabilities(),
  // A hintgate gateway in front (`hintgate lint` of its endpoint, or a chain of gateways)
  // lists its tools with their full provenance.
  ...provenanceCapabilities(),
};

/** Who the gateway is to downstream servers. */
export interface ClientIdentity {
  readonly name: string;
  readonly version: string;
}

/** A live connection: the SDK client and the transport under it. */
export interface Connection {
  readonly client: Client;
  readonly transport: Transport;
  /** Set for spawned servers: the transport that can carry raw requests. */
  readonly child: ChildProcessTransport | undefined;
  /** The era verdict to reuse on the next connect (skips the probe). */
  readonly prior: PriorDiscovery;
  /**
   * The server's capabilities as it sent them. The SDK client's `getServerCapabilities()`
   * drops keys its schema does not know, such as the proposal's `tools.dynamicAnnotations`.
   */
  readonly capabilities: JsonObject;
}

/** What {@link connectServer} needs. */
export interface ConnectOptions {
  readonly name: string;
  readonly config: ServerConfig;
  readonly identity: ClientIdentity;
  readonly logDir: string;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** The verdict of an earlier connect, if any. */
  readonly prior: PriorDiscovery | undefined;
  /** Installs handlers on the client before it connects. */
  readonly prepare: (client: Client, transport: Transport) => void;
  /** The bearer token of an HTTP server that asks for OAuth (see `oauth/connection-auth.ts`). */
  readonly authProvider?: AuthProvider | undefined;
}

/** The file a server's stderr and hintgate's notes about it are written to. */
export function serverLogFile(logDir: string, name: string): string {
  return join(logDir, `${name}.log`);
}

/**
 * Connects to one server, within its `connectMs`.
 *
 * Era negotiation, per transport: over HTTP the SDK's `auto` mode costs one request, so it
 * is used; over stdio `auto` probes with `server/discover` on the same process (our own
 * transport, so no throwaway sibling process is spawned): a 2025-era server answers it with
 * "method not found" and the `initialize` handshake follows on the same pipe. A server that
 * exits on the probe is respawned once with the legacy verdict. Verdicts are returned for
 * reuse (`prior`), so reconnects skip the probe. `era: legacy | modern` in config forces one.
 */
export async function connectServer(options: ConnectOptions): Promise<Connection> {
  const deadline = Date.now() + options.config.timeouts.connectMs;
  try {
    return await connectOnce(options, options.prior, deadline);
  } catch (error) {
    if (options.prior === undefined && isProbeExit(error)) {
      return connectOnce(options, { kind: 'legacy' }, deadline);
    }
    if (isWrongTransport(error, options.config)) {
      return connectOnce(
        { ...options, config: { ...options.config, type: 'sse' } },
        options.prior,
        deadline,
      );
    }
    throw error;
  }
}

async function connectOnce(
  options: ConnectOptions,
  prior: PriorDiscovery | undefined,
  deadline: number,
): Promise<Connection> {
  const { name, config } = options;
  // The OpenAPI parser and its schema validators (about 15 MiB) load only for such servers.
  const transport =
    config.openapi === undefined
      ? createTransport(options)
      : await (await import('./openapi/server.js')).openApiTransport(config);
  const remaining = Math.max(1, deadline - Date.now());
  const child = transport instanceof ChildProcessTransport ? transport : undefined;
  const client = new Client(
    { name: options.identity.name, version: options.identity.version },
    {
      capabilities: DOWNSTREAM_CLIENT_CAPABILITIES,
      versionNegotiation: negotiation(config, remaining),
    },
  );
  options.prepare(client, transport);
  const initialized = observeInitializeResult(transport);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new DownstreamError(
          'DOWNSTREAM_TIMEOUT',
          name,
          `server "${name}" did not complete the MCP handshake within ${config.timeouts.connectMs} ms`,
        ),
      );
    }, remaining);
  });
  try {
    const connecting =
      prior === undefined
        ? client.connect(transport, { timeout: remaining })
        : client.connect(transport, { prior, timeout: remaining });
    await Promise.race([connecting, timedOut]);
  } catch (error) {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    throw explainConnectFailure(name, error, child);
  } finally {
    clearTimeout(timer);
  }
  const discover = client.getDiscoverResult();
  const modern = client.getProtocolEra() === 'modern' && discover !== undefined;
  const verdict: PriorDiscovery = modern ? { kind: 'modern', discover } : { kind: 'legacy' };
  const capabilities = modern
    ? await discoveredCapabilities(client, Math.max(1, deadline - Date.now()))
    : initialized();
  return {
    client,
    transport,
    child,
    prior: verdict,
    capabilities: capabilities ?? { ...client.getServerCapabilities() },
  };
}

/**
 * Watches the handshake for the `initialize` result, to keep its capabilities as sent. The
 * observer is set before the client connects, which the SDK documents as chained (it sees
 * every message the client gets), and stops looking once it has the result.
 */
function observeInitializeResult(transport: Transport): () => JsonObject | undefined {
  let capabilities: JsonObject | undefined;
  const before = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (capabilities === undefined && 'result' in message && isJsonObject(message.result)) {
      const result = message.result;
      if (typeof result['protocolVersion'] === 'string' && isJsonObject(result['capabilities']))
        capabilities = result['capabilities'];
    }
    before?.(message, extra);
  };
  return () => capabilities;
}

const DISCOVER_RESULT = z.looseObject({ capabilities: z.looseObject({}) });

/**
 * A 2026 server's capabilities as sent: the era probe's `server/discover` reply is parsed
 * (and stripped) before the client attaches, so it is asked once more, loosely. Undefined
 * when it does not answer in time (the SDK's view of them then stands).
 */
async function discoveredCapabilities(
  client: Client,
  timeout: number,
): Promise<JsonObject | undefined> {
  try {
    const result = await client.request(
      { method: 'server/discover', params: {} },
      DISCOVER_RESULT,
      { timeout },
    );
    return result.capabilities;
  } catch {
    return undefined;
  }
}

function negotiation(config: ServerConfig, remainingMs: number) {
  switch (config.era) {
    case 'legacy':
      return { mode: 'legacy' as const };
    case 'modern':
      return { mode: { pin: '2026-07-28' } as const, probe: { timeoutMs: remainingMs } };
    case 'auto':
      // Over stdio silence counts as "legacy" once the probe times out; keep that short.
      return {
        mode: 'auto' as const,
        probe: {
          timeoutMs: Math.min(
            remainingMs,
            config.command === undefined ? remainingMs : config.timeouts.probeMs,
          ),
        },
      };
  }
}

function createTransport(options: ConnectOptions): Transport {
  const { name, config } = options;
  if (config.command !== undefined) {
    return new ChildProcessTransport({
      server: name,
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: config.cwd,
      logFile: serverLogFile(options.logDir, name),
      baseEnv: options.baseEnv,
      closeGraceMs: config.timeouts.closeGraceMs,
    });
  }
  const url = new URL(config.url ?? '');
  const requestInit = { headers: { ...config.headers } };
  const authProvider = options.authProvider;
  const init = authProvider === undefined ? { requestInit } : { requestInit, authProvider };
  if (config.type === 'sse') return new SSEClientTransport(url, init);
  return new StreamableHTTPClientTransport(url, init);
}

function isProbeExit(error: unknown): boolean {
  return (
    error instanceof DownstreamError &&
    error.cause instanceof Error &&
    /closed during the server\/discover probe/.test(error.cause.message)
  );
}

/** A streamable HTTP attempt at an old SSE-only server fails with 404 or 405. */
function isWrongTransport(error: unknown, config: ServerConfig): boolean {
  if (config.url === undefined || config.type !== undefined) return false;
  const cause = error instanceof DownstreamError ? error.cause : error;
  return cause instanceof SdkHttpError && (cause.status === 404 || cause.status === 405);
}

function explainConnectFailure(
  name: string,
  error: unknown,
  child: ChildProcessTransport | undefined,
): DownstreamError {
  // A protocol violation the transport detected explains the failure better than its symptom.
  if (child?.failure !== undefined) return child.failure;
  const base =
    error instanceof DownstreamError ? error : fromClientError(name, error, 'the MCP handshake');
  if (child === undefined) return base;
  const details: string[] = [];
  const exit = child.exit;
  if (exit !== undefined && !exit.requested && base.code !== 'DOWNSTREAM_UNAVAILABLE') {
    details.push(`the process exited (${exit.signal ?? `code ${String(exit.code)}`})`);
    const said = stderrReason(exit.stderrTail);
    if (said !== '') details.push(`stderr: ${said}`);
  }
  const garbage = child.garbageSummary;
  if (garbage !== undefined) details.push(garbage);
  if (details.length === 0) return base;
  const code =
    garbage !== undefined && base.code !== 'DOWNSTREAM_UNAVAILABLE'
      ? 'DOWNSTREAM_PROTOCOL'
      : base.code;
  return new DownstreamError(code, name, `${base.message}; ${details.join('; ')}`, undefined, {
    cause: base.cause ?? error,
  });
}

/** A readable reason for a failed connection, for status and logs. */
export function reasonOf(error: unknown): string {
  return errorMessage(error);
}
