/**
 * The dashboard's catalog with 10,000 tools (ten generated servers of 1,000 real recorded
 * tools each), measured against the JSON API answering the same query (`/api/tools`, the
 * same filter and page): the server's time to answer each (request sent to body read), and
 * Chromium's time to load the page (navigation start to the load event, stylesheet and
 * script included). Goal: the catalog page renders in under 1 s. Interleaved round by
 * round, medians.
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/dashboard.js
 */
import { existsSync } from 'node:fs';
import { CHROMIUM, launchBrowser } from '../test/helpers/browser.js';
import {
  CLI,
  fixed,
  fixture,
  machine,
  median,
  requireBuild,
  startServer,
  writeConfig,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 15);
const SERVERS = 10;
const PER_SERVER = 1000;

/** The catalog queries measured: the first page, a search, a filter, a late page. */
const QUERIES: readonly (readonly [string, string])[] = [
  ['first page (50)', 'size=50'],
  ['search "delete" (50)', 'q=delete&size=50'],
  ['filter open-world unknown (100)', 'hint=openWorldHint%3Aunknown&size=100'],
  ['page 40 of 200-tool pages', 'size=200&page=40'],
];

async function timed(url: string, cookie: string): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  const response = await fetch(url, { headers: { cookie, accept: 'text/html' } });
  const body = await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return { ms: performance.now() - start, bytes: body.byteLength };
}

async function main(): Promise<void> {
  requireBuild();
  const config = writeConfig(
    Object.fromEntries(
      Array.from({ length: SERVERS }, (_, index) => [
        `s${index}`,
        {
          command: process.execPath,
          args: [
            fixture('generator'),
            '--recorded',
            '--tools',
            String(PER_SERVER),
            '--offset',
            String(index * PER_SERVER),
          ],
        },
      ]),
    ),
    { gateway: { startupWaitMs: 60_000 } },
  );
  const gateway = await startServer([
    CLI,
    'serve',
    '--config',
    config,
    '--http',
    '127.0.0.1:0',
    '--no-auth',
  ]);
  const base = gateway.url.replace(/\/mcp$/, '');
  // Auth is off: the first page gives an anonymous session's cookie.
  const first = await fetch(`${base}/ui`, { headers: { accept: 'text/html' } });
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  await first.arrayBuffer();
  // Wait until every tool is in the catalog (the servers start while the gateway listens).
  for (;;) {
    const total = await fetch(`${base}/api/tools?size=25`, { headers: { cookie } })
      .then(async (response) => ((await response.json()) as { total: number }).total)
      .catch(() => 0);
    if (total >= SERVERS * PER_SERVER) break;
    if (gateway.child.exitCode !== null) throw new Error('the gateway exited');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  const browser = existsSync(CHROMIUM) ? await launchBrowser() : undefined;
  const tab =
    browser === undefined
      ? undefined
      : (browser.context.pages()[0] ?? (await browser.context.newPage()));
  await tab?.goto(`${base}/ui`);

  const html = new Map<string, number[]>();
  const json = new Map<string, number[]>();
  const load = new Map<string, number[]>();
  const sizes = new Map<string, [number, number]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, query] of QUERIES) {
      const page = await timed(`${base}/ui?${query}`, cookie);
      const api = await timed(`${base}/api/tools?${query}`, cookie);
      (html.get(label) ?? html.set(label, []).get(label))?.push(page.ms);
      (json.get(label) ?? json.set(label, []).get(label))?.push(api.ms);
      sizes.set(label, [page.bytes, api.bytes]);
      if (tab !== undefined) {
        await tab.goto(`${base}/ui?${query}`, { waitUntil: 'load' });
        const ms = await tab.evaluate('performance.getEntriesByType("navigation")[0].loadEventEnd');
        (load.get(label) ?? load.set(label, []).get(label))?.push(Number(ms));
      }
    }
  }
  await browser?.close();
  gateway.child.kill('SIGTERM');

  console.log(`dashboard catalog, ${SERVERS * PER_SERVER} tools, ${ROUNDS} rounds; ${machine()}`);
  console.log(
    'query'.padEnd(34) +
      'page ms'.padStart(9) +
      'JSON ms'.padStart(9) +
      'ratio'.padStart(7) +
      'page KiB'.padStart(10) +
      'JSON KiB'.padStart(10) +
      'Chromium load ms'.padStart(18),
  );
  let worst = 0;
  for (const [label] of QUERIES) {
    const page = median(html.get(label) ?? []);
    const api = median(json.get(label) ?? []);
    const loaded = load.has(label) ? median(load.get(label) ?? []) : Number.NaN;
    worst = Math.max(worst, page, Number.isFinite(loaded) ? loaded : 0);
    const [pageBytes, apiBytes] = sizes.get(label) ?? [0, 0];
    console.log(
      label.padEnd(34) +
        fixed(page, 1).padStart(9) +
        fixed(api, 1).padStart(9) +
        `${fixed(page / api, 2)}x`.padStart(7) +
        fixed(pageBytes / 1024).padStart(10) +
        fixed(apiBytes / 1024).padStart(10) +
        fixed(loaded, 0).padStart(18),
    );
  }
  console.log(`slowest median: ${fixed(worst, 0)} ms (goal: under 1000 ms)`);
  process.exit(0);
}

await main();
