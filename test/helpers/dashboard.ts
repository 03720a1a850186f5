import { mkdirSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { GatewayProcess } from './gateway.js';
import { spawnGateway } from './gateway.js';
import { ROOT } from './paths.js';

/** Whether the dashboard tests write docs/images/dashboard-*.png. */
export const SCREENSHOTS = process.env['HINTGATE_SCREENSHOTS'] === '1';

/** `hintgate serve --http` with a bearer token; the first start of the embedded store can be slow. */
export async function startDashboardGateway(
  config: string,
  token: string,
): Promise<GatewayProcess & { url: string; base: string }> {
  const gateway = spawnGateway(
    ['serve', '--config', config, '--http', '127.0.0.1:0', '--token', token],
    {},
    'ignore',
  );
  const match = await gateway.waitForStderr(/listening on (http:\/\/\S+)/, 90_000);
  const url = match[1] as string;
  return { ...gateway, url, base: url.replace(/\/mcp$/, '') };
}

/** A browser-less dashboard session: its cookie header and CSRF token. */
export interface HttpSession {
  readonly cookie: string;
  readonly csrf: string;
}

/** Signs in to the dashboard over plain HTTP (as a browser would) with `token`. */
export async function signIn(base: string, token: string): Promise<HttpSession> {
  const login = await fetch(`${base}/ui/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, next: '/ui' }),
  });
  if (login.status !== 303) throw new Error(`sign-in refused: ${login.status}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const page = await fetch(`${base}/ui/toolsets`, { headers: { cookie, accept: 'text/html' } });
  return { cookie, csrf: csrfIn(await page.text()) };
}

/** The CSRF token a page's forms carry. */
export function csrfIn(html: string): string {
  const found = /name="_csrf" value="([^"]+)"/.exec(html);
  if (found?.[1] === undefined) throw new Error('no CSRF token on the page');
  return found[1];
}

/** A form posted to the dashboard from its own origin, with the session's CSRF token. */
export function postForm(
  base: string,
  path: string,
  session: HttpSession,
  fields: Record<string, string>,
  accept = 'text/html',
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: session.cookie,
      origin: base,
      accept,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ ...fields, _csrf: session.csrf }),
  });
}

/** The status of a GET sent with this Host header (fetch would set its own). */
export function statusWithHost(url: string, host: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { host, cookie } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
  });
}

/** Writes docs/images/<name> from the page as it is, without a focus ring or a passing toast. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = join(ROOT, 'docs', 'images');
  mkdirSync(dir, { recursive: true });
  await page.evaluate('document.activeElement?.blur()');
  await page.evaluate("document.getElementById('live')?.setAttribute('hidden', '')");
  await page.screenshot({ path: join(dir, name), fullPage: true });
}
