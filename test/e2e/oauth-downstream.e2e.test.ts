import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { connectHttp, rawCall, rawListTools, startHttpGateway } from '../helpers/gateway.js';
import type { LoginRun, OAuthFixture } from '../helpers/oauth.js';
import { loginWithCli, startOAuthFixture } from '../helpers/oauth.js';
import { requireBuiltCli } from '../helpers/paths.js';

/**
 * hintgate as the OAuth client of a remote MCP server: a real authorization server
 * (oidc-provider) on loopback with a protected MCP server beside it. `hintgate auth login`
 * discovers it from the server's 401, registers dynamically and runs the code flow with
 * PKCE while the test plays the browser; the running gateway picks the login up, refreshes
 * the token once it expires, and marks the server down, naming the login command, once the
 * login is revoked. No token is ever printed, logged or served by /api.
 */

const SECRET = 'a test secret of more than sixteen characters';
const ACCESS_TTL = 4;
const env = { HINTGATE_SECRET_KEY: SECRET };

let server: OAuthFixture;
let dir: string;
let config: string;
let gateway: (GatewayProcess & { url: string }) | undefined;
let client: Client;
const outputs: string[] = [];

async function login(): Promise<LoginRun> {
  const run = await loginWithCli(['remote', '--config', config, '--no-open'], env);
  outputs.push(run.stdout, run.stderr, run.page?.text ?? '');
  return run;
}

async function status(): Promise<Record<string, unknown>[]> {
  const run = await runCli(['auth', 'status', '--config', config, '--json'], { env });
  outputs.push(run.stdout, run.stderr);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>[];
}

