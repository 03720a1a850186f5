/**
 * The dashboard's catalog with 10,000 tools (ten generated servers of 1,000 real recorded
 * tools each), measured against the JSON API answering the same query (`/api/tools`, the
 * same filter and page): the server's time to answer each (request sent to body read) and
 * their sizes; then Chromium loading the page: when the HTML was received, DOM
 * ready (deferred script run), the load event (stylesheet and script included), and the
 * time Chromium spent in style, layout and script (its Performance metrics). Goal: the
 * catalog page usable in under 1 s. Interleaved round by round, medians.
 *
 * `COMPARE_CLI=/other/checkout/dist/cli/main.js` adds that build's gateway to every round, so
 * a change is compared with the code before it in one run rather than across noisy runs.
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
const COMPARE_CLI = process.env['COMPARE_CLI'];
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

/** A gateway measured: this build's, or another's (`COMPARE_CLI`). */
interface Target {
  readonly label: string;
  readonly base: string;
  readonly cookie: string;
  readonly stop: () => void;
}

/** Starts a gateway of `cli` on the 10,000 tools and waits until it lists every one. */
async function startTarget(label: string, cli: string, config: string): Promise<Target> {
  const gateway = await startServer([
    cli,
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
  const waitUntil = Date.now() + 180_000;
  for (;;) {
    const total = await fetch(`${base}/api/tools?size=25`, { headers: { cookie } })
      .then(async (response) => ((await response.json()) as { total: number }).total)
      .catch(() => 0);
    if (total >= SERVERS * PER_SERVER) break;
    if (gateway.child.exitCode !== null) throw new Error(`${label}: the gateway exited`);
    if (Date.now() > waitUntil)
      throw new Error(
        `${label}: the catalog has ${total} of ${SERVERS * PER_SERVER} tools after 3 minutes`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { label, base, cookie, stop: () => gateway.child.kill('SIGTERM') };
}

async function main(): Promise<void> {
  requireBuild();
  const config = (): string =>
    writeConfig(
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
      // Recorded tools carry text the pin scan holds back (long base64, "IMPORTANT" tags):
      // measured here is the dashboard, so every tool is served.
      { gateway: { startupWaitMs: 60_000 }, pinning: { mode: 'warn' } },
    );
  const targets = [
    await startTarget('this build', CLI, config()),
    ...(COMPARE_CLI === undefined ? [] : [await startTarget('COMPARE_CLI', COMPARE_CLI, config())]),
  ];

  const browser = existsSync(CHROMIUM) ? await launchBrowser() : undefined;
  const tab =
    browser === undefined
      ? undefined
      : (browser.context.pages()[0] ?? (await browser.context.newPage()));
  const cdp = tab === undefined ? undefined : await browser?.context.newCDPSession(tab);
  await cdp?.send('Performance.enable');
  // Cookies are per host, not per port: with two gateways, each page may open an anonymous
  // session (auth is off), the same small cost for both.
  for (const target of targets) await tab?.goto(`${target.base}/ui`);

  /** Chromium's own counters (seconds of layout, style, script) of the document loaded. */
  const counters = async (): Promise<Record<string, number>> => {
    const answer = (await cdp?.send('Performance.getMetrics')) as
      { metrics: { name: string; value: number }[] } | undefined;
    return Object.fromEntries((answer?.metrics ?? []).map((m) => [m.name, m.value]));
  };

  const samples = new Map<string, number[]>();
  const push = (target: Target, label: string, key: string, value: number): void => {
    const id = `${target.label}\0${label}\0${key}`;
    (samples.get(id) ?? samples.set(id, []).get(id)!).push(value);
  };
  const sizes = new Map<string, [number, number]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, query] of QUERIES) {
      for (const target of targets) {
        const page = await timed(`${target.base}/ui?${query}`, target.cookie);
        const api = await timed(`${target.base}/api/tools?${query}`, target.cookie);
        push(target, label, 'html', page.ms);
        push(target, label, 'json', api.ms);
        sizes.set(`${target.label}\0${label}`, [page.bytes, api.bytes]);
        if (tab === undefined) continue;
        await tab.goto(`${target.base}/ui?${query}`, { waitUntil: 'load' });
        // The counters start again with each document: after the load, they are its own.
        const after = await counters();
        const timing = await tab.evaluate<Record<string, number>>(`(() => {
          const nav = performance.getEntriesByType('navigation')[0];
          return { response: nav.responseEnd, dom: nav.domContentLoadedEventEnd,
            load: nav.loadEventEnd };
        })()`);
        for (const [key, value] of Object.entries(timing)) push(target, label, key, value);
        for (const [key, metric] of [
          ['layout', 'LayoutDuration'],
          ['style', 'RecalcStyleDuration'],
          ['script', 'ScriptDuration'],
        ] as const)
          push(target, label, key, (after[metric] ?? Number.NaN) * 1000);
      }
    }
  }
  await browser?.close();
  for (const target of targets) target.stop();

  const med = (target: Target, label: string, key: string): number => {
    const values = samples.get(`${target.label}\0${label}\0${key}`);
    return values === undefined ? Number.NaN : median(values);
  };
  const several = targets.length > 1;
  const name = (target: Target, label: string): string =>
    (several ? `${label} [${target.label}]` : label).padEnd(several ? 48 : 34);
  console.log(`dashboard catalog, ${SERVERS * PER_SERVER} tools, ${ROUNDS} rounds; ${machine()}`);
  console.log('server: the page (HTML) against /api/tools answering the same query (JSON)');
  console.log(
    'query'.padEnd(several ? 48 : 34) +
      'page ms'.padStart(9) +
      'JSON ms'.padStart(9) +
      'ratio'.padStart(7) +
      'page KiB'.padStart(10) +
      'JSON KiB'.padStart(10),
  );
  for (const [label] of QUERIES) {
    for (const target of targets) {
      const [pageBytes, apiBytes] = sizes.get(`${target.label}\0${label}`) ?? [0, 0];
      const html = med(target, label, 'html');
      const json = med(target, label, 'json');
      console.log(
        name(target, label) +
          fixed(html, 1).padStart(9) +
          fixed(json, 1).padStart(9) +
          `${fixed(html / json, 2)}x`.padStart(7) +
          fixed(pageBytes / 1024).padStart(10) +
          fixed(apiBytes / 1024).padStart(10),
      );
    }
  }
  let worst = 0;
  if (tab !== undefined) {
    console.log(
      'Chromium, ms from navigation start (HTML received, DOM ready, load) and ' +
        'ms spent in style, layout and script',
    );
    console.log(
      'query'.padEnd(several ? 48 : 34) +
        ['HTML', 'DOM', 'load', 'style', 'layout', 'script'].map((h) => h.padStart(8)).join(''),
    );
    for (const [label] of QUERIES) {
      for (const target of targets) {
        if (target === targets[0]) worst = Math.max(worst, med(target, label, 'load'));
        console.log(
          name(target, label) +
            ['response', 'dom', 'load', 'style', 'layout', 'script']
              .map((key) => fixed(med(target, label, key), 0).padStart(8))
              .join(''),
        );
      }
    }
  }
  console.log(`slowest median load (this build): ${fixed(worst, 0)} ms (goal: under 1000 ms)`);
  process.exit(0);
}

await main();
