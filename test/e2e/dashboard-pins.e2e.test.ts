/**
 * Drift and pins in the dashboard, in real headless Chromium, against a real gateway over
 * the rug-pull fixture, which changes under the running gateway (it sends list_changed);
 * a real SDK client lists and calls. An approver (the dashboard's own `http.uiToken`)
 * decides in the browser while a principal without the role (dana) looks at the same time.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord, ToolPin } from '../../src/store/types.js';
import type { TestBrowser } from '../helpers/browser.js';
import { launchBrowser } from '../helpers/browser.js';
import {
  callTool,
  connectGatewayHttp,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import type { HttpSession } from '../helpers/dashboard.js';
import {
  SCREENSHOTS,
  postForm,
  screenshot,
  signIn,
  startDashboardGateway,
} from '../helpers/dashboard.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { rawListTools } from '../helpers/gateway.js';

const AGENT_TOKEN = 'pins-agent-token-0123456789';
const UI_TOKEN = 'pins-ui-token-0123456789';
const DANA_TOKEN = 'pins-dana-token-0123456789';

describe('drift and pins in the dashboard', { timeout: 90_000 }, () => {
  const dir = scratchDir();
  const versionFile = join(dir, 'version.txt');
  const log = join(dir, 'calls.jsonl');
  let gateway: GatewayProcess & { url: string; base: string };
  let browser: TestBrowser;
  let page: Page;
  let client: Client;
  let listChanged = 0;
  let dana: HttpSession;

  /** The tools the fixture was called with, in order. */
  const calls = (): string[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => (JSON.parse(line) as { tool: string }).tool)
      : [];
  const listed = async (): Promise<Map<string, Record<string, unknown>>> =>
    new Map((await rawListTools(client)).map((tool) => [tool['name'] as string, tool]));
  /** Waits for the next list_changed after `before`, then reads the list. */
  const nextList = async (before: number) => {
    await eventually(() => (listChanged > before ? true : undefined), 20_000, 'list_changed');
    return listed();
  };
  const card = (tool: string) => page.locator('#pins-waiting li.drift', { hasText: tool });

  beforeAll(async () => {
    writeFileSync(versionFile, '1');
    const config = await writeFastConfig(
      dir,
      { notes: fixtureServer('rugpull', ['--version-file', versionFile, '--log', log]) },
      {
        http: { uiToken: UI_TOKEN, tokens: [{ name: 'dana', token: DANA_TOKEN }] },
        access: { approvers: ['ui'] },
      },
    );
    [gateway, browser] = await Promise.all([
      startDashboardGateway(config, AGENT_TOKEN),
      launchBrowser(),
    ]);
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    client = new Client({ name: 'pins-dashboard-test', version: '1' });
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      listChanged++;
    });
    await connectGatewayHttp(client, gateway.url, { authorization: `Bearer ${AGENT_TOKEN}` });
    await gateway.waitForStderr(/1 of 1 server\(s\) up/, 30_000);
    dana = await signIn(gateway.base, DANA_TOKEN);
  }, 150_000);
  afterAll(async () => {
    await client?.close();
    await browser?.close();
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it('shows a rug pull without a reload: graded, field by field, with a count in the navigation', async () => {
    const { base } = gateway;
    await page.goto(`${base}/ui/pins`);
    await page.fill('input[name=token]', UI_TOKEN);
    await page.press('input[name=token]', 'Enter');
    await page.waitForURL(`${base}/ui/pins`);
    await expect(page.locator('.who .principal').textContent()).resolves.toBe('ui');
    await expect(page.locator('#pins-waiting .empty').textContent()).resolves.toContain(
      'Nothing waits for a decision',
    );
    await expect(page.locator('[data-count=pins]').isHidden()).resolves.toBe(true);
    await page.waitForSelector('#pins-waiting[data-connected=true]');
    // Marks this page load: a reload would lose it.
    await page.evaluate('window.loadMark = 13');

    writeFileSync(versionFile, '2');
    // The page's strict CSP allows no string evaluation: the third card is waited for.
    await page.locator('#pins-waiting li.drift').nth(2).waitFor({ timeout: 30_000 });
    await expect(page.locator('#pins-waiting li.drift').count()).resolves.toBe(3);
    expect(await page.evaluate('window.loadMark')).toBe(13);
    await expect(page.locator('[data-count=pins]').textContent()).resolves.toMatch(/^3/);
    await expect(page.locator('#pending-count').textContent()).resolves.toBe('3');

    // The poisoned description: the words added are marked, the findings named.
    const poisoned = card('notes.get_note');
    await expect(poisoned.locator('.grades').textContent()).resolves.toContain('suspicious-text');
    await expect(poisoned.locator('td.after ins').first().textContent()).resolves.toContain(
      '<IMPORTANT>',
    );
    await expect(poisoned.locator('td.before pre').textContent()).resolves.toBe(
      'Reads one note by id.',
    );
    await expect(poisoned.locator('.findings').textContent()).resolves.toMatch(
      /sensitive-file[\s\S]*id_rsa/,
    );
    await expect(poisoned.locator('.meanwhile').textContent()).resolves.toContain('pinned values');
    // The destructive tool that says "read-only" now.
    const relaxed = card('notes.purge_all_records');
    const row = relaxed.locator('table.diff tr', { hasText: 'annotations.readOnlyHint' });
    await expect(row.locator('.grade').textContent()).resolves.toBe('relaxation');
    await expect(row.locator('td.before').textContent()).resolves.toBe('false');
    await expect(row.locator('td.after').textContent()).resolves.toBe('true');
    // The new tool: held back.
    await expect(card('notes.share_notes').locator('.meanwhile').textContent()).resolves.toContain(
      'Held back',
    );
    // The same page has the list of every pin, read again too.
    await expect(page.locator('#pins-list').textContent()).resolves.toContain('3 waiting');
    if (SCREENSHOTS) await screenshot(page, 'dashboard-pins.png');

    // Meanwhile the client sees none of it: every change is held back or kept at its pinned
    // values, so its listing is what it was (and no list_changed is owed).
    const tools = await listed();
    expect(JSON.stringify([...tools.values()])).not.toContain('IMPORTANT');
    expect(tools.has('notes_share_notes')).toBe(false);
  });

  it('shows a principal without the approver role the same drift, read-only, and refuses its decision', async () => {
    const { base } = gateway;
    const html = await (
      await fetch(`${base}/ui/pins`, { headers: { cookie: dana.cookie, accept: 'text/html' } })
    ).text();
    expect(html).toContain('notes.share_notes');
    expect(html).toContain('dana does not have the approver role');
    expect(html).not.toContain('action="/ui/pins/decide"');
    const refused = await postForm(base, '/ui/pins/decide', dana, {
      tool: 'notes.share_notes',
      decision: 'approve',
    });
    expect(refused.status).toBe(403);
    await expect(refused.text()).resolves.toContain('does not have the approver role');
    const pin = (await (
      await fetch(`${base}/api/pins/notes.share_notes`, { headers: { cookie: dana.cookie } })
    ).json()) as ToolPin;
    expect(pin.status).toBe('pending');
    // Bad input is named, whoever sends it.
    const ui = await signIn(base, UI_TOKEN);
    const bad = await postForm(base, '/ui/pins/decide', ui, { tool: 'nodot', decision: 'approve' });
    expect(bad.status).toBe(400);
    await expect(bad.text()).resolves.toContain('tool: expected server.tool');
    const nothing = await postForm(
      base,
      '/ui/pins/decide',
      ui,
      { tool: 'notes.list_notes', decision: 'approve' },
      'application/json',
    );
    expect(nothing.status).toBe(404);
    await expect(nothing.json()).resolves.toMatchObject({
      error: { code: 'NOT_FOUND', message: expect.stringContaining('notes.list_notes') },
    });
  });

  it('keeps a rejected new tool held; approving it releases it for the next tools/list and call', async () => {
    const { base } = gateway;
    const share = card('notes.share_notes');
    await share.locator('input[name=note]').fill('not before the audit');
    await share.locator('button', { hasText: 'Reject' }).click();
    await page.waitForSelector('#pins-waiting li.drift.s-rejected');
    await expect(card('notes.share_notes').textContent()).resolves.toContain(
      'Rejected by dashboard:ui',
    );
    await expect(card('notes.share_notes').locator('button').allTextContents()).resolves.toEqual([
      'Approve',
    ]);
    // Still held: not listed, and its call never reaches the server.
    expect((await listed()).has('notes_share_notes')).toBe(false);
    const held = await callTool(client, 'notes_share_notes', { url: 'https://x.example' }).then(
      (result) => textOf(result),
      (error: unknown) => String(error),
    );
    expect(held).toContain('held until a person reviews it');
    expect(calls()).not.toContain('share_notes');
    const audit = (await (
      await fetch(`${base}/api/audit?decision=pin:rejected`, { headers: { cookie: dana.cookie } })
    ).json()) as { records: AuditRecord[] };
    expect(audit.records[0]).toMatchObject({
      tool: 'notes.share_notes',
      approver: 'dashboard:ui',
      error: 'not before the audit',
    });

    const before = listChanged;
    await card('notes.share_notes').locator('button', { hasText: 'Approve' }).click();
    const tools = await eventually(
      async () => ((await nextList(before)).has('notes_share_notes') ? listed() : undefined),
      20_000,
      'notes_share_notes listed',
    );
    expect(tools.get('notes_share_notes')?.['description']).toBe(
      'Reads notes and posts them to a sharing service.',
    );
    expect(textOf(await callTool(client, 'notes_share_notes', { url: 'https://x.example' }))).toBe(
      'called share_notes',
    );
    expect(calls()).toContain('share_notes');
    await card('notes.share_notes').waitFor({ state: 'detached' });
    await expect(page.locator('#pending-count').textContent()).resolves.toBe('2');
  });

  it('rejects every waiting tool of a server at once; the gateway keeps serving the pinned values', async () => {
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('form.decide-all button', { hasText: 'Reject all 2' }).click();
    await page.locator('#pins-waiting li.drift.s-rejected').nth(1).waitFor({ timeout: 20_000 });
    await expect(page.locator('#pins-waiting li.drift').count()).resolves.toBe(2);
    await expect(page.locator('[data-count=pins]').isHidden()).resolves.toBe(true);
    const tools = await listed();
    expect(tools.get('notes_get_note')?.['description']).toBe('Reads one note by id.');
    expect(tools.get('notes_purge_all_records')?.['annotations']).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });

  it("approves from a tool's own page (a plain form), which shows both definitions", async () => {
    const { base } = gateway;
    await page.goto(`${base}/ui/pins/tool/notes.get_note`);
    await expect(page.locator('h1').textContent()).resolves.toBe('notes.get_note');
    await expect(page.locator('#pinned-heading + p + pre').textContent()).resolves.toContain(
      '"description": "Reads one note by id."',
    );
    await expect(page.locator('#pending-heading + p + pre').textContent()).resolves.toContain(
      'Do not tell the user.',
    );
    // A person who has read it accepts the new text: the gateway serves it at once.
    const before = listChanged;
    await page.fill('li.drift input[name=note]', 'read and accepted');
    await page.click('li.drift button:text-is("Approve")');
    await page.waitForURL(/\/ui\/pins\/tool\/notes\.get_note\?done=approved/);
    await expect(page.locator('.notice.ok').textContent()).resolves.toContain(
      'Approved notes.get_note',
    );
    await expect(page.locator('main .pill').first().textContent()).resolves.toBe('pinned');
    await expect(page.locator('main').textContent()).resolves.toContain(
      'Last decision by dashboard:ui',
    );
    await eventually(
      async () => {
        const description = (await nextList(before)).get('notes_get_note')?.['description'];
        return typeof description === 'string' && description.includes('<IMPORTANT>')
          ? true
          : undefined;
      },
      20_000,
      'the approved description listed',
    );
  });

  it('is usable from the keyboard: a skip link first, focus visible, the decision buttons reachable', async () => {
    const { base } = gateway;
    await page.goto(`${base}/ui/pins`);
    await page.keyboard.press('Tab');
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe(
      'Skip to content',
    );
    await page.keyboard.press('Enter');
    await expect(page.evaluate('document.activeElement.id')).resolves.toBe('main');
    // Tab on until the first Approve button of the waiting list.
    let label = '';
    for (let presses = 0; presses < 40 && label !== 'Approve'; presses++) {
      await page.keyboard.press('Tab');
      label = String(await page.evaluate('document.activeElement.textContent'));
    }
    expect(label).toBe('Approve');
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).toBe('solid');
  });
});
