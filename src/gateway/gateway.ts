import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import type { ClientIdentity } from '../mcp/downstream-connect.js';
import { FrontHub } from '../mcp/front-hub.js';
import { GatewayBackend } from './backend.js';
import { Catalog } from './catalog.js';
import { Directory } from './directory.js';
import { annotate } from './pipeline/annotate.js';
import { compose } from './pipeline/compose.js';
import { forward } from './pipeline/forward.js';
import { resolve } from './pipeline/resolve.js';
import { ServerSet } from './servers.js';

/** What a gateway is built from. */
export interface GatewayOptions {
  readonly config: Config;
  /** The data directory (absolute); server logs go to its `logs/`. */
  readonly dataDir: string;
  readonly identity: ClientIdentity;
  /** The environment spawned servers inherit from (a safe subset of it). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Retry servers that fail or crash (default true). */
  readonly reconnect?: boolean;
  /** Where status lines go (the CLI: stderr). */
  readonly log?: (line: string) => void;
}

/** A running gateway: its servers, catalog and the backend its fronts serve. */
export interface Gateway {
  readonly catalog: Catalog;
  readonly directory: Directory;
  readonly servers: ServerSet;
  readonly hub: FrontHub;
  readonly backend: GatewayBackend;
  /** Starts every server at once; resolves when each has settled (up or down). */
  start(): Promise<void>;
  /** Closes every server and ends their processes. */
  close(): Promise<void>;
}

/**
 * Wires a gateway: the downstream servers from config, the catalog and directory they fill,
 * the call pipeline (resolve, annotate, forward; later steps go between), and the backend
 * and hub the fronts use. Holds no logic of its own.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { config } = options;
  const catalog = new Catalog();
  const directory = new Directory();
  const hub = new FrontHub();
  const servers = new ServerSet({
    config,
    logDir: join(options.dataDir, 'logs'),
    identity: options.identity,
    baseEnv: options.baseEnv,
    reconnect: options.reconnect ?? true,
    catalog,
    directory,
    hub,
    log: options.log ?? (() => undefined),
  });
  const downReason = (server: string): string => {
    const status = servers.get(server)?.status;
    return status?.state === 'down'
      ? `server "${server}" is down: ${status.reason}`
      : `server "${server}" is not available`;
  };
  const handleCall = compose([
    resolve(catalog, downReason),
    annotate(),
    forward(
      (server) => servers.get(server),
      (server) => config.mcpServers[server]?.timeouts.callMs ?? 60_000,
    ),
  ]);
  const backend = new GatewayBackend({
    serverInfo: { name: options.identity.name, version: options.identity.version },
    catalog,
    directory,
    servers,
    handleCall,
    startupWaitMs: config.gateway.startupWaitMs,
  });
  return {
    catalog,
    directory,
    servers,
    hub,
    backend,
    start: () => {
      backend.startClock();
      return servers.start();
    },
    close: () => servers.close(),
  };
}
