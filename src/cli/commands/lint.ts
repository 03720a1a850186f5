import type { Command } from 'commander';
import type { LintOptions } from '../run-lint.js';

/** `hintgate lint`: one server's tools checked for complete, valid, honest annotations. */
export function registerLint(program: Command): void {
  program
    .command('lint')
    .description(
      "Check one MCP server's tool annotations: declared, inferred, missing, invalid, conflicting",
    )
    .option('--stdio <command>', 'spawn the server with this command line (quoted as in a shell)')
    .option('--url <url>', 'connect to a streamable HTTP (or SSE) server')
    .option('-c, --config <file>', 'read the server from this config (with --server)')
    .option('--server <name>', 'the server in the config to lint')
    .option('--json', 'print JSON')
    .option('--timeout <ms>', 'how long the server may take to start and answer', '30000')
    .action(async (options: LintOptions) => {
      const { runLint } = await import('../run-lint.js');
      await runLint(options);
    });
}
