import { z } from 'zod';
import type { NamePrefix } from '../core/refs/names.js';
import { PRINCIPAL_NAME, accessSchema } from './access-schema.js';
import { annotationsSchema } from './annotations-schema.js';
import { dynamicSchema, serverDynamicSchema } from './dynamic-schema.js';
import { pinningSchema, serverPinningSchema } from './pinning-schema.js';
import { policySchema } from './policy-schema.js';

/** Keys other MCP clients put in `mcpServers` entries; accepted and ignored. */
const FOREIGN_SERVER_KEYS = {
  disabled: z.boolean().optional(),
  autoApprove: z.array(z.string()).optional(),
  alwaysAllow: z.array(z.string()).optional(),
  timeout: z.number().optional(),
  transportType: z.string().optional(),
  description: z.string().optional(),
  // VS Code (`.vscode/mcp.json`): a file of variables, and its development-mode settings.
  envFile: z.string().optional(),
  dev: z.record(z.string(), z.unknown()).optional(),
};

const stringMap = z.record(z.string(), z.string(), 'expected an object of strings');

const timeoutsSchema = z.strictObject({
  /** How long a server may take to start and list its tools. */
  connectMs: z.number().int().positive().default(30_000),
  /**
   * How long one tools/call may take, for tools without an `estimatedDuration` (see
   * `policy.timeouts`) or a `timeoutMs` policy rule.
   */
  callMs: z.number().int().positive().default(60_000),
  /** How long other requests (lists, reads) may take. */
  requestMs: z.number().int().positive().default(30_000),
  /** Over stdio, how long the 2026 `server/discover` probe waits before assuming a 2025 server. */
  probeMs: z.number().int().positive().default(2_000),
  /** At shutdown, each step (stdin closed, SIGTERM) waits this long before the next. */
  closeGraceMs: z.number().int().positive().default(2_000),
  /**
   * An `auth: per-user` server: one principal's connection is closed after this long
   * without a request (the next one opens it again).
   */
  idleMs: z.number().int().positive().default(300_000),
});

/** A server's timeouts when it sets none: the one place their defaults live. */
export const DEFAULT_TIMEOUTS = timeoutsSchema.parse({});

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

/**
 * One connection of a logical server that has several (`replicas`): its transport, its
 * `weight` (calls that change things go only to primaries, weight >= 50; other calls are
 * shared by weight) and its `categories` (idempotent calls prefer `caching` replicas).
 * `env`, `headers` and `cwd` add to (and override) the server's own.
 */
const replicaSchema = z
  .strictObject({
    ...transportFields,
    /** A name for logs and the audit log (default: the replica's index). */
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'expected letters, digits, "_" and "-"')
      .optional(),
    weight: z.number().int().min(1).max(100).default(100),
    categories: z.array(z.string().min(1)).default([]),
  })
  .superRefine((replica, ctx) => {
    if ((replica.command === undefined) === (replica.url === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected either "command" (stdio) or "url" (HTTP)',
      });
    }
  });

/**
 * An HTTP API served as a server: each operation of its OpenAPI document becomes a tool
 * (`src/downstream/openapi/`). `${VAR}` is expanded in `openapi`, `baseUrl`, `headers` and
 * `credentials`; a relative `openapi` path is read from the config file's directory.
 */
const openApiFields = {
  /** The OpenAPI 3.0 or 3.1 document (JSON or YAML): a file path or an http(s) URL. */
  openapi: z.string('expected a file path or URL').min(1, 'expected a file path or URL').optional(),
  /** Where requests go; default: the document's first `servers` URL. */
  baseUrl: z.url('expected a URL (http:// or https://)').optional(),
  /**
   * Which operations become tools: operationIds, tags, or path globs (`/pets/*`, `/admin/**`,
   * optionally after a method: `GET /pets/*`). Default: every operation.
   */
  include: z.array(z.string().min(1, 'expected a non-empty pattern')).optional(),
  /** Operations left out, by the same patterns as `include`; applied after it. */
  exclude: z.array(z.string().min(1, 'expected a non-empty pattern')).optional(),
  /**
   * Secrets for the document's security schemes, by scheme name: a bearer token, `user:password`
   * for basic auth, or an API key (sent in the header or query parameter the scheme names).
   */
  credentials: stringMap.optional(),
};

function openApiIssues(
  server: {
    command?: string | undefined;
    url?: string | undefined;
    type?: string | undefined;
    replicas: unknown[];
  },
  ctx: z.RefinementCtx,
): void {
  for (const key of ['command', 'url', 'type'] as const) {
    if (server[key] !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `has both "openapi" and "${key}"; keep one`,
      });
  }
  if (server.replicas.length > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['replicas'],
      message: '"openapi" servers have no replicas',
    });
}

/**
 * The OAuth client hintgate is to an HTTP server that asks for authorization: a client
 * registered beforehand (`clientId`, `clientSecret` for a confidential one; else dynamic
 * client registration), the scope to ask for (else the server's), and the loopback port the
 * login's redirect comes back to (0: any free port; a client registered beforehand needs
 * the fixed one it was registered with).
 */
