import { z } from 'zod';
import { annotationsSchema } from './annotations-schema.js';

/** Keys other MCP clients put in `mcpServers` entries; accepted and ignored. */
const FOREIGN_SERVER_KEYS = {
  disabled: z.boolean().optional(),
  autoApprove: z.array(z.string()).optional(),
  alwaysAllow: z.array(z.string()).optional(),
  timeout: z.number().optional(),
  transportType: z.string().optional(),
  description: z.string().optional(),
};

const stringMap = z.record(z.string(), z.string(), 'expected an object of strings');

const timeoutsSchema = z.strictObject({
  /** How long a server may take to start and list its tools. */
  connectMs: z.number().int().positive().default(30_000),
  /** How long one tools/call may take (unless the tool's estimatedDuration says more). */
  callMs: z.number().int().positive().default(60_000),
  /** How long other requests (lists, reads) may take. */
  requestMs: z.number().int().positive().default(30_000),
  /** Over stdio, how long the 2026 `server/discover` probe waits before assuming a 2025 server. */
  probeMs: z.number().int().positive().default(2_000),
  /** At shutdown, each step (stdin closed, SIGTERM) waits this long before the next. */
  closeGraceMs: z.number().int().positive().default(2_000),
});

/** How a server that failed or crashed is retried: exponential backoff with jitter. */
const reconnectSchema = z.strictObject({
  /** The first retry waits this long; each next one twice as long. */
  initialDelayMs: z.number().int().positive().default(500),
  /** The longest wait between retries. */
  maxDelayMs: z.number().int().positive().default(30_000),
});

/** Where one transport of a server lives: a command to spawn or a URL. */
const transportFields = {
  command: z.string('expected a string').min(1, 'expected a non-empty command').optional(),
  args: z.array(z.string('expected a string'), 'expected an array of strings').default([]),
  env: stringMap.default({}),
  cwd: z.string('expected a string').optional(),
  url: z.url('expected a URL (http:// or https://)').optional(),
  headers: stringMap.default({}),
  type: z
    .enum(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'], {
      error: 'expected one of stdio, http, streamable-http, sse',
    })
    .optional(),
};

/** One downstream MCP server: Claude Desktop's and Cursor's keys, and hintgate's beside them. */
export const serverSchema = z
  .strictObject({
    ...transportFields,
    ...FOREIGN_SERVER_KEYS,
    trust: z.enum(['trusted', 'untrusted'], 'expected trusted or untrusted').default('untrusted'),
    defaultAnnotations: annotationsSchema.optional(),
    enabled: z.boolean().default(true),
    timeouts: timeoutsSchema.default(timeoutsSchema.parse({})),
    /**
     * The protocol era to speak: `auto` asks with the 2026 `server/discover` and falls back
     * to the 2025 `initialize`; `legacy` (2025-11-25) or `modern` (2026-07-28) force one.
     */
    era: z.enum(['auto', 'legacy', 'modern'], 'expected auto, legacy or modern').default('auto'),
    reconnect: reconnectSchema.default(reconnectSchema.parse({})),
  })
  .superRefine((server, ctx) => {
    if (server.command === undefined && server.url === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected either "command" (stdio) or "url" (HTTP)',
      });
    }
    if (server.command !== undefined && server.url !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'has both "command" and "url"; keep one' });
    }
    if (server.type === 'stdio' && server.command === undefined) {
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'type stdio needs "command"' });
    }
    if (server.type !== undefined && server.type !== 'stdio' && server.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['type'], message: `type ${server.type} needs "url"` });
    }
  });

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

const httpSchema = z.strictObject({
  /** `host:port` to serve streamable HTTP on, e.g. `127.0.0.1:8787`. */
  listen: z
    .string()
    .regex(/^[^\s:]+:\d+$|^\[[0-9a-fA-F:]+\]:\d+$/, 'expected host:port')
    .optional(),
  /** The bearer token clients must send; required unless bound to loopback with auth off. */
  token: z.string().min(16, 'expected a token of at least 16 characters').optional(),
  /** Turn bearer auth off; only allowed on a loopback address. */
  auth: z.boolean().default(true),
  /** Origins allowed besides the server's own (browser clients). */
  allowedOrigins: z.array(z.string()).default([]),
  /** Host header values allowed besides the listen address and localhost names. */
  allowedHosts: z.array(z.string()).default([]),
});

const gatewaySchema = z.strictObject({
  /**
   * How long the first tools/list waits for servers still starting; afterwards lists answer
   * at once with the servers that are up (the others' tools join with list_changed).
   */
  startupWaitMs: z.number().int().nonnegative().default(3_000),
});

/** The whole config file. */
export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z
    .record(
      z.string().regex(SERVER_NAME, 'server names may hold only letters, digits, "_" and "-"'),
      serverSchema,
    )
    .default({}),
  http: httpSchema.default(httpSchema.parse({})),
  gateway: gatewaySchema.default(gatewaySchema.parse({})),
  /** Where hintgate keeps its data (the embedded store, logs), relative to the config file. */
  dataDir: z.string().default('.hintgate'),
});

/** A validated config, every default filled in. */
export type Config = z.output<typeof configSchema>;
/** One validated server entry. */
export type ServerConfig = z.output<typeof serverSchema>;
/** The config as written in a file. */
export type ConfigInput = z.input<typeof configSchema>;
