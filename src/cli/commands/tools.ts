import type { Command } from 'commander';
import type { ToolsOptions } from '../run-tools.js';

/** `hintgate tools`: connect to every configured server, print the catalog, exit. */
export function registerTools(program: Command): void {
  program
    .command('tools')
    .description(
      'Connect to every configured server and print the catalog: names, hints as badges, what was inferred, conflicts',
    )
    .option(
      '-c, --config <file>',
      'config file (default: hintgate.config.json, .yaml or .yml in the working directory)',
    )
    .option(
      '--json',
      'print JSON: the servers with their status, and every tool with its annotations and their sources',
    )
    .option('--toolset <name>', "show this toolset's tools, with its notes and overrides")
    .option('--explain', 'add the reason behind every inferred value')
    .option('--store <url>', "a postgres:// URL (default: the config's store)")
    .option('--data-dir <dir>', "the embedded store's data directory, instead of the config's")
    .action(async (options: ToolsOptions) => {
      const { runTools } = await import('../run-tools.js');
      await runTools(options);
    });
}