const serverOAuthSchema = z.strictObject({
  clientId: z.string().min(1, 'expected a client id').optional(),
  clientSecret: z.string().min(1, 'expected a client secret').optional(),
  scope: z.string().min(1, 'expected space-separated scopes').optional(),
  callbackPort: z.number().int().min(0).max(65535).default(0),
});

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
    /** Several connections serving this one server (its tools are listed once). */
    replicas: z.array(replicaSchema).default([]),
    /** Dynamic annotations of this server's tools: its rules, forwarding, classifiers. */
    dynamic: serverDynamicSchema.default(serverDynamicSchema.parse({})),
    ...openApiFields,
    /** Tool pinning for this server (each key falls back to the global `pinning`). */
    pinning: serverPinningSchema.default({}),
    /**
     * Authorization to an HTTP server that asks for it: `oauth` (the default) logs in once
     * for the gateway (`hintgate auth login <server>`), `per-user` keeps one login, and one
     * connection, per principal (`hintgate auth login <server> --principal <name>`), `none`
     * never sends a token. A server whose `headers` carry an
     * `Authorization` header is sent that, never an OAuth token.
     */
    auth: z
      .enum(['oauth', 'per-user', 'none'], 'expected oauth, per-user or none')
      .default('oauth'),
    /** The OAuth client settings (see `auth`). */
    oauth: serverOAuthSchema.optional(),
    /**
     * How clients see this server's tools, prompts and resources: `server_name` (true, the
     * default), under a prefix of its own (`"gh"`: `gh_name`), or under the server's own
     * names (false). Two servers whose names meet are refused at start.
     */
    prefix: z
      .union(
        [
          z.boolean(),
          z
            .string()
            .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected up to 64 letters, digits, "_" and "-"'),
        ],
        'expected true, false or a prefix of letters, digits, "_" and "-"',
      )
      .default(true),
  })
  .superRefine((server, ctx) => {
    if (server.openapi !== undefined) {
      openApiIssues(server, ctx);
      return;
    }
    for (const key of ['baseUrl', 'include', 'exclude', 'credentials'] as const) {
      if (server[key] !== undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" needs "openapi"` });
    }
    if (server.replicas.length > 0 && (server.command !== undefined || server.url !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'has both "replicas" and its own "command" or "url"; list every transport in "replicas"',
      });
    }
    if (server.command === undefined && server.url === undefined && server.replicas.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected "command" (stdio), "url" (HTTP) or "openapi" (an HTTP API)',
      });
    }
    if (server.command !== undefined && server.url !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'has both "command" and "url"; keep one' });
    }
    if (server.auth === 'per-user' && server.replicas.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['auth'],
        message: '"per-user" needs one "url" (a server with "replicas" logs in once, as "oauth")',
      });
    }
    if (server.oauth !== undefined && server.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['oauth'], message: '"oauth" needs "url"' });
    }
    if (server.oauth?.clientSecret !== undefined && server.oauth.clientId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['oauth', 'clientSecret'],
        message: '"clientSecret" needs "clientId"',
      });
    }
    if (server.type === 'stdio' && server.command === undefined) {
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'type stdio needs "command"' });
    }
    if (server.type !== undefined && server.type !== 'stdio' && server.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['type'], message: `type ${server.type} needs "url"` });
    }
  });

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

const principalName = z
  .string('expected a name')
  .regex(PRINCIPAL_NAME, 'expected a name of letters, digits, ".", "_", "@" and "-" (at most 64)');

/**
 * One named bearer token of the HTTP front: a principal. The secret comes from exactly one
 * of `token` (in the file), `tokenFile` (a file holding it, relative to the config file) or
 * `tokenEnv` (an environment variable).
 */
const namedTokenSchema = z
  .strictObject({
    name: principalName,
    token: z.string().min(16, 'expected a token of at least 16 characters').optional(),
    tokenFile: z.string().min(1, 'expected a file name').optional(),
    tokenEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name')
      .optional(),
    /** The groups this principal belongs to, for `access` rules and approvers. */
    groups: z.array(principalName).default([]),
  })
  .superRefine((entry, ctx) => {
    const given = [entry.token, entry.tokenFile, entry.tokenEnv].filter((v) => v !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: 'expected exactly one of "token", "tokenFile" or "tokenEnv"',
      });
  });

/**
 * The HTTP front as an OAuth 2.1 resource server (beside the named tokens): JWT access
 * tokens of `issuer`, for `audience`, checked against the issuer's keys (JWKS).
 */
const oauthResourceSchema = z.strictObject({
  /** The authorization server's issuer identifier (its `iss`). */
  issuer: z.url('expected the issuer URL (https://…)'),
  /** The audience tokens must be issued for (`aud`): this gateway's resource identifier. */
  audience: z.string().min(1, "expected the audience (this gateway's resource identifier)"),
  /** Where the issuer's keys are; default: `jwks_uri` of the issuer's metadata. */
  jwksUri: z.url('expected a URL').optional(),
  /** How far clocks may disagree when checking `exp` and `nbf`, in seconds. */
  clockToleranceSec: z.number().int().nonnegative().max(600).default(30),
  /** The claim naming the principal. */
  principalClaim: z.string().min(1).default('sub'),
  /** The claim holding the principal's groups (an array, or a space-separated string). */
  groupsClaim: z.string().min(1).default('groups'),
  /**
   * This front's `/mcp` URL as clients reach it, for the protected-resource metadata;
   * default: from each request's Host.
   */
  resource: z.url('expected a URL').optional(),
  /** Scopes to advertise in the protected-resource metadata. */
  scopes: z.array(z.string().min(1)).default([]),
});

