/**
 * The dashboard in real headless Chromium, against a real gateway (`hintgate serve --http`
 * with a token) over the counter and echo fixture servers, with a real SDK client making
 * the calls. Set HINTGATE_SCREENSHOTS=1 to write docs/images/dashboard-*.png.
 */
import { mkdirSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBrowser } from '../helpers/browser.js';
import { launchBrowser } from '../helpers/browser.js';
import {
  callTool,
  callsIn,
  connectGatewayHttp,
  counterServer,
  elicitingClient,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { rawListTools, spawnGateway } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';

const TOKEN = 'dashboard-test-token-0123456789';
const SCREENSHOTS = process.env['HINTGATE_SCREENSHOTS'] === '1';

describe('the dashboard in Chromium', { timeout: 60_000 }, () => {
  const dir = scratchDir();
  let gateway: GatewayProcess & { url: string };
  let base: string;
  let browser: TestBrowser;
  let page: Page;
  let client: Client;

  beforeAll(async () => {
    const config = await writeFastConfig(
      dir,
      { counter: counterServer(dir), echo: fixtureServer('echo', [], { era: 'legacy' }) },
      {
        toolsets: { default: 'ops' },
        policy: { approvalTimeoutMs: 60_000 },
      },
    );
    [gateway, browser] = await Promise.all([startGateway(config), launchBrowser()]);
    base = gateway.url.replace(/\/mcp$/, '');
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    // A client that cannot be asked (no elicitation): destructive calls go to the queue.
    client = elicitingClient('legacy', () => ({ action: 'decline' }), {
      elicitation: false,
    }).client;
    await connectGatewayHttp(client, gateway.url, { authorization: `Bearer ${TOKEN}` });
    await gateway.waitForStderr(/2 of 2 server\(s\) up/, 30_000);
  }, 150_000);
  afterAll(async () => {
    await client?.close();
    await browser?.close();
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it('sends a browser without a session to the login page; a wrong token is refused', async () => {
    await page.goto(`${base}/ui/approvals`);
    expect(new URL(page.url()).pathname).toBe('/ui/login');
    await page.fill('input[name=token]', 'not-the-token-at-all');
    await page.press('input[name=token]', 'Enter');
    await expect(page.locator('.notice.error').textContent()).resolves.toContain(
      "not the gateway's token",
    );
    await page.fill('input[name=token]', TOKEN);
    await page.press('input[name=token]', 'Enter');
    await page.waitForURL(`${base}/ui/approvals`);
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'hintgate_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('shows every fixture tool with its hints, their sources and the conflicts', async () => {
    await page.goto(`${base}/ui`);
    const servers = page.locator('table.servers tbody tr');
    await expect(servers.count()).resolves.toBe(2);
    await expect(servers.first().textContent()).resolves.toMatch(/counter\s*up.*2026-07-28/);
    const row = (tool: string) => page.locator('table.tools tbody tr', { hasText: tool });
    // Declared by the server, true.
    const write = row('counter_write_value').locator('.hint', { hasText: 'destructive' });
    await expect(write.getAttribute('class')).resolves.toContain('is-true src-declared');
    await expect(write.locator('.src').textContent()).resolves.toBe('declared');
    // Not declared: inferred, with the reason in the title.
    const add = row('echo_add').locator('.hint', { hasText: 'read-only' });
    await expect(add.getAttribute('class')).resolves.toContain('is-false src-inferred');
    await expect(add.getAttribute('title')).resolves.toMatch(/readOnlyHint = false, inferred: /);
    // Nobody said: unknown, distinct from false.
    const open = row('echo_add').locator('.hint', { hasText: 'open-world' });
    await expect(open.getAttribute('class')).resolves.toContain('is-unknown');
    await expect(open.locator('.src').textContent()).resolves.toBe('unknown');
    // A declared value that contradicts strong inference, highlighted.
    await expect(row('echo_delete_all_records').getAttribute('class')).resolves.toBe(
      'has-conflict',
    );
    await expect(page.locator('table.tools tbody tr').count()).resolves.toBe(21);
    if (SCREENSHOTS) await screenshot(page, 'dashboard-catalog.png');

    // Filters run on the server.
    await page.selectOption('select[name=hint]', 'destructiveHint:true');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/hint=destructiveHint%3Atrue/);
    const names = await page.locator('table.tools tbody th a').allTextContents();
    expect(names).toContain('counter_write_value');
    expect(names).not.toContain('counter_read_value');
    await page.goto(`${base}/ui?q=no-such-tool-anywhere`);
    await expect(page.locator('.empty').textContent()).resolves.toContain('No tools match');
  });

  it('shows a queued call without a reload; Approve releases it and the server runs it once', async () => {
    await page.goto(`${base}/ui/approvals`);
    await expect(page.locator('#approval-queue .empty').count()).resolves.toBe(1);
    await page.waitForSelector('#approval-queue[data-connected=true]');
    // Marks this page load: a reload would lose it.
    await page.evaluate('window.loadMark = 17');
    const call = callTool(client, 'counter_write_value', { key: 'k', value: 1, apiKey: 's3' });
    const item = page.locator('[data-approval]', { hasText: 'counter.write_value' });
    await item.waitFor();
    await expect(item.locator('pre.args').textContent()).resolves.toContain('"[redacted]"');
    await expect(item.locator('.facts').textContent()).resolves.toContain('elicit-legacy');
    await expect(item.locator('.left').textContent()).resolves.toMatch(/\d+:\d\d left/);
    expect(await page.evaluate('window.loadMark')).toBe(17);
    if (SCREENSHOTS) await screenshot(page, 'dashboard-approvals.png');
    expect(callsIn(dir, 'counter', 'write_value')).toEqual([]);
    await item.locator('button.approve').click();
    const result = await call;
    expect(result['isError']).toBeUndefined();
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
    await item.waitFor({ state: 'detached' });
  });

  it('Deny refuses the waiting call; the server never sees it', async () => {
    const call = callTool(client, 'counter_write_value', { key: 'k', value: 2 });
    const item = page.locator('[data-approval]', { hasText: 'counter.write_value' });
    await item.waitFor();
    await item.locator('input[name=note]').fill('not today');
    await item.locator('button.danger').click();
    const result = await call;
    expect(result['isError']).toBe(true);
    expect(textOf(result)).toContain('not today');
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
    await page.reload();
    await expect(page.locator('#approval-decided').textContent()).resolves.toContain(
      'dashboard:bearer',
    );
  });

  it('puts notes and overrides edited in the page into the next tools/list', async () => {
    // The default toolset does not exist yet: create it here, with every tool.
    await page.goto(`${base}/ui/toolsets`);
    await expect(page.locator('.empty').textContent()).resolves.toContain('No toolsets yet');
    await page.fill('#create input[name=name]', 'ops');
    await page.fill('#create textarea[name=members]', 'counter\necho');
    await page.click('#create button[type=submit]');
    await page.waitForURL(/\/ui\/toolsets\/ops\?done=created/);

    await page.goto(`${base}/ui`);
    await page.click('table.tools a:text-is("counter_read_value")');
    await page.waitForURL(/\/ui\/tools\/[0-9a-f]{16}/);
    // A bad note name: the error is shown and what was typed is kept.
    await page.fill('#note-add input[name=name]', 'Bad Name');
    await page.fill('#note-add textarea[name=note]', 'Ask which team owns the key first.');
    await page.click('#note-add button[type=submit]');
    await expect(page.locator('#note-add .notice.error').textContent()).resolves.toMatch(
      /note name "Bad Name" must match/,
    );
    await expect(page.inputValue('#note-add textarea[name=note]')).resolves.toBe(
      'Ask which team owns the key first.',
    );
    await page.fill('#note-add input[name=name]', 'owner');
    await page.click('#note-add button[type=submit]');
    await page.waitForURL(/done=note-added/);
    await expect(page.locator('pre.description').textContent()).resolves.toContain(
      '• **owner**: Ask which team owns the key first.',
    );
    // A global override: open-world true.
    await page.click('summary:text("Global override")');
    await page.selectOption('#ov-global select[name=openWorldHint]', 'true');
    await page.click('#ov-global button[type=submit]');
    await page.waitForURL(/done=override/);

    const tools = await rawListTools(client);
    const tool = tools.find((item) => item['name'] === 'counter_read_value');
    expect(tool?.['description']).toContain('### Additional Tool Notes');
    expect(tool?.['description']).toContain('• **owner**: Ask which team owns the key first.');
    expect(tool?.['annotations']).toMatchObject({ openWorldHint: true });
    expect(
      (tool?.['_meta'] as Record<string, { sources: Record<string, string> }>)['dev.hintgate/tool']
        ?.sources,
    ).toMatchObject({ openWorldHint: 'override' });
  });

  it('refuses requests without a session, from another origin, or without the CSRF token', async () => {
    const noSession = await fetch(`${base}/ui`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    expect(noSession.status).toBe(303);
    expect(noSession.headers.get('location')).toBe('/ui/login?next=%2Fui');
    expect((await fetch(`${base}/api/tools`)).status).toBe(401);
    expect((await fetch(`${base}/api/approvals`)).status).toBe(401);

    const cookie = (await browser.context.cookies()).find((c) => c.name === 'hintgate_session');
    const session = `hintgate_session=${cookie?.value ?? ''}`;
    expect((await fetch(`${base}/api/tools`, { headers: { cookie: session } })).status).toBe(200);
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const decide = (headers: Record<string, string>, body: string) =>
      fetch(`${base}/ui/approvals/000000000000`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: session,
          'content-type': 'application/x-www-form-urlencoded',
          ...headers,
        },
        body,
      });
    const foreign = await decide(
      { origin: 'http://evil.example' },
      `decision=approve&_csrf=${csrf}`,
    );
    expect(foreign.status).toBe(403);
    const noToken = await decide({ origin: base }, 'decision=approve');
    expect(noToken.status).toBe(403);
    await expect(noToken.text()).resolves.toContain('missing CSRF token');
    const wrongToken = await decide({ origin: base }, 'decision=approve&_csrf=guess');
    expect(wrongToken.status).toBe(403);
    // The same request with the token gets through the checks (and finds no such approval).
    const fine = await decide(
      { origin: base, accept: 'application/json' },
      `decision=approve&_csrf=${csrf}`,
    );
    expect(fine.status).toBe(404);
    // A rebinding attack's Host is refused before anything else (fetch would set its own).
    expect(await statusWithHost(`${base}/ui`, 'evil.example', session)).toBe(403);
  });
});

/** `hintgate serve --http` with a token; the first start of the embedded store can be slow. */
async function startGateway(config: string): Promise<GatewayProcess & { url: string }> {
  const gateway = spawnGateway(
    ['serve', '--config', config, '--http', '127.0.0.1:0', '--token', TOKEN],
    {},
    'ignore',
  );
  const match = await gateway.waitForStderr(/listening on (http:\/\/\S+)/, 90_000);
  return { ...gateway, url: match[1] as string };
}

/** The status of a GET sent with this Host header. */
function statusWithHost(url: string, host: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { host, cookie } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
  });
}

async function screenshot(page: Page, name: string): Promise<void> {
  const dir = join(ROOT, 'docs', 'images');
  mkdirSync(dir, { recursive: true });
  // No focus ring from autofocus in the picture.
  await page.evaluate('document.activeElement?.blur()');
  await page.screenshot({ path: join(dir, name), fullPage: true });
}
