import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratchDir, writeConfig } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { connectHttp, rawCall, rawListTools, startHttpGateway } from '../helpers/gateway.js';
import type { OAuthFixture } from '../helpers/oauth.js';
import { loginWithCli, startOAuthFixture } from '../helpers/oauth.js';
import { requireBuiltCli } from '../helpers/paths.js';

/**
 * A server configured `auth: per-user` behind a gateway with named tokens: every principal
 * reaches it over its own connection and its own login (the fixture's authorization server
 * logs each person in as the account the test names, and its tool says whose token came).
 * A principal without a login sees none of its tools and is told the command to log in.
 */

const SECRET = 'a test secret of more than sixteen characters';
const TOKENS = {
  ALICE_TOKEN: 'alice-token-0123456789abcdef',
  BOB_TOKEN: 'bob-token-0123456789abcdef',
  CAROL_TOKEN: 'carol-token-0123456789abcdef',
};
const env = { HINTGATE_SECRET_KEY: SECRET, ...TOKENS };
const IDLE_MS = 3_000;

let server: OAuthFixture;
let config: string;
let gateway: (GatewayProcess & { url: string }) | undefined;
const clients = new Map<string, Client>();
const outputs: string[] = [];

async function login(principal: string): Promise<void> {
  await server.loginAs(principal);
  const run = await loginWithCli(
    ['team', '--config', config, '--no-open', '--principal', principal],
    env,
  );
  outputs.push(run.stdout, run.stderr, run.page?.text ?? '');
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain(`logged in to "team" as ${principal}`);
}

async function client(principal: 'alice' | 'bob' | 'carol'): Promise<Client> {
  let found = clients.get(principal);
  if (found === undefined) {
    const token = TOKENS[`${principal.toUpperCase()}_TOKEN` as keyof typeof TOKENS];
    found = (await connectHttp((gateway as { url: string }).url, 'v2-legacy', {
      authorization: `Bearer ${token}`,
    })) as Client;
    clients.set(principal, found);
  }
  return found;
}

