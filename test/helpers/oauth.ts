import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fixture, requireBuiltCli, ROOT } from './paths.js';

/** A running `oauth-protected.mjs` fixture: the MCP URL, its authorization server, and a stop. */
export interface OAuthFixture {
  readonly mcp: string;
  readonly issuer: string;
  readonly origin: string;
  readonly child: ChildProcess;
  stats(): Promise<{ authorization_code: number; refresh_token: number; revoked: number }>;
  /** Every access and refresh token value the authorization server issued. */
  tokens(): Promise<string[]>;
  revokeAll(): Promise<void>;
  /** Revokes the access tokens only: a refresh still works. */
  revokeAccess(): Promise<void>;
  /** The token endpoint refuses its next few requests (a code exchange that fails). */
  failNextToken(): Promise<void>;
  /** How many issued access tokens are still valid (neither expired nor revoked). */
  validAccessTokens(): Promise<number>;
  /** The account the next logins log in as (the person at the browser). */
  loginAs(account: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the OAuth-protected server fixture (access tokens living `accessTtl` seconds). */
export async function startOAuthFixture(accessTtl = 3600): Promise<OAuthFixture> {
  const child = spawn(process.execPath, [fixture('oauth-protected')], {
    env: { ...process.env, ACCESS_TTL: String(accessTtl) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  child.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`the OAuth fixture exited (${String(code)}): ${said}`)),
    );
  });
  const { mcp, issuer } = JSON.parse(line) as { mcp: string; issuer: string };
  const origin = new URL(mcp).origin;
  return {
    mcp,
    issuer,
    origin,
    child,
    stats: async () => (await (await fetch(`${origin}/admin/stats`)).json()) as never,
    tokens: async () =>
      ((await (await fetch(`${origin}/admin/tokens`)).json()) as { tokens: string[] }).tokens,
    revokeAll: async () => {
      await fetch(`${origin}/admin/revoke`, { method: 'POST' });
    },
    revokeAccess: async () => {
      await fetch(`${origin}/admin/revoke-access`, { method: 'POST' });
    },
    failNextToken: async () => {
      await fetch(`${origin}/admin/fail-token`, { method: 'POST' });
    },
    validAccessTokens: async () =>
      ((await (await fetch(`${origin}/admin/valid`)).json()) as { access: number }).access,
    loginAs: async (account) => {
      await fetch(`${origin}/admin/user?name=${encodeURIComponent(account)}`, { method: 'POST' });
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Plays the person's browser: opens the authorization URL and follows every redirect (keeping
 * the authorization server's cookies) until the last page, the one hintgate's loopback
 * listener serves. Returns that page's status and text.
 */
export async function browse(start: string): Promise<{ status: number; text: string }> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      redirect: 'manual',
      headers: cookie === '' ? {} : { cookie },
    });
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const at = pair.indexOf('=');
      if (at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (location === null) return { status: response.status, text: await response.text() };
    await response.body?.cancel();
    url = new URL(location, url).href;
  }
  throw new Error(`more than 20 redirects from ${start}`);
}

/** What `hintgate auth login` printed and how it ended. */
export interface LoginRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The last page the browser got (hintgate's loopback listener). */
  readonly page?: { status: number; text: string };
}

/**
 * Runs `hintgate auth login <args>` and, once it prints the authorization URL, follows it
 * with {@link browse}.
 */
export async function loginWithCli(
  args: readonly string[],
  env: Record<string, string>,
): Promise<LoginRun> {
  const child = spawn(process.execPath, [requireBuiltCli(), 'auth', 'login', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let page: Promise<{ status: number; text: string }> | undefined;
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    const url = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(stderr)?.[1];
    if (url !== undefined) page ??= browse(url);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr, ...(page === undefined ? {} : { page: await page }) };
}
