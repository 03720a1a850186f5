import type { Hono } from 'hono';
import type { RouteMounter } from '../app.js';
import type { DashboardGateway } from '../ui/data.js';
import {
  catalogFilterFrom,
  findTool,
  globalView,
  queryCatalog,
  serverSummaries,
  toolJson,
} from '../ui/data.js';
import { apiError } from './errors.js';

/**
 * The catalog over HTTP, behind the front's checks (what the dashboard shows, as JSON):
 *
 * - `GET /api/servers`: every enabled server with its state (`up` with era and protocol
 *   version, `down` with the reason and the next retry), and its tool count;
 * - `GET /api/tools?q&server&hint&source&conflict=1&page&size`: one page of the tools
 *   (global overrides applied), filtered on the server like the catalog page:
 *   `{ total, page, pages, size, tools: [{ …, annotations, sources, reasons, conflicts }] }`;
 *   a bad `hint` or `source` is a 400 naming the accepted values;
 * - `GET /api/tools/:ref`: one tool by refId, namespaced or flattened name (404 when none).
 */
export function toolsApi(gateway: DashboardGateway): RouteMounter {
  return (app: Hono) => {
    app.get('/api/servers', (c) => c.json({ servers: serverSummaries(gateway) }));
    app.get('/api/tools', (c) => {
      try {
        const result = queryCatalog(
          globalView(gateway).entries,
          catalogFilterFrom((name) => c.req.query(name)),
        );
        return c.json({ ...result, tools: result.tools.map(toolJson) });
      } catch (error) {
        return apiError(c, error);
      }
    });
    app.get('/api/tools/:ref', (c) => {
      const entry = findTool(gateway, c.req.param('ref'));
      if (entry === undefined)
        return c.json(
          { error: { code: 'NOT_FOUND', message: `no tool "${c.req.param('ref')}"` } },
          404,
        );
      return c.json({
        ...toolJson(entry),
        inputSchema: entry.inputSchema ?? null,
        outputSchema: entry.outputSchema ?? null,
      });
    });
  };
}
