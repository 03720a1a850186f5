import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { HintgateError } from '../core/errors.js';
import { clientDataDir, isClientFile, userDataDir, withoutClientKeys } from './client-files.js';
import type { ConfigIssue } from './issues.js';
import { policyReferenceIssues } from './policy-schema.js';
import type { Config } from './schema.js';
import { configSchema } from './schema.js';

export type { ConfigIssue } from './issues.js';

/** A config that cannot be used; `issues` names every bad key. */
export class ConfigError extends HintgateError {
  constructor(
    readonly file: string,
    readonly issues: readonly ConfigIssue[],
  ) {
    super(
      'CONFIG_INVALID',
      `${file}: invalid config\n${issues.map((issue) => `  ${issue.path}: ${issue.message}`).join('\n')}`,
      { file, issues },
    );
  }
}

/** A loaded config and where it came from. */
export interface LoadedConfig {
  readonly config: Config;
  /** The absolute path of the file. */
  readonly file: string;
  /** The data directory, absolute. */
  readonly dataDir: string;
}

/** Options of {@link loadConfig}; the environment is passed in, never read here. */
export interface LoadConfigOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A data directory replacing the file's `dataDir` (relative to the working directory). */
  readonly dataDir?: string | undefined;
  /** Where the user's data folder is, for a client's own file (default: this platform). */
  readonly platform?: NodeJS.Platform;
}

/**
 * Reads a JSON or YAML config file, expands `${VAR}` (and `${VAR:-default}`) from the
 * environment (and `${HINTGATE_CONFIG_DIR}`, `${HINTGATE_DATA_DIR}`) in `env`, `headers`,
 * `url`, `cwd` and `args`, validates it, and returns it with every default
 * filled in; or throws a {@link ConfigError} naming every bad key by its path.
 */
export async function loadConfig(path: string, options: LoadConfigOptions): Promise<LoadedConfig> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new ConfigError(file, [{ path: '(file)', message: why }]);
  }
  return parseConfig(text, file, options);
}

/** Like {@link loadConfig}, from text already read. */
export function parseConfig(text: string, file: string, options: LoadConfigOptions): LoadedConfig {
  const issues: ConfigIssue[] = [];
  const parsedText = parseText(text, file);
  const raw = withoutClientKeys(parsedText, issues);
  const builtIn = builtInVariables(raw, file, {
    override: options.dataDir,
    // A client's own file keeps no data beside it: a folder of the user's holds it.
    clientDir: isClientFile(file, parsedText)
      ? userDataDir(options.env, options.platform ?? process.platform)
      : undefined,
  });
  const expanded = expandEnvironment(raw, { ...options.env, ...builtIn }, issues);
  const parsed = configSchema.safeParse(expanded);
  if (!parsed.success) issues.push(...parsed.error.issues.map(toConfigIssue));
  else {
    // Rules naming servers that are not configured would never apply: a typo in a safety rule.
    const servers = new Set(Object.keys(parsed.data.mcpServers));
    for (const issue of policyReferenceIssues(parsed.data.policy, servers))
      issues.push({ path: issue.path.join('.'), message: issue.message });
  }
  if (issues.length > 0 || !parsed.success) throw new ConfigError(file, issues);
  const config = withDocumentPaths(
    withWorkingDirectories(parsed.data, dirname(file)),
    dirname(file),
  );
  return { config, file, dataDir: builtIn.HINTGATE_DATA_DIR };
}

/**
 * The variables every config can use besides the environment's: `${HINTGATE_CONFIG_DIR}`,
 * the directory of the config file, and `${HINTGATE_DATA_DIR}`, its data directory (both
 * absolute), for servers that resolve paths against their own install folder.
 */
function builtInVariables(
  raw: unknown,
  file: string,
  { override, clientDir }: { override: string | undefined; clientDir: string | undefined },
) {
  const configDir = dirname(file);
  const set = isRecord(raw) && typeof raw['dataDir'] === 'string' ? raw['dataDir'] : undefined;
  const given = set ?? '.hintgate';
  return {
    HINTGATE_CONFIG_DIR: configDir,
    HINTGATE_DATA_DIR:
      override !== undefined
        ? resolve(override)
        : set === undefined && clientDir !== undefined
          ? clientDataDir(file, clientDir)
          : isAbsolute(given)
            ? given
            : resolve(configDir, given),
  };
}

/**
 * Servers run in the config file's directory unless they say otherwise, and a relative
 * `cwd` is relative to that directory: a config works the same from any working directory
 * (a desktop client starts hintgate from its own).
 */
function withWorkingDirectories(config: Config, configDir: string): Config {
  const servers = Object.fromEntries(
    Object.entries(config.mcpServers).map(([name, server]) => [
      name,
      {
        ...server,
        cwd: resolve(configDir, server.cwd ?? '.'),
        replicas: server.replicas.map((replica) =>
          replica.cwd === undefined
            ? replica
            : { ...replica, cwd: resolve(configDir, replica.cwd) },
        ),
      },
    ]),
  );
  return { ...config, mcpServers: servers };
}

