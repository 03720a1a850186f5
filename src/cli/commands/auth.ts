import type { Command } from 'commander';
import type { AuthOptions } from '../run-auth.js';
import { storeCommandOptions } from '../store-commands.js';

/** `hintgate auth login|status|logout`. */
export function registerAuth(program: Command): void {
  const auth = program
    .command('auth')
    .description(
      'OAuth logins to remote MCP servers that ask for authorization (tokens sealed in the store with HINTGATE_SECRET_KEY)',
    );
  storeCommandOptions(
    auth
      .command('login <server>')
      .description(
        'Log in to a server: prints (and opens) the authorization URL and receives the redirect on 127.0.0.1',
      )
      .option('--principal <name>', 'whose login this is, for a server configured auth: per-user')
      .option('--no-open', 'print the URL only; do not open a browser')
      .option('--timeout <seconds>', 'how long to wait for the browser (default 300)'),
    false,
  ).action(async (server: string, options: AuthOptions) => {
    const { runAuthLogin } = await import('../run-auth.js');
    await runAuthLogin(server, options);
  });
  storeCommandOptions(
    auth
      .command('status')
      .description(
        'Per server: logged in or not, when the token expires, the scopes (never a token)',
      ),
  ).action(async (options: AuthOptions) => {
    const { runAuthStatus } = await import('../run-auth.js');
    await runAuthStatus(options);
  });
  storeCommandOptions(
    auth
      .command('logout <server>')
      .description("Forget a server's stored login (a per-user server's: one principal's, or all)")
      .option('--principal <name>', "only this principal's login"),
    false,
  ).action(async (server: string, options: AuthOptions) => {
    const { runAuthLogout } = await import('../run-auth.js');
    await runAuthLogout(server, options);
  });
}
