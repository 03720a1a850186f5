import type { Config } from '../config/schema.js';
import type { ClientIdentity } from '../mcp/downstream-connect.js';
import type { DownstreamStatus, ListKind } from '../mcp/downstream.js';
import { Downstream } from '../mcp/downstream.js';
import type { FrontHub } from '../mcp/front-hub.js';
import type { Catalog } from './catalog.js';
import type { Directory } from './directory.js';

/** Options of {@link ServerSet}. */
export interface ServerSetOptions {
  readonly config: Config;
  readonly logDir: string;
  readonly identity: ClientIdentity;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly reconnect: boolean;
  readonly catalog: Catalog;
  readonly directory: Directory;
  readonly hub: FrontHub;
  /** One line per status change, for the gateway's stderr. */
  readonly log: (line: string) => void;
}

/**
 * The enabled downstream servers, and the bridge from what they report to the catalog, the
 * prompt and resource directory and the connected clients: a server coming up adds its
 * tools, one going down removes them (remembering their names, so calls get "server down"),
 * a list change re-reads that one list; clients hear each change once per burst.
 */
export class ServerSet {
  private readonly servers = new Map<string, Downstream>();

  constructor(private readonly options: ServerSetOptions) {
    for (const [name, config] of Object.entries(options.config.mcpServers)) {
      if (!config.enabled || config.disabled === true) continue;
      this.servers.set(
        name,
        new Downstream({
          name,
          config,
          identity: options.identity,
          logDir: options.logDir,
          reconnect: options.reconnect,
          baseEnv: options.baseEnv,
          events: {
            status: (server) => this.onStatus(server),
            listChanged: (server, kind) => this.onListChanged(server, kind),
            resourceUpdated: (_server, params) => options.hub.resourceUpdated(params),
            log: (server, params) => {
              const logger =
                typeof params['logger'] === 'string'
                  ? `${server.name}/${params['logger']}`
                  : server.name;
              options.hub.log({ ...params, logger });
            },
          },
        }),
      );
    }
  }

  /** The server named `name`, if enabled. */
  get(name: string): Downstream | undefined {
    return this.servers.get(name);
  }

  /** Every enabled server, by name. */
  all(): readonly Downstream[] {
    return [...this.servers.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Starts connecting every server at once; resolves when each has settled (up or down). */
  async start(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.start()));
  }

  /** Resolves when every server has settled once. */
  async settled(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.settled()));
  }

  /** Closes every server (ending every spawned process group), all at once. */
  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.close()));
  }

  private onStatus(server: Downstream): void {
    const { catalog, directory, hub } = this.options;
    const status = server.status;
    if (status.state === 'up') {
      const snapshot = server.snapshot;
      const settings = {
        trust: server.config.trust,
        defaultAnnotations: server.config.defaultAnnotations,
      };
      if (catalog.setServer(server.name, snapshot.tools, settings).changed) hub.changed('tools');
      this.notifyDirectory(directory.setServer(server.name, snapshot));
      this.options.log(
        `server "${server.name}" is up: ${snapshot.tools.length} tool(s), protocol ${status.protocolVersion}`,
      );
      return;
    }
    if (catalog.removeServer(server.name, { remember: true }).changed) hub.changed('tools');
    this.notifyDirectory(directory.removeServer(server.name));
    if (status.state === 'down') this.options.log(describeDown(server.name, status));
  }

  private onListChanged(server: Downstream, kind: ListKind): void {
    const { catalog, directory, hub } = this.options;
    const snapshot = server.snapshot;
    if (kind === 'tools') {
      const settings = {
        trust: server.config.trust,
        defaultAnnotations: server.config.defaultAnnotations,
      };
      if (catalog.setServer(server.name, snapshot.tools, settings).changed) hub.changed('tools');
    } else {
      this.notifyDirectory(directory.setServer(server.name, snapshot));
    }
  }

  private notifyDirectory(change: { prompts: boolean; resources: boolean }): void {
    if (change.prompts) this.options.hub.changed('prompts');
    if (change.resources) this.options.hub.changed('resources');
  }
}

/** "server "x" is down: reason; retrying in 2 s". */
export function describeDown(
  name: string,
  status: Extract<DownstreamStatus, { state: 'down' }>,
): string {
  const retry =
    status.retryAt === undefined
      ? ''
      : `; retrying in ${Math.max(0, Math.round((status.retryAt - Date.now()) / 100) / 10)} s`;
  return `server "${name}" is down: ${status.reason}${retry}`;
}
