/**
 * tools/list of 1,000 tools from 10 servers through the gateway's stdio front, against a
 * direct tools/list of one server holding the same 1,000 tools (the generator fixture), in
 * the same run, read both with a loose schema (everything kept) and with the SDK's typed
 * `listTools()`. Two tool sets: real tools (the recorded tools/list results of published
 * servers, about 1.7 KiB each) and tiny generated ones (about 0.2 KiB each), where what
 * hintgate adds weighs most. A client gets the compact listing (effective annotations, no
 * per-tool provenance) unless it declares `experimental["dev.hintgate/provenance"]`; both
 * are measured.
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dist/bench/gateway-list.js
 *
 * Goal: at most 1.2 times direct.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { provenanceCapabilities } from '../src/mcp/provenance.js';
import {
  CLI,
  LOOSE,
  fixed,
  fixture,
  machine,
  median,
  quantile,
  requireBuild,
  writeConfig,
} from './gateway-harness.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const LISTS = Number(process.env['LISTS'] ?? 40);

interface Setup {
  readonly label: string;
  readonly client: Client;
  readonly loose: number[];
  readonly typed: number[];
  bytes: number;
}

async function open(label: string, args: string[], provenance = false): Promise<Setup> {
  const client = new Client(
    { name: 'bench', version: '1' },
    provenance ? { capabilities: provenanceCapabilities() } : {},
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }),
  );
  const { tools } = (await client.request({ method: 'tools/list', params: {} }, LOOSE)) as {
    tools: unknown[];
  };
  if (tools.length !== 1000) throw new Error(`${label}: expected 1000 tools, got ${tools.length}`);
  return { label, client, loose: [], typed: [], bytes: JSON.stringify(tools).length };
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < LISTS; index++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return quantile(times, 0.5);
}

async function compare(kind: string, extra: string[]): Promise<void> {
  const servers = Object.fromEntries(
    Array.from({ length: 10 }, (_, index) => [
      `s${index}`,
      {
        command: process.execPath,
        args: [fixture('generator'), '--tools', '100', '--offset', String(index * 100), ...extra],
      },
    ]),
  );
  const config = writeConfig(servers, { pinning: { mode: 'warn' } });
  const setups = [
    await open('direct, 1 server', [fixture('generator'), '--tools', '1000', ...extra]),
    // Pins in `warn` mode: a few recorded descriptions read as instructions to the model and
    // would be held back, leaving fewer tools than the direct listing.
    await open('gateway, 10 servers', [CLI, 'serve', '--config', config]),
    // A client asking for every tool's full provenance (names, refId, sources).
    await open('  with provenance', [CLI, 'serve', '--config', config], true),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of setups) {
      setup.loose.push(
        await time(() => setup.client.request({ method: 'tools/list', params: {} }, LOOSE)),
      );
      setup.typed.push(await time(() => setup.client.listTools()));
    }
  }
  const [direct] = setups;
  if (direct !== undefined) {
    console.log(`\n${kind}`);
    console.log(
      'setup                 loose p50 ms   ratio   listTools() p50 ms   ratio   JSON of tools',
    );
    for (const setup of setups) {
      const loose = median(setup.loose);
      const typed = median(setup.typed);
      console.log(
        `${setup.label.padEnd(20)} ${fixed(loose, 2).padStart(13)} ${fixed(loose / median(direct.loose), 2).padStart(7)} ${fixed(typed, 2).padStart(20)} ${fixed(typed / median(direct.typed), 2).padStart(7)}   ${fixed(setup.bytes / 1024)} KiB`,
      );
    }
  }
  for (const setup of setups) await setup.client.close();
}

requireBuild();
console.log(
  `tools/list of 1,000 tools: ${machine()}, ${ROUNDS} rounds x ${LISTS} lists, medians over rounds`,
);
await compare('real tools (recorded from published servers)', ['--recorded']);
await compare('tiny generated tools', []);