/** OpenAPI documents given as relative file paths are read from the config file's directory. */
function withDocumentPaths(config: Config, base: string): Config {
  const servers = Object.entries(config.mcpServers);
  if (!servers.some(([, server]) => isRelativeFile(server.openapi))) return config;
  const mcpServers = Object.fromEntries(
    servers.map(([name, server]) => [
      name,
      isRelativeFile(server.openapi)
        ? { ...server, openapi: resolve(base, server.openapi) }
        : server,
    ]),
  );
  return { ...config, mcpServers };
}

function isRelativeFile(source: string | undefined): source is string {
  return source !== undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(source) && !isAbsolute(source);
}

/** YAML's parser, loaded for YAML files only (20-30 ms of every start otherwise). */
function parseYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof Yaml;
  return yaml.parse(text);
}

function parseText(text: string, file: string): unknown {
  const yaml = ['.yaml', '.yml'].includes(extname(file).toLowerCase());
  try {
    return yaml ? parseYaml(text) : (JSON.parse(text) as unknown);
  } catch (error) {
    throw new ConfigError(file, [
      {
        path: '(file)',
        message: `not valid ${yaml ? 'YAML' : 'JSON'}: ${(error as Error).message}`,
      },
    ]);
  }
}

function toConfigIssue(issue: z.core.$ZodIssue): ConfigIssue {
  const path = issue.path.map(String).join('.') || '(top level)';
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `"${key}"`).join(', ');
    return { path, message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}` };
  }
  if (issue.code === 'invalid_key') {
    return { path, message: issue.issues.map((inner) => inner.message).join('; ') };
  }
  return { path, message: issue.message };
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands variables in the keys where config files carry secrets and addresses. */
function expandEnvironment(
  raw: unknown,
  env: LoadConfigOptions['env'],
  issues: ConfigIssue[],
): unknown {
  if (!isRecord(raw)) return raw;
  // The store URL may carry a password: `postgres://hintgate:${PGPASSWORD}@db/hintgate`.
  if (typeof raw['store'] === 'string') {
    raw = { ...raw, store: expand(raw['store'], 'store', env, issues) };
  }
  if (isRecord(raw) && typeof raw['secretKey'] === 'string') {
    raw = { ...raw, secretKey: expand(raw['secretKey'], 'secretKey', env, issues) };
  }
  if (!isRecord(raw) || !isRecord(raw['mcpServers'])) return raw;
  const servers: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(raw['mcpServers'])) {
    if (!isRecord(server)) {
      servers[name] = server;
      continue;
    }
    const at = `mcpServers.${name}`;
    const copy = expandTransport(server, at, env, issues);
    // Each replica carries a transport of its own, expanded the same way.
    if (Array.isArray(copy['replicas'])) {
      copy['replicas'] = copy['replicas'].map((replica: unknown, index) =>
        isRecord(replica)
          ? expandTransport(replica, `${at}.replicas.${index}`, env, issues)
          : replica,
      );
    }
    servers[name] = copy;
  }
  return { ...raw, mcpServers: servers };
}

/**
 * A server (or replica) entry with variables expanded in `url`, `args`, `cwd`, `env` and
 * `headers` (and an OpenAPI server's `openapi`, `baseUrl` and `credentials`).
 */
function expandTransport(
  entry: Record<string, unknown>,
  at: string,
  env: LoadConfigOptions['env'],
  issues: ConfigIssue[],
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...entry };
  for (const key of ['url', 'openapi', 'baseUrl', 'cwd']) {
    const value = copy[key];
    if (typeof value === 'string') copy[key] = expand(value, `${at}.${key}`, env, issues);
  }
  if (Array.isArray(copy['args'])) {
    copy['args'] = copy['args'].map((arg: unknown, index) =>
      // An argument may carry a variable meant for the server or another client
      // (`${workspaceFolder}`): only known ones are expanded, the rest pass unchanged.
      typeof arg === 'string' ? expand(arg, `${at}.args.${index}`, env, issues, false) : arg,
    );
  }
  const oauth = copy['oauth'];
  if (isRecord(oauth) && typeof oauth['clientSecret'] === 'string') {
    copy['oauth'] = {
      ...oauth,
      clientSecret: expand(oauth['clientSecret'], `${at}.oauth.clientSecret`, env, issues),
    };
  }
  for (const key of ['env', 'headers', 'credentials']) {
    const map = copy[key];
    if (!isRecord(map)) continue;
    copy[key] = Object.fromEntries(
      Object.entries(map).map(([k, v]) => [
        k,
        typeof v === 'string' ? expand(v, `${at}.${key}.${k}`, env, issues) : v,
      ]),
    );
  }
  return copy;
}

function expand(
  value: string,
  path: string,
  env: LoadConfigOptions['env'],
  issues: ConfigIssue[],
  required = true,
): string {
  return value.replace(VARIABLE, (match, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    if (!required) return match;
    issues.push({ path, message: `environment variable ${name} is not set (used as ${match})` });
    return match;
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
