import type { DynamicRule } from '../../../src/core/dynamic/rules.js';
import type { CatalogEntry } from '../../../src/gateway/catalog-entry.js';
import { Catalog } from '../../../src/gateway/catalog.js';
import { compileScopedRules } from '../../../src/gateway/dynamic/settings.js';
import type { ScopedRule, ServerDynamicSettings } from '../../../src/gateway/dynamic/spec.js';

/** The extension's identifier, written out as tools and capabilities carry it. */
export const EXTENSION = 'io.modelcontextprotocol/tool-resolution';

/** A `query` tool taking SQL that its (untrusted) server declares read-only. */
export const QUERY = {
  name: 'query',
  description: 'Runs a SQL statement.',
  inputSchema: {
    type: 'object',
    properties: { sql: { type: 'string' } },
    required: ['sql'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/** The proposal's `manage_files`, declared as its worst case and marked by its server. */
export const MANAGE_FILES = {
  name: 'manage_files',
  description: 'Read, append to, replace or delete a file',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      action: { type: 'string', enum: ['read', 'append', 'replace', 'delete'] },
    },
    required: ['path', 'action'],
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  dynamicAnnotations: true,
  _meta: { [EXTENSION]: { resolvable: true }, 'x/keep': 1 },
};

/** A tool no classifier reads: a job by name, declared destructive. */
export const RUN_JOB = {
  name: 'run_job',
  description: 'Runs a maintenance job.',
  inputSchema: {
    type: 'object',
    properties: { job: { type: 'string', enum: ['report', 'purge'] } },
    required: ['job'],
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
};

/** Config rules compiled as the gateway compiles them (scope `config`). */
export function configRules(rules: readonly DynamicRule[]): ScopedRule[] {
  return compileScopedRules(rules, 'config', 'config', 'dynamic.rules');
}

/** Dynamic settings of a server: classifiers on, nothing forwarded, no rules, unless given. */
export function dynamicSettings(
  partial: Partial<ServerDynamicSettings> = {},
): ServerDynamicSettings {
  return {
    rules: [],
    classifiers: true,
    serverResolve: false,
    serverAnnotations: false,
    timeoutMs: 1_000,
    ...partial,
  };
}

/** A catalog with one server (default `db`, untrusted) holding `tools`. */
export function dynamicCatalog(
  tools: readonly Record<string, unknown>[],
  options: {
    server?: string;
    trust?: 'trusted' | 'untrusted';
    dynamic?: Partial<ServerDynamicSettings>;
  } = {},
): Catalog {
  const catalog = new Catalog();
  catalog.setServer(options.server ?? 'db', tools, {
    trust: options.trust ?? 'untrusted',
    dynamic: dynamicSettings(options.dynamic),
  });
  return catalog;
}

/** The entry of `server_name`, or a loud failure. */
export function entryOf(catalog: Catalog, flattened: string): CatalogEntry {
  const entry = catalog.resolve(flattened);
  if (entry === undefined) throw new Error(`no tool ${flattened}`);
  return entry;
}

/** hintgate's `_meta` of a listed tool. */
export function hintgateMeta(listed: Record<string, unknown>): Record<string, unknown> {
  return (listed['_meta'] as Record<string, Record<string, unknown>>)['dev.hintgate/tool'] ?? {};
}
