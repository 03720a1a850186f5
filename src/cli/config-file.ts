import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { HintgateError } from '../core/errors.js';

/** The names `hintgate serve` and `hintgate tools` look for in the working directory. */
export const DEFAULT_CONFIG_NAMES = [
  'hintgate.config.json',
  'hintgate.config.yaml',
  'hintgate.config.yml',
];

/** The config file to use: the given one, else the first default name present in `cwd`. */
export async function findConfigFile(given: string | undefined, cwd: string): Promise<string> {
  if (given !== undefined) return given;
  for (const name of DEFAULT_CONFIG_NAMES) {
    const path = join(cwd, name);
    try {
      await access(path);
      return path;
    } catch {
      // try the next name
    }
  }
  throw new HintgateError(
    'CONFIG_INVALID',
    `no config file: pass --config <file> or create one of ${DEFAULT_CONFIG_NAMES.join(', ')} in ${cwd}`,
  );
}

/**
 * Finds and loads the config, expanding variables from the process environment. With
 * `documents`, for commands that start servers, the OpenAPI documents it names are read too:
 * one that cannot be used is a config error. `dataDir` overrides the config's.
 */
export async function loadCliConfig(
  given: string | undefined,
  { documents = false, dataDir }: { documents?: boolean; dataDir?: string | undefined } = {},
): Promise<LoadedConfig> {
  const loaded = await loadConfig(await findConfigFile(given, process.cwd()), {
    env: process.env,
    dataDir,
  });
  if (!documents) return loaded;
  // The OpenAPI parser (about 15 MiB) loads only for a config with OpenAPI servers.
  const openapi = Object.values(loaded.config.mcpServers).some(
    (server) => server.openapi !== undefined,
  );
  if (!openapi) return loaded;
  const { openApiConfigIssues } = await import('../downstream/openapi/check.js');
  const issues = await openApiConfigIssues(loaded.config);
  if (issues.length > 0) throw new ConfigError(loaded.file, issues);
  return loaded;
}
