import { HintgateError } from '../core/errors.js';
import { HINT_FIELDS } from '../core/annotations/types.js';
import type { CatalogEntry } from '../gateway/catalog-entry.js';
import { toolMeta } from '../gateway/catalog-entry.js';
import { createGateway } from '../gateway/gateway.js';
import { describeDown } from '../gateway/servers.js';
import type { Downstream } from '../mcp/downstream.js';
import { BADGE_LEGEND, hintBadges } from './badges.js';
import { loadCliConfig } from './config-file.js';
import { writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import { VERSION } from './version.js';

/** Options of `hintgate tools`. */
export interface ToolsOptions {
  readonly config?: string;
  readonly json?: boolean;
}

/** Connects to every configured server, prints the catalog, and closes them. */
export async function runTools(options: ToolsOptions): Promise<void> {
  const loaded = await loadCliConfig(options.config);
  const gateway = createGateway({
    config: loaded.config,
    dataDir: loaded.dataDir,
    identity: { name: 'hintgate', version: VERSION },
    baseEnv: process.env,
    reconnect: false,
  });
  try {
    await gateway.start();
    const servers = gateway.servers.all();
    const entries = gateway.catalog.entries();
    await writeOut(
      options.json === true
        ? formatJson(toolsJson(servers, entries))
        : toolsTable(servers, entries),
    );
    const down = servers.filter((server) => server.status.state !== 'up');
    if (down.length > 0) {
      throw new HintgateError(
        'DOWNSTREAM_UNAVAILABLE',
        `${down.length} of ${servers.length} server(s) did not come up`,
      );
    }
  } finally {
    await gateway.close();
  }
}

function toolsTable(servers: readonly Downstream[], entries: readonly CatalogEntry[]): string {
  const table = formatTable(entries, [
    { heading: 'tool', cell: (entry) => entry.flattenedName },
    { heading: 'server', cell: (entry) => entry.server },
    { heading: 'hints', cell: hintBadges },
    { heading: 'title', cell: (entry) => String(entry.effective.annotations.title ?? '') },
  ]);
  const lines = [entries.length === 0 ? '(no tools)' : table, '', BADGE_LEGEND, ''];
  for (const server of servers) {
    const status = server.status;
    if (status.state === 'up') {
      lines.push(
        `server "${server.name}": up, ${server.snapshot.tools.length} tool(s), protocol ${status.protocolVersion}`,
      );
    } else if (status.state === 'down') {
      lines.push(describeDown(server.name, status));
    } else {
      lines.push(`server "${server.name}": ${status.state}`);
    }
  }
  for (const entry of entries) {
    for (const conflict of entry.effective.conflicts) {
      lines.push(
        `conflict: ${entry.flattenedName}: ${conflict.reason}; acting on ${conflict.field}=${String(conflict.resolved)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function toolsJson(servers: readonly Downstream[], entries: readonly CatalogEntry[]): unknown {
  return {
    servers: servers.map((server) => ({
      name: server.name,
      ...server.status,
      tools: server.snapshot.tools.length,
    })),
    tools: entries.map((entry) => {
      const meta = toolMeta(entry);
      const annotations: Record<string, unknown> = {};
      const effective = entry.effective.annotations;
      if (effective.title !== undefined) annotations['title'] = effective.title;
      for (const field of HINT_FIELDS) annotations[field] = effective[field];
      return {
        server: entry.server,
        name: entry.name,
        namespacedName: entry.namespacedName,
        flattenedName: entry.flattenedName,
        refId: entry.refId,
        description: entry.description,
        declared: entry.declared ?? null,
        annotations,
        extensions: meta.extensions,
        sources: meta.sources,
        reasons: meta.reasons,
        conflicts: meta.conflicts,
      };
    }),
  };
}