const httpSchema = z.strictObject({
  /** `host:port` to serve streamable HTTP on, e.g. `127.0.0.1:8787`. */
  listen: z
    .string()
    .regex(/^[^\s:]+:\d+$|^\[[0-9a-fA-F:]+\]:\d+$/, 'expected host:port')
    .optional(),
  /** The bearer token clients must send; required unless bound to loopback with auth off. */
  token: z.string().min(16, 'expected a token of at least 16 characters').optional(),
  /**
   * Named bearer tokens, one per principal (person, agent or service), with their groups.
   * The single `token` (or `--token-file`, `HINTGATE_TOKEN`) is one more principal, `bearer`.
   */
  tokens: z
    .array(namedTokenSchema)
    .default([])
    .superRefine((tokens, ctx) => {
      const seen = new Set<string>();
      for (const [index, entry] of tokens.entries()) {
        if (seen.has(entry.name))
          ctx.addIssue({
            code: 'custom',
            path: [index, 'name'],
            message: `principal "${entry.name}" is named twice`,
          });
        seen.add(entry.name);
      }
    }),
  /**
   * A token for the dashboard only (principal `ui`): it signs in at the login page, never
   * on `/mcp` or `/api`, so the people who look and approve need no client's token.
   * `HINTGATE_UI_TOKEN` wins over it.
   */
  uiToken: z.string().min(16, 'expected a token of at least 16 characters').optional(),
  /** Accept OAuth access tokens (JWT) of an authorization server, beside the tokens. */
  oauth: oauthResourceSchema.optional(),
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
  startupWaitMs: z.number().int().nonnegative().default(30_000),
});

/** Toolsets: which one sessions start with, and when the model sees the meta tools. */
const toolsetsSchema = z.strictObject({
  /** The toolset every session starts with (until it equips another or unequips). */
  default: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected a toolset name (lowercase letters, digits, "-", "_")')
    .optional(),
  /**
   * When the model sees the toolset meta tools (build, equip, annotate…): `never` (the
   * default: an agent cannot rewrite its own toolset unless allowed), `always`, or
   * `until-equipped` (shown until a toolset is equipped, the default toolset included).
   */
  configurationMode: z
    .enum(['always', 'never', 'until-equipped'], 'expected always, never or until-equipped')
    .default('never'),
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
  /** Confirmation, caching, retry, rate limits, routing and audit of tool calls. */
  policy: policySchema.default(policySchema.parse({})),
  /** Where hintgate keeps its data (the embedded store, logs), relative to the config file. */
  dataDir: z.string().default('.hintgate'),
  /**
   * Where toolsets, notes, overrides, approvals and the audit log live: a `postgres://` URL
   * (shared by replicas), or absent (or `pglite`) for the embedded store in `dataDir`.
   */
  store: z
    .string()
    .regex(/^(pglite|postgres(ql)?:\/\/.+)$/, 'expected "pglite" or a postgres:// URL')
    .optional(),
  toolsets: toolsetsSchema.default(toolsetsSchema.parse({})),
  /** Rules refining a call's annotations from its arguments, for every server's tools. */
  dynamic: dynamicSchema.default(dynamicSchema.parse({})),
  /** Who may see and call which tools, and who may approve calls. */
  access: accessSchema.default(accessSchema.parse({})),
  /** Tool pinning: how drift from the pinned tool definitions is handled. */
  pinning: pinningSchema.default(pinningSchema.parse({})),
  /**
   * The secret that seals stored OAuth tokens (AES-256-GCM, key derived with scrypt); the
   * environment's `HINTGATE_SECRET_KEY` takes its place when absent. Write `${VAR}` here
   * rather than the secret itself.
   */
  secretKey: z.string().min(16, 'expected a secret of at least 16 characters').optional(),
});

/**
 * The prefix of each server's names for clients (see the server key `prefix`): its own name
 * by default, its custom prefix, or none (`false`). Unknown servers get their own name.
 */
export function namePrefixes(
  servers: Readonly<Record<string, { readonly prefix: boolean | string }>>,
): (server: string) => NamePrefix {
  return (server) => {
    const prefix = servers[server]?.prefix ?? true;
    return prefix === true ? server : prefix;
  };
}

/** A validated config, every default filled in. */
export type Config = z.output<typeof configSchema>;
/** One validated server entry. */
export type ServerConfig = z.output<typeof serverSchema>;
/** One replica of a server. */
export type ReplicaConfig = z.output<typeof replicaSchema>;
/** The front's OAuth resource-server settings. */
export type OAuthResourceConfig = z.output<typeof oauthResourceSchema>;
/** The config as written in a file. */
export type ConfigInput = z.input<typeof configSchema>;