/** What a call answered: its text, or the error's message. */
async function callText(name: string): Promise<string> {
  try {
    const result = await rawCall(client, name);
    const content = result['content'] as { text?: string }[] | undefined;
    return `${result['isError'] === true ? 'error: ' : ''}${content?.map((c) => c.text).join(' ')}`;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function api(path: string): Promise<string> {
  const origin = new URL((gateway as { url: string }).url).origin;
  const text = await (await fetch(`${origin}${path}`)).text();
  outputs.push(text);
  return text;
}

beforeAll(async () => {
  requireBuiltCli();
  server = await startOAuthFixture(ACCESS_TTL);
  dir = scratchDir('hintgate-oauth-');
  config = writeConfig(
    dir,
    { remote: { url: server.mcp } },
    { policy: { confirm: 'never', cache: { enabled: false } } },
  );
}, 30_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  gateway?.child.kill('SIGTERM');
  await gateway?.exited;
  await server?.stop();
});

describe('OAuth to a downstream server', () => {
  it('refuses to log in without a secret key, naming the setting, and stores nothing', async () => {
    const run = await runCli(['auth', 'login', 'remote', '--config', config, '--no-open'], {
      env: { HINTGATE_SECRET_KEY: '' },
    });
    outputs.push(run.stdout, run.stderr);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('no secret key is set; set HINTGATE_SECRET_KEY');
    expect(run.stderr).not.toContain('/auth?');
    expect(await status()).toEqual([
      { server: 'remote', principal: '', state: 'not logged in', refreshable: false },
    ]);
  });

  it('lint --config of a server without a login reports it, naming the login command', async () => {
    const run = await runCli(['lint', '--config', config, '--server', 'remote'], { env });
    outputs.push(run.stdout, run.stderr);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('needs an OAuth login (no login is stored)');
    expect(run.stderr).toContain('run `hintgate auth login remote`');
  }, 60_000);

  it('marks a server without a login down, and a call says to run hintgate auth login', async () => {
    gateway = await startHttpGateway(config, ['--no-auth'], env);
    await gateway.waitForStderr(/remote.*hintgate auth login remote/, 20_000);
    client = (await connectHttp(gateway.url, 'v2-legacy')) as Client;
    // A call that lands while a reconnect attempt runs is told the server is still starting.
    const answer = await waitFor('a call answered between attempts', async () => {
      const text = await callText('remote_whoami');
      return text.includes('is still starting') ? undefined : text;
    });
    expect(answer).toMatch(/^error: .*needs an OAuth login \(no login is stored\)/);
    expect(answer).toContain('run `hintgate auth login remote`');
    // Down between attempts (while one runs it is "starting").
    const reason = await waitFor('the down reason', async () => {
      const listed = JSON.parse(await api('/api/servers')) as { servers: { reason?: string }[] };
      return listed.servers[0]?.reason;
    });
    expect(reason).toContain('hintgate auth login remote');
  }, 40_000);

  it('logs in while the gateway runs (discovery, registration, PKCE); the server comes up', async () => {
    const run = await login();
    expect(run.code, run.stderr).toBe(0);
    expect(run.page?.text).toContain('Logged in');
    expect(run.stderr).toMatch(/code_challenge=[\w-]+&code_challenge_method=S256/);
    expect(run.stderr).toContain('resource=');
    expect(run.stderr).toContain('logged in to "remote" (scopes: mcp:tools;');
    const tools = await waitFor('the server to come up', async () => {
      const listed = await rawListTools(client);
      return listed.some((tool) => tool['name'] === 'remote_whoami') ? listed : undefined;
    });
    expect(tools.length).toBeGreaterThan(0);
    expect(await callText('remote_whoami')).toBe('you are alice');
    const [row] = await status();
    expect(row).toMatchObject({ server: 'remote', state: 'logged in', refreshable: true });
    expect(row?.['scope']).toContain('mcp:tools');
    expect((await server.stats()).authorization_code).toBe(1);
    // lint of the config uses the stored login (through the running gateway's store).
    const lint = await runCli(['lint', '--config', config, '--server', 'remote'], { env });
    outputs.push(lint.stdout, lint.stderr);
    expect(lint.stderr).not.toContain('needs an OAuth login');
    expect(lint.stdout).toContain('whoami');
  }, 60_000);

  it('refreshes the access token once it expires, and the calls go on', async () => {
    const before = (await server.stats()).refresh_token;
    const [{ expiresAt: firstExpiry } = {}] = await status();
    await new Promise((resolve) => setTimeout(resolve, ACCESS_TTL * 1000 + 500));
    expect(await callText('remote_whoami')).toBe('you are alice');
    expect((await server.stats()).refresh_token).toBeGreaterThan(before);
    const [{ expiresAt: nextExpiry } = {}] = await status();
    expect(Date.parse(String(nextExpiry))).toBeGreaterThan(Date.parse(String(firstExpiry)));
  }, 30_000);

  it('a login that does not complete leaves the stored login working', async () => {
    const [before] = await status();
    const run = await runCli(
      ['auth', 'login', 'remote', '--config', config, '--no-open', '--timeout', '1'],
      { env },
    );
    outputs.push(run.stdout, run.stderr);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('no answer from the browser within 1 s');
    expect(before).toMatchObject({ state: 'logged in', refreshable: true });
    expect((await status())[0]).toMatchObject({ state: 'logged in', refreshable: true });
    // Past the access token's life: the gateway refreshes from the stored login.
    const refreshes = (await server.stats()).refresh_token;
    await new Promise((resolve) => setTimeout(resolve, ACCESS_TTL * 1000 + 500));
    expect(await callText('remote_whoami')).toBe('you are alice');
    expect((await server.stats()).refresh_token).toBeGreaterThan(refreshes);
    expect((await status())[0]).toMatchObject({ state: 'logged in', refreshable: true });
  }, 30_000);

  it('refreshes when the server refuses the access token (401), and retries the call', async () => {
    const before = (await server.stats()).refresh_token;
    await server.revokeAccess();
    expect(await callText('remote_whoami')).toBe('you are alice');
    expect((await server.stats()).refresh_token).toBe(before + 1);
  }, 30_000);

  it('a revoked login marks the server down naming hintgate auth login; logging in again brings it back', async () => {
    await server.revokeAll();
    const answer = await callText('remote_whoami');
    expect(answer).toMatch(/^error: .*needs an OAuth login/);
    expect(answer).toContain('revoked or expired');
    expect(answer).toContain('`hintgate auth login remote`');
    await waitFor('the server to be down', async () => {
      const text = await api('/api/servers');
      return text.includes('"state":"down"') ? text : undefined;
    });
    expect(await callText('remote_whoami')).toContain('hintgate auth login remote');
    const run = await login();
    expect(run.code, run.stderr).toBe(0);
    await waitFor('the server to come back', async () => {
      const text = await callText('remote_whoami');
      return text === 'you are alice' ? text : undefined;
    });
  }, 60_000);

  it('logout revokes the tokens at the authorization server, and the running gateway drops its own at once', async () => {
    expect(await callText('remote_whoami')).toBe('you are alice');
    expect(await server.validAccessTokens()).toBeGreaterThan(0);
    const run = await runCli(['auth', 'logout', 'remote', '--config', config], { env });
    outputs.push(run.stdout, run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('remote: tokens revoked at the authorization server');
    expect(run.stderr).toContain('logged out of "remote" (1 stored login removed)');
    expect(await server.validAccessTokens()).toBe(0);
    expect((await status())[0]).toMatchObject({ state: 'not logged in' });
    // Told by the store, not by a refused call: the server is down before anything is called.
    const down = await waitFor('the server to be down', async () => {
      const text = await api('/api/servers');
      return text.includes('"state":"down"') ? text : undefined;
    });
    expect(down).toContain('the stored login was removed (hintgate auth logout)');
    expect(await callText('remote_whoami')).toContain('run `hintgate auth login remote`');
  }, 30_000);

  it('sends a configured Authorization header as it is, never starting OAuth over it', async () => {
    const fixedDir = scratchDir('hintgate-oauth-fixed-');
    const fixed = writeConfig(fixedDir, {
      fixed: { url: server.mcp, headers: { Authorization: 'Bearer not-a-valid-token' } },
    });
    const run = await runCli(['tools', '--config', fixed], { env });
    outputs.push(run.stdout, run.stderr);
    expect(run.stdout + run.stderr).toContain('server "fixed" is down');
    expect(run.stdout + run.stderr).not.toContain('needs an OAuth login');
    const login = await runCli(['auth', 'login', 'fixed', '--config', fixed, '--no-open'], { env });
    expect(login.code).not.toBe(0);
    expect(login.stderr).toContain('remove it to use an OAuth login');
  }, 60_000);

  it("keeps a per-user server's logins per principal; a command without a principal does not use them", async () => {
    const teamDir = scratchDir('hintgate-oauth-team-');
    const team = writeConfig(teamDir, { team: { url: server.mcp, auth: 'per-user' } });
    const missing = await runCli(['auth', 'login', 'team', '--config', team, '--no-open'], { env });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('name whose login this is with --principal <name>');
    const run = await loginWithCli(
      ['team', '--config', team, '--no-open', '--principal', 'alice'],
      env,
    );
    outputs.push(run.stdout, run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('logged in to "team" as alice');
    const listed = await runCli(['auth', 'status', '--config', team, '--json'], { env });
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { server: 'team', principal: 'alice', state: 'logged in', refreshable: true },
    ]);
    const tools = await runCli(['tools', '--config', team], { env });
    outputs.push(tools.stdout, tools.stderr);
    expect(tools.stdout + tools.stderr).toContain('served per principal ("auth: per-user")');
    expect(tools.stdout).not.toContain('team_whoami');
    const out = await runCli(['auth', 'logout', 'team', '--config', team, '--principal', 'alice'], {
      env,
    });
    expect(out.stderr).toContain('logged out of "team" (1 stored login removed)');
  }, 60_000);

  it('logs a server with replicas in under its own name, over a replica; every replica uses it', async () => {
    const replicasDir = scratchDir('hintgate-oauth-replicas-');
    const notes = writeConfig(replicasDir, {
      notes: { replicas: [{ url: server.mcp }, { url: server.mcp, name: 'b' }] },
    });
    const before = await runCli(['tools', '--config', notes], { env });
    outputs.push(before.stdout, before.stderr);
    expect(before.stdout + before.stderr).toContain('run `hintgate auth login notes`');
    expect(before.stdout + before.stderr).not.toContain('auth login notes#');
    const run = await loginWithCli(['notes', '--config', notes, '--no-open'], env);
    outputs.push(run.stdout, run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('logged in to "notes"');
    const listed = await runCli(['auth', 'status', '--config', notes, '--json'], { env });
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { server: 'notes', principal: '', state: 'logged in', refreshable: true },
    ]);
    const tools = await runCli(['tools', '--config', notes], { env });
    outputs.push(tools.stdout, tools.stderr);
    expect(tools.stdout).toContain('notes_whoami');
    expect(tools.stdout + tools.stderr).not.toContain('needs an OAuth login');
  }, 60_000);

  it('never prints, logs or serves a token: CLI output, gateway stderr, server logs, /api', async () => {
    const tokens = await server.tokens();
    // Three logins and a refresh: access and refresh tokens of each.
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    for (const path of ['/api/servers', '/api/tools', '/api/audit', '/health']) await api(path);
    const logs = join(dir, 'data', 'logs');
    const logText = readdirSync(logs)
      .map((name) => readFileSync(join(logs, name), 'utf8'))
      .join('\n');
    const seen = [...outputs, gateway?.stderr() ?? '', logText].join('\n');
    // What was searched holds what the commands and the gateway said.
    expect(seen).toContain('logged in to "remote"');
    expect(seen).toContain('hintgate auth login remote');
    for (const token of tokens) expect(token).toMatch(/^[\w-]{20,}$/);
    for (const token of tokens) expect(seen).not.toContain(token);
  });
});
