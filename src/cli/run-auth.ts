import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Config, ServerConfig } from '../config/schema.js';
import { HintgateError, errorMessage } from '../core/errors.js';
import { loginToServer } from '../downstream/oauth/login.js';
import { usesOAuth } from '../downstream/oauth/provider.js';
import { revokeLogin } from '../downstream/oauth/revoke.js';
import { Sealer, secretKeyMissing } from '../downstream/oauth/seal.js';
import { CredentialVault } from '../downstream/oauth/vault.js';
import type { OAuthCredentialSummary } from '../store/types.js';
import { loadCliConfig } from './config-file.js';
import { writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import { secretKeyOf } from './secret-key.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';
import { replicaServerConfig } from '../gateway/replicas.js';
import { say } from './store-commands.js';

/** Options of the `auth` subcommands. */
export interface AuthOptions extends StoreCommandOptions {
  readonly json?: boolean;
  readonly principal?: string;
  /** False with `--no-open`. */
  readonly open?: boolean;
  readonly timeout?: string;
}

/** A configured server that may be logged in to, or an error naming what is wrong. */
function oauthServer(config: Config, file: string, name: string): ServerConfig & { url: string } {
  const server = config.mcpServers[name];
  if (server === undefined) {
    const names = Object.keys(config.mcpServers).join(', ');
    throw new HintgateError(
      'NOT_FOUND',
      `no server named "${name}" in ${file}${names === '' ? '' : ` (servers: ${names})`}`,
    );
  }
  const target = loginTarget(server);
  if (target.url === undefined) {
    throw new HintgateError(
      'INPUT_INVALID',
      `server "${name}" is not an HTTP server (${server.replicas.length > 0 ? 'none of its replicas has' : 'it has no'} "url"): there is nothing to log in to`,
    );
  }
  if (!usesOAuth(target)) {
    throw new HintgateError(
      'INPUT_INVALID',
      server.auth === 'none'
        ? `server "${name}" is configured "auth: none": hintgate sends it no token`
        : `server "${name}" is sent the Authorization header of its "headers"; remove it to use an OAuth login`,
    );
  }
  return { ...target, url: target.url };
}

/**
 * The connection a login is made over: the server, or for a server with replicas the first
 * HTTP replica that may ask for OAuth (all replicas share the server's one login).
 */
function loginTarget(server: ServerConfig): ServerConfig {
  if (server.replicas.length === 0) return server;
  const replicas = server.replicas.map((replica) => replicaServerConfig(server, replica));
  return (
    replicas.find(usesOAuth) ??
    replicas.find((replica) => replica.url !== undefined) ??
    replicas[0] ??
    server
  );
}

/** The principal a command is about: required for a per-user server, refused otherwise. */
function principalFor(server: ServerConfig, name: string, given: string | undefined): string {
  if (server.auth === 'per-user') {
    if (given === undefined || given === '') {
      throw new HintgateError(
        'INPUT_INVALID',
        `server "${name}" is configured "auth: per-user": name whose login this is with --principal <name>`,
      );
    }
    return given;
  }
  if (given !== undefined) {
    throw new HintgateError(
      'INPUT_INVALID',
      `--principal: server "${name}" has one login for the gateway (configure "auth: per-user" for one per principal)`,
    );
  }
  return '';
}

/** Opens a URL in the person's browser when the system offers a way (xdg-open, open). */
function openInBrowser(url: string): boolean {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  const found = (process.env['PATH'] ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && existsSync(join(dir, opener)));
  if (!found) return false;
  try {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

function timeoutMs(value: string | undefined): number {
  if (value === undefined) return 300_000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new HintgateError(
      'INPUT_INVALID',
      `--timeout: expected seconds between 1 and 3600, got "${value}"`,
    );
  }
  return seconds * 1000;
}

/** `hintgate auth login <server> [--principal p] [--no-open]`. */
export async function runAuthLogin(name: string, options: AuthOptions): Promise<void> {
  const loaded = await loadCliConfig(options.config);
  const server = oauthServer(loaded.config, loaded.file, name);
  const principal = principalFor(server, name, options.principal);
  const wait = timeoutMs(options.timeout);
  const secret = secretKeyOf(loaded.config);
  // Refused before anything happens: a login whose tokens could not be kept is wasted.
  if (secret === undefined) throw secretKeyMissing(`store the OAuth login of "${name}"`);
  const sealer = Sealer.fromSecret(secret);
  const result = await withStore(
    { ...options, ...(options.config === undefined ? { config: loaded.file } : {}) },
    (store) =>
      loginToServer({
        server: name,
        url: server.url,
        principal,
        vault: new CredentialVault(store, sealer),
        settings: server.oauth,
        headers: server.headers,
        timeoutMs: wait,
        showUrl: (url) => {
          process.stderr.write(
            `Open this URL in a browser to log in to "${name}":\n\n  ${url}\n\n`,
          );
          if (options.open !== false && openInBrowser(url)) say('opened it in your browser');
          say(`waiting up to ${Math.round(wait / 1000)} s for the browser to come back…`);
        },
      }),
  );
  const parts = [
    result.scope === undefined ? 'no scope stated' : `scopes: ${result.scope}`,
    result.expiresAt === undefined ? 'no expiry stated' : `expires ${result.expiresAt}`,
    result.refreshable
      ? 'refreshed automatically'
      : 'no refresh token: log in again when it expires',
  ];
  const whose = principal === '' ? '' : ` as ${principal}`;
  say(`logged in to "${name}"${whose} (${parts.join('; ')})`);
}

interface StatusRow {
  readonly server: string;
  readonly principal: string;
  readonly state: 'logged in' | 'expired' | 'not logged in';
  readonly expiresAt?: string;
  readonly scope?: string;
  readonly refreshable: boolean;
  readonly loggedInAt?: string;
}

function rowOf(summary: OAuthCredentialSummary, now: number): StatusRow {
  const expired =
    summary.expiresAt !== undefined && Date.parse(summary.expiresAt) <= now && !summary.refreshable;
  return {
    server: summary.server,
    principal: summary.principal,
    state: expired ? 'expired' : 'logged in',
    refreshable: summary.refreshable,
    ...(summary.expiresAt === undefined ? {} : { expiresAt: summary.expiresAt }),
    ...(summary.scope === undefined ? {} : { scope: summary.scope }),
    ...(summary.loggedInAt === undefined ? {} : { loggedInAt: summary.loggedInAt }),
  };
}

/** `hintgate auth status`: every HTTP server that may ask for OAuth, and every stored login. */
export async function runAuthStatus(options: AuthOptions): Promise<void> {
  const loaded = await loadCliConfig(options.config);
  const stored = await withStore(
    { ...options, ...(options.config === undefined ? { config: loaded.file } : {}) },
    (store) => store.listOAuthCredentials(),
  );
  const now = Date.now();
  const rows: StatusRow[] = stored.map((summary) => rowOf(summary, now));
  for (const [name, server] of Object.entries(loaded.config.mcpServers)) {
    if (!usesOAuth(loginTarget(server))) continue;
    if (rows.some((row) => row.server === name)) continue;
    rows.push({
      server: name,
      principal: server.auth === 'per-user' ? '(each principal)' : '',
      state: 'not logged in',
      refreshable: false,
    });
  }
  rows.sort((a, b) => a.server.localeCompare(b.server) || a.principal.localeCompare(b.principal));
  if (options.json === true) return writeOut(formatJson(rows));
  if (rows.length === 0) return writeOut('(no HTTP servers that may ask for OAuth)\n');
  return writeOut(
    `${formatTable(rows, [
      { heading: 'server', cell: (row: StatusRow) => row.server },
      { heading: 'principal', cell: (row) => (row.principal === '' ? '-' : row.principal) },
      { heading: 'state', cell: (row) => row.state },
      { heading: 'expires', cell: (row) => row.expiresAt ?? '-' },
      { heading: 'refresh', cell: (row) => (row.refreshable ? 'yes' : 'no') },
      { heading: 'scopes', cell: (row) => row.scope ?? '-' },
    ])}\n`,
  );
}

/** `hintgate auth logout <server> [--principal p]`. */
export async function runAuthLogout(name: string, options: AuthOptions): Promise<void> {
  const loaded = await loadCliConfig(options.config);
  const server = oauthServer(loaded.config, loaded.file, name);
  const principal =
    server.auth === 'per-user' && options.principal === undefined
      ? undefined
      : principalFor(server, name, options.principal);
  const secret = secretKeyOf(loaded.config);
  const removed = await withStore(
    { ...options, ...(options.config === undefined ? { config: loaded.file } : {}) },
    async (store) => {
      const vault = new CredentialVault(
        store,
        secret === undefined ? undefined : Sealer.fromSecret(secret),
      );
      const logins = (await store.listOAuthCredentials(name)).filter(
        (login) => principal === undefined || login.principal === principal,
      );
      // Revoked first, where the authorization server offers it; forgotten in any case.
      for (const login of logins) {
        const whose = login.principal === '' ? '' : ` (principal ${login.principal})`;
        say(`${name}${whose}: ${await revocationOf(vault, name, login.principal, server)}`);
      }
      return vault.remove(name, principal);
    },
  );
  say(
    removed === 0
      ? `no stored login for "${name}"${principal ? ` (principal ${principal})` : ''}`
      : `logged out of "${name}" (${removed} stored login${removed === 1 ? '' : 's'} removed)`,
  );
}

/** Revokes one stored login at its authorization server; says what came of it. */
async function revocationOf(
  vault: CredentialVault,
  name: string,
  principal: string,
  server: ServerConfig,
): Promise<string> {
  if (!vault.canSeal)
    return 'not revoked: no secret key is set to open the stored tokens (they stay valid until they expire)';
  let document;
  try {
    document = await vault.load(name, principal);
  } catch (error) {
    return `not revoked: ${errorMessage(error)}`;
  }
  if (document === undefined) return 'nothing to revoke';
  const outcome = await revokeLogin(document, server.oauth);
  switch (outcome.kind) {
    case 'revoked':
      return 'tokens revoked at the authorization server';
    case 'nothing-held':
      return 'no tokens held, nothing to revoke';
    case 'not-offered':
      return 'the authorization server offers no revocation endpoint: the tokens stay valid until they expire';
    case 'failed':
      return `revocation failed (${outcome.reason}): the tokens may stay valid until they expire`;
  }
}
