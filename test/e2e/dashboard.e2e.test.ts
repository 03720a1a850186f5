/**
 * The dashboard in real headless Chromium, against a real gateway (`hintgate serve --http`
 * with a token) over the counter and echo fixture servers, with a real SDK client making
 * the calls (principal `bearer`). The person at the browser signs in with the dashboard's
 * own token (`http.uiToken`, principal `ui`, an approver); dana (no approver role) and the
 * calling principal look at the same time over HTTP. Set HINTGATE_SCREENSHOTS=1 to write
 * docs/images/dashboard-*.png.
 */
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
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import {
  SCREENSHOTS,
  postForm,
  screenshot,
  signIn,
  startDashboardGateway,
  statusWithHost,
} from '../helpers/dashboard.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { rawListTools } from '../helpers/gateway.js';
import { waitFor } from '../helpers/processes.js';

const TOKEN = 'dashboard-test-token-0123456789';
const UI_TOKEN = 'dashboard-ui-token-0123456789';
const DANA_TOKEN = 'dashboard-dana-token-0123456789';

describe('the dashboard in Chromium', { timeout: 60_000 }, () => {
  const dir = scratchDir();
  let gateway: GatewayProcess & { url: string; base: string };
  let base: string;
  let browser: TestBrowser;
  let page: Page;
  let client: Client;
  let listChanged = 0;

  beforeAll(async () => {
    const config = await writeFastConfig(
      dir,
      { counter: counterServer(dir), echo: fixtureServer('echo', [], { era: 'legacy' }) },
      {
        toolsets: { default: 'ops' },
        policy: { approvalTimeoutMs: 60_000 },
        http: { uiToken: UI_TOKEN, tokens: [{ name: 'dana', token: DANA_TOKEN }] },
        // The calling principal is an approver too: never of its own calls.
        access: { approvers: ['ui', 'bearer'] },
      },
    );
    [gateway, browser] = await Promise.all([startDashboardGateway(config, TOKEN), launchBrowser()]);
    base = gateway.base;
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    // A client that cannot be asked (no elicitation): destructive calls go to the queue.
    client = elicitingClient('legacy', () => ({ action: 'decline' }), {
      elicitation: false,
    }).client;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      listChanged++;
    });
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
      "not one of the gateway's tokens",
    );
    await page.fill('input[name=token]', UI_TOKEN);
    await page.press('input[name=token]', 'Enter');
    await page.waitForURL(`${base}/ui/approvals`);
    await expect(page.locator('.who .principal').textContent()).resolves.toBe('ui');
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
      'dashboard:ui',
    );
  });

  it('refuses the decision of the principal that made the call, and of one without the role', async () => {
    const call = callTool(client, 'counter_write_value', { key: 'k', value: 3 });
    const item = page.locator('[data-approval]', { hasText: 'counter.write_value' });
    await item.waitFor();
    await expect(item.locator('.requester').textContent()).resolves.toContain('bearer');
    const id = (await item.getAttribute('data-approval')) ?? '';
    // The caller's own token, signed in to the dashboard, and dana, at the same time.
    const [caller, dana] = await Promise.all([signIn(base, TOKEN), signIn(base, DANA_TOKEN)]);
    const [own, other] = await Promise.all([
      fetch(`${base}/ui/approvals`, { headers: { cookie: caller.cookie, accept: 'text/html' } }),
      fetch(`${base}/ui/approvals`, { headers: { cookie: dana.cookie, accept: 'text/html' } }),
    ]);
    const ownPage = await own.text();
    expect(ownPage).toContain('You made this call (bearer)');
    expect(ownPage).not.toContain(`action="/ui/approvals/${id}"`);
    const otherPage = await other.text();
    expect(otherPage).toContain('dana does not have the approver role');
    expect(otherPage).not.toContain(`action="/ui/approvals/${id}"`);
    const refusals = await Promise.all(
      [caller, dana].map((session) =>
        postForm(base, `/ui/approvals/${id}`, session, { decision: 'approve' }),
      ),
    );
    expect(refusals.map((response) => response.status)).toEqual([403, 403]);
    await expect(refusals[0]?.text()).resolves.toContain('bearer made this call');
    await expect(refusals[1]?.text()).resolves.toContain('does not have the approver role');
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
    // The approver at the browser decides.
    await item.locator('button.danger').click();
    const result = await call;
    expect(result['isError']).toBe(true);
    expect(callsIn(dir, 'counter', 'write_value')).toHaveLength(1);
  });

  it("signs in with the dashboard's own token, which is no bearer token of /mcp or /api", async () => {
    const bearer = { authorization: `Bearer ${UI_TOKEN}` };
    expect((await fetch(`${base}/api/tools`, { headers: bearer })).status).toBe(401);
    const mcp = await fetch(gateway.url, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    expect(
      (await fetch(`${base}/api/tools`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);
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

  it('shows per-tool stats over the window chosen, and names a window it does not know', async () => {
    await page.goto(`${base}/ui/stats`);
    await expect(page.inputValue('select[name=window]')).resolves.toBe('24h');
    const row = page.locator('table.stats tbody tr', { hasText: 'counter.write_value' });
    await expect(row.locator('td').first().textContent()).resolves.toMatch(/^[1-9]\d*$/);
    await page.selectOption('select[name=window]', '15m');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/\/ui\/stats\?window=15m/);
    await expect(page.inputValue('select[name=window]')).resolves.toBe('15m');
    await expect(page.locator('main').textContent()).resolves.toContain('in the last 15m');
    await row.waitFor();
    const bad = await page.goto(`${base}/ui/stats?window=2y`);
    expect(bad?.status()).toBe(400);
    await expect(page.locator('.notice.error').textContent()).resolves.toContain(
      'window: expected one of 15m, 1h, 24h, 7d, 30d; got "2y"',
    );
  });

  it("edits a toolset's members, naming a bad line, and equips it as the default of sessions without a choice", async () => {
    await page.goto(`${base}/ui/toolsets`);
    await expect(page.locator('nav a[aria-current=page]').allTextContents()).resolves.toEqual([
      'Toolsets',
    ]);
    await page.fill('#create input[name=name]', 'readers');
    await page.fill('#create textarea[name=members]', 'counter.read_value');
    await page.click('#create button[type=submit]');
    await page.waitForURL(/\/ui\/toolsets\/readers\?done=created/);
    // A bad line: the error names it, what was typed stays, nothing is written.
    const typed = 'counter.read_value\n\nbad server!';
    await page.fill('#members textarea[name=members]', typed);
    await page.click('#members button[type=submit]');
    await expect(page.locator('#members .notice.error').textContent()).resolves.toContain(
      'members, line 3 ("bad server!")',
    );
    await expect(page.inputValue('#members textarea[name=members]')).resolves.toBe(typed);
    await page.fill('#members textarea[name=members]', 'counter.read_value\necho.echo');
    await page.click('#members button[type=submit]');
    await page.waitForURL(/done=saved/);
    await expect(page.locator('ul.members').textContent()).resolves.toContain('echo.echo');

    // The client's session has not chosen a toolset: it is told, and lists these two.
    let before = listChanged;
    await page.click('button:text-is("Equip as default")');
    await page.waitForURL(/done=default/);
    await expect(page.locator('main .pill').first().textContent()).resolves.toBe('default');
    await eventually(() => (listChanged > before ? true : undefined), 20_000, 'list_changed');
    const names = (await rawListTools(client)).map((tool) => tool['name']).sort();
    expect(names).toEqual(['counter_read_value', 'echo_echo']);
    before = listChanged;
    await page.click('button:text-is("Stop being the default")');
    await page.waitForURL(/done=default/);
    await eventually(() => (listChanged > before ? true : undefined), 20_000, 'list_changed');
    expect((await rawListTools(client)).length).toBeGreaterThan(2);
  });

  it('answers a page that does not exist with the navigation and what is missing', async () => {
    const missing = await page.goto(`${base}/ui/no-such-page`);
    expect(missing?.status()).toBe(404);
    await expect(page.locator('.notice.error').textContent()).resolves.toBe(
      'No page at /ui/no-such-page.',
    );
    await expect(page.locator('nav a').count()).resolves.toBe(6);
    const tool = await page.goto(`${base}/ui/tools/nothing.here`);
    expect(tool?.status()).toBe(404);
    await expect(page.locator('.notice.error').textContent()).resolves.toContain(
      'No tool "nothing.here" in the catalog',
    );
  });

  it('equips a toolset as the default, kept in the store over the config default', async () => {
    const servers = async (): Promise<string[]> =>
      [...new Set((await rawListTools(client)).map((tool) => String(tool['name']).split('_')[0]))]
        .filter((name): name is string => name !== undefined)
        .sort();
    expect(await servers()).toEqual(['counter', 'echo']);
    await page.goto(`${base}/ui/toolsets`);
    await page.fill('#create input[name=name]', 'echo-only');
    await page.fill('#create textarea[name=members]', 'echo');
    await page.click('#create button[type=submit]');
    await page.waitForURL(/\/ui\/toolsets\/echo-only\?done=created/);
    await page.click('button[name=action][value=set]');
    await page.waitForURL(/\/ui\/toolsets\/echo-only\?done=default/);
    await expect(page.locator('form.inline .pill').textContent()).resolves.toBe('default');
    await waitFor(servers, (names) => names.join() === 'echo', 10_000, 50);
    await page.goto(`${base}/ui/toolsets`);
    await expect(page.locator('main p.muted').first().textContent()).resolves.toMatch(
      /see echo-only \(chosen by dashboard:ui; it wins over the config's toolsets\.default, "ops"\)/,
    );
    await page.goto(`${base}/ui/toolsets/echo-only`);
    await page.click('button[name=action][value=config]');
    await page.waitForURL(/done=default/);
    await waitFor(servers, (names) => names.join() === 'counter,echo', 10_000, 50);
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
