import type { StoredDefaultToolset } from '../store/types.js';
import { loadCliConfig } from './config-file.js';
import type { StoreCommandOptions } from './store-access.js';

/** The default toolset as the CLI reports it: chosen at run time, or the config's. */

/** The config's `toolsets.default`: a name, undefined when it sets none, null when unknown. */
export type ConfiguredDefault = string | undefined | null;

/**
 * The config's `toolsets.default` for a command's options; null when the command names its
 * store without a config file (`--data-dir`, `--store`) or the config cannot be read.
 */
export async function configuredDefaultOf(
  options: StoreCommandOptions,
): Promise<ConfiguredDefault> {
  if (
    options.config === undefined &&
    (options.dataDir !== undefined || options.store !== undefined)
  )
    return null;
  try {
    return (await loadCliConfig(options.config)).config.toolsets.default;
  } catch {
    return null;
  }
}

/** The default toolset in effect: the chosen one, else the config's (null: not known). */
export function effectiveDefault(
  chosen: StoredDefaultToolset | undefined,
  configured: ConfiguredDefault,
): string | undefined | null {
  if (chosen === undefined) return configured;
  return chosen.kind === 'toolset' ? chosen.name : undefined;
}

/** One line saying what the default toolset is and where it comes from. */
export function describeDefault(
  chosen: StoredDefaultToolset | undefined,
  configured: ConfiguredDefault,
): string {
  if (chosen !== undefined) {
    const what = chosen.kind === 'toolset' ? `"${chosen.name}"` : 'none (every tool)';
    const who = chosen.by === undefined ? '' : ` by ${chosen.by}`;
    const over =
      configured === null || configured === undefined
        ? ''
        : `; it wins over the config's toolsets.default "${configured}"`;
    return `default toolset: ${what}, chosen${who} at ${chosen.updatedAt}${over}`;
  }
  if (configured === null) return "default toolset: the config's toolsets.default, if it sets one";
  return configured === undefined
    ? 'default toolset: none (every tool); the config sets no toolsets.default'
    : `default toolset: "${configured}", the config's toolsets.default`;
}
