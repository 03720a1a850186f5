import type { Command } from 'commander';
import type { InitOptions } from '../run-init.js';

/** `hintgate init`: a starter config, from a client's config file when one is found. */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      "Write a starter hintgate.config.yaml: the servers of Claude Desktop's, Cursor's or VS Code's config when one is found and you agree, else the published memory server",
    )
    .option('-o, --output <file>', 'the file to write', 'hintgate.config.yaml')
    .option('--from <file>', "a client's config file to import the servers of")
    .option('-y, --yes', 'import the servers of the client config found without asking')
    .option('--no-import', 'do not look for client configs; write the starter config')
    .option('--force', 'overwrite the file if it exists')
    .action(async (options: InitOptions) => {
      const { runInit } = await import('../run-init.js');
      await runInit(options);
    });
}
