/**
 * Converting a large real OpenAPI document into tools, against reading it.
 *
 *   npm run bench:build && node bench/dist/bench/openapi.js
 *
 * GitHub's REST API description (test/fixtures/openapi/github-api.json.gz, 1,223 operations,
 * 13 MB of JSON) is read once with `loadOpenApiDocument` (parse, validate, dereference:
 * timed, reported apart). Then, in rounds: the conversion into tools (names, input and output
 * schemas, call plans) plus the annotations the catalog infers for each, against the
 * baseline of `JSON.parse` of the document's text (the least any reader of it pays). The
 * medians of CPU time are reported, and their ratio; the goal is a conversion under 1 s.
 */
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { inferOpenApiAnnotations } from '../src/downstream/openapi/annotations.js';
import { loadOpenApiDocument } from '../src/downstream/openapi/document.js';
import { convertDocument } from '../src/downstream/openapi/operations.js';

const ROUNDS = 7;

function repoRoot(): string {
  // bench/dist/bench/openapi.js → the repository root is three folders up.
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** CPU milliseconds `run` takes, median of {@link ROUNDS} rounds after one warm-up. */
function cpuMs(run: () => void): number {
  run();
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

async function main(): Promise<void> {
  const text = gunzipSync(
    readFileSync(join(repoRoot(), 'test', 'fixtures', 'openapi', 'github-api.json.gz')),
  );
  const file = join(mkdtempSync(join(tmpdir(), 'hintgate-bench-')), 'api.github.com.json');
  writeFileSync(file, text);
  const json = text.toString('utf8');

  const loadStart = process.cpuUsage();
  const wallStart = performance.now();
  const document = await loadOpenApiDocument(file, { timeoutMs: 5_000 });
  const loadWall = performance.now() - wallStart;
  const loadUsed = process.cpuUsage(loadStart);

  let tools = 0;
  const convert = cpuMs(() => {
    const converted = convertDocument(document);
    for (const { tool } of converted) inferOpenApiAnnotations(tool);
    tools = converted.length;
  });
  const parse = cpuMs(() => {
    JSON.parse(json);
  });
  console.log(`document: ${(json.length / 1e6).toFixed(1)} MB, ${tools} operations`);
  console.log(
    `load (parse, validate, dereference): ${((loadUsed.user + loadUsed.system) / 1000).toFixed(0)} ms CPU, ${loadWall.toFixed(0)} ms wall`,
  );
  console.log(`baseline JSON.parse of the text:     ${parse.toFixed(0)} ms CPU (median)`);
  console.log(`conversion + inferred annotations:   ${convert.toFixed(0)} ms CPU (median)`);
  console.log(`ratio conversion / JSON.parse:       ${(convert / parse).toFixed(2)}×`);
  console.log(`per operation:                       ${((convert * 1000) / tools).toFixed(0)} µs`);
  console.log(convert < 1000 ? 'conversion under 1 s: yes' : 'conversion under 1 s: NO');
}

await main();
