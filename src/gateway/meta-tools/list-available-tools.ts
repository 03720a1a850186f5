import * as z from 'zod';
import type { MetaTool } from './define.js';
import { defineMetaTool } from './define.js';
import { toolSummary } from './shapes.js';

const input = z.strictObject({
  server: z
    .string()
    .min(1, 'must be a server name')
    .optional()
    .describe('Only the tools of this server'),
  search: z
    .string()
    .min(1, 'must not be empty')
    .optional()
    .describe('Only tools whose name or description contains this text (case-insensitive)'),
  limit: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(500, 'must be at most 500')
    .default(100)
    .describe('At most this many tools (default 100)'),
  offset: z
    .number()
    .int('must be a whole number')
    .min(0, 'must not be negative')
    .default(0)
    .describe('Skip this many matching tools (for the next page)'),
});

/** `list-available-tools`: every tool of every server, to choose a toolset from. Read-only. */
export const listAvailableTools: MetaTool = defineMetaTool({
  name: 'list-available-tools',
  title: 'List available tools',
  description:
    'List the tools of every connected MCP server (not only the equipped toolset), with their namespacedName and refId for build-toolset and add-tool-annotation. Filter by server or text; page with limit and offset.',
  input,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  run(args, ctx) {
    const needle = args.search?.toLowerCase();
    const source =
      args.server === undefined ? ctx.catalog.entries() : ctx.catalog.entriesOf(args.server);
    const matching =
      needle === undefined
        ? source
        : source.filter(
            (entry) =>
              entry.namespacedName.toLowerCase().includes(needle) ||
              (entry.description ?? '').toLowerCase().includes(needle),
          );
    const page = matching.slice(args.offset, args.offset + args.limit);
    const next = args.offset + page.length;
    const servers = [...new Set(ctx.catalog.entries().map((entry) => entry.server))];
    const data = {
      total: matching.length,
      offset: args.offset,
      ...(next < matching.length ? { nextOffset: next } : {}),
      servers,
      tools: page.map((entry) => toolSummary(entry)),
    };
    const text =
      `${matching.length} tool(s) match${next < matching.length ? `; showing ${args.offset + 1}-${next}, call again with offset ${next} for more` : ''}.\n\n` +
      JSON.stringify(data, null, 2);
    return Promise.resolve({ text, data });
  },
});