async function callText(principal: 'alice' | 'bob' | 'carol'): Promise<string> {
  try {
    const result = await rawCall(await client(principal), 'team_whoami');
    const content = result['content'] as { text?: string }[] | undefined;
    return `${result['isError'] === true ? 'error: ' : ''}${content?.map((c) => c.text).join(' ')}`;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

async function toolNames(principal: 'alice' | 'bob' | 'carol'): Promise<string[]> {
  return (await rawListTools(await client(principal))).map((tool) => String(tool['name']));
}

/** The names of the prompts and resources the principal is shown. */
async function offeringNames(principal: 'alice' | 'bob' | 'carol'): Promise<string[]> {
  const connected = await client(principal);
  const { prompts } = await connected.listPrompts();
  const { resources } = await connected.listResources();
  return [...prompts, ...resources].map((item) => item.name);
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

beforeAll(async () => {
  requireBuiltCli();
  server = await startOAuthFixture();
  const dir = scratchDir('hintgate-oauth-per-user-');
  config = writeConfig(
    dir,
    {
      team: { url: server.mcp, auth: 'per-user', timeouts: { idleMs: IDLE_MS } },
    },
    {
      http: {
        tokens: [
          { name: 'alice', tokenEnv: 'ALICE_TOKEN' },
          { name: 'bob', tokenEnv: 'BOB_TOKEN' },
          { name: 'carol', tokenEnv: 'CAROL_TOKEN' },
        ],
      },
      policy: { confirm: 'never', cache: { enabled: false } },
    },
  );
}, 30_000);

afterAll(async () => {
  for (const each of clients.values()) await each.close().catch(() => undefined);
  gateway?.child.kill('SIGTERM');
  await gateway?.exited;
  await server?.stop();
});

describe('an auth: per-user server', () => {
  it('a principal without a login is refused with the command to log in, and sees no tool', async () => {
    await login('alice');
    gateway = await startHttpGateway(config, [], env);
    await gateway.waitForStderr(/server "team" is served per principal.*1 principal/, 20_000);
    const answer = await callText('carol');
    expect(answer).toMatch(/^error: .*needs an OAuth login for principal "carol"/);
    expect(answer).toContain('run `hintgate auth login team --principal carol`');
    expect(await toolNames('carol')).not.toContain('team_whoami');
    // Nothing was opened for carol.
    expect(gateway.stderr()).not.toContain('principal "carol"');
  }, 60_000);

  it("a principal with a login lists the server's tools over its own connection and calls as itself", async () => {
    expect(await toolNames('alice')).toContain('team_whoami');
    await (gateway as GatewayProcess).waitForStderr(/connected for principal "alice"/);
    expect(await callText('alice')).toBe('you are alice');
    // carol still sees nothing of it, now that the catalog holds its tools: no tool, no prompt,
    // no resource.
    expect(await toolNames('carol')).not.toContain('team_whoami');
    expect(await offeringNames('alice')).toEqual(['team_introduce', 'team_me']);
    expect(await offeringNames('carol')).toEqual([]);
    expect(await callText('carol')).toContain('hintgate auth login team --principal carol');
  }, 30_000);

  it("a second principal's login while the gateway runs: each reaches the server as itself", async () => {
    expect(await callText('bob')).toContain('hintgate auth login team --principal bob');
    await login('bob');
    await waitFor('bob to see the tool', async () =>
      (await toolNames('bob')).includes('team_whoami') ? true : undefined,
    );
    // Interleaved calls of both at once: no call of one goes out with the other's token.
    const principals = ['alice', 'bob', 'alice', 'bob', 'bob', 'alice', 'alice', 'bob'] as const;
    const answers = await Promise.all(principals.map((principal) => callText(principal)));
    expect(answers).toEqual(principals.map((principal) => `you are ${principal}`));
    await (gateway as GatewayProcess).waitForStderr(/connected for principal "bob"/);
    expect(await callText('carol')).toContain('hintgate auth login team --principal carol');
  }, 60_000);

  it("closes a principal's connection when idle and opens it again on its next call", async () => {
    const stderr = gateway as GatewayProcess;
    const count = (pattern: RegExp) => stderr.stderr().match(pattern)?.length ?? 0;
    const connects = () => count(/connected for principal "alice"/g);
    const closes = () => count(/closed the connection for principal "alice" \(idle\)/g);
    // Open now (it may have been closed and opened again already): wait for it to idle out.
    if (connects() > closes()) {
      const closed = closes();
      await waitFor('the idle close', () => Promise.resolve(closes() > closed || undefined));
    }
    const before = connects();
    expect(await callText('alice')).toBe('you are alice');
    await waitFor('the new connection', () => Promise.resolve(connects() > before || undefined));
    expect(connects()).toBe(before + 1);
  }, 30_000);

  it("one principal's logout revokes its tokens and takes the server away from it alone", async () => {
    expect(await callText('bob')).toBe('you are bob');
    const run = await runCli(['auth', 'logout', 'team', '--config', config, '--principal', 'bob'], {
      env,
    });
    outputs.push(run.stdout, run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'team (principal bob): tokens revoked at the authorization server',
    );
    await waitFor('bob to lose the tool', async () =>
      (await toolNames('bob')).includes('team_whoami') ? undefined : true,
    );
    expect(await callText('bob')).toContain('hintgate auth login team --principal bob');
    expect(await callText('alice')).toBe('you are alice');
  }, 30_000);

  it('a code exchange that fails: the browser page says so, not "Logged in", and nothing is stored', async () => {
    await server.loginAs('carol');
    await server.failNextToken();
    const run = await loginWithCli(
      ['team', '--config', config, '--no-open', '--principal', 'carol'],
      env,
    );
    outputs.push(run.stdout, run.stderr, run.page?.text ?? '');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('OAuth login to "team" failed exchanging the code');
    expect(run.page?.status).toBe(502);
    expect(run.page?.text).toContain('The login failed');
    expect(run.page?.text).toContain('refused by the test');
    expect(run.page?.text).not.toContain('Logged in');
    expect(await callText('carol')).toContain('hintgate auth login team --principal carol');
  }, 60_000);

  it('auth status lists each principal; no token is printed or logged', async () => {
    const run = await runCli(['auth', 'status', '--config', config, '--json'], { env });
    outputs.push(run.stdout, run.stderr);
    expect(JSON.parse(run.stdout)).toMatchObject([
      { server: 'team', principal: 'alice', state: 'logged in' },
    ]);
    const tokens = await server.tokens();
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    const seen = [...outputs, gateway?.stderr() ?? ''].join('\n');
    expect(seen).toContain('logged in to "team" as bob');
    for (const token of tokens) expect(seen).not.toContain(token);
  }, 30_000);
});
