import type { Command } from 'commander';
import type { ServeOptions } from '../run-serve.js';

/** `hintgate serve`: the gateway, over stdio and/or streamable HTTP. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'Run the gateway: every configured MCP server behind one MCP server, over stdio and/or streamable HTTP',
    )
    .option(
      '-c, --config <file>',
      'config file (default: hintgate.config.json, .yaml or .yml in the working directory)',
    )
    .option('--stdio', 'serve on stdin/stdout (the default when --http is not given)')
    .option(
      '--http <host:port>',
      'serve streamable HTTP at http://host:port/mcp (port 0 picks a free port)',
    )
    .option('--no-auth', 'accept HTTP clients without a bearer token (only on a loopback address)')
    .option(
      '--token-file <file>',
      'a file holding the bearer token HTTP clients must send (default: $HINTGATE_TOKEN, or http.token / http.tokens in config)',
    )
    .option(
      '--token <token>',
      'the bearer token on the command line, where every local user can read it (prefer --token-file or $HINTGATE_TOKEN)',
    )
    .option(
      '--store <url>',
      "a postgres:// URL to keep toolsets, notes and overrides in (default: the config's store, else the embedded store in the data directory)",
    )
    .option(
      '--data-dir <dir>',
      "the data directory (embedded store, logs), instead of the config's dataDir",
    )
    .option('--no-fast-path', 'answer every request through the SDK (slower; for comparison)')
    .action(async (options: ServeOptions) => {
      const { loadCliConfig } = await import('../config-file.js');
      const loaded = await loadCliConfig(options.config, {
        documents: true,
        dataDir: options.dataDir,
      });
      // The stdio servers start while the gateway loads (see downstream/launch.ts); whatever
      // happens next, none is left running (a signal meanwhile ends them, and then hintgate).
      const { earlyLaunches, endEarly, startEarly } = await import('../../downstream/launch.js');
      const interrupted = (signal: NodeJS.Signals): void => {
        endEarly();
        process.kill(process.pid, signal);
      };
      process.once('SIGINT', interrupted);
      process.once('SIGTERM', interrupted);
      try {
        startEarly(earlyLaunches(loaded.config, process.env));
        // Loaded on use: other commands start without the gateway and the SDKs.
        const { runServe } = await import('../run-serve.js');
        process.off('SIGINT', interrupted);
        process.off('SIGTERM', interrupted);
        await runServe(options, loaded);
      } finally {
        process.off('SIGINT', interrupted);
        process.off('SIGTERM', interrupted);
        endEarly();
      }
    });
}
