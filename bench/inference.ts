/**
 * Inference throughput, against the common naive approach.
 *
 *   npx tsc -p bench/tsconfig.json && node bench/dist/bench/inference.js
 *
 * Builds 12,000 realistic tool definitions deterministically from the recorded servers in
 * test/fixtures/servers (names re-cased and recombined, descriptions and schemas mixed),
 * warms both implementations up, then times each on one core. The baseline compiles
 * `new RegExp(`\\b${keyword}\\b`, 'i')` for every keyword on every call and tests it against
 * the name and the description, as many annotation inferrers do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inferAnnotations } from '../src/core/inference/infer.js';
import {
  ADDITIVE_VERBS,
  DESTRUCTIVE_VERBS,
  EXEC_VERBS,
  INTERACT_VERBS,
  READ_ONLY_VERBS,
  TOGGLE_VERBS,
  UPDATE_VERBS,
} from '../src/core/inference/lexicon.js';
import { splitNameParts } from '../src/core/inference/tokenize.js';
import type { ToolDefinitionInput } from '../src/core/inference/types.js';

const TOOL_COUNT = 12_000;
const ROUNDS = 5;
const ROUND_SECONDS = 0.5;

interface FixtureTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
}

function repoRoot(): string {
  // bench/dist/bench/inference.js → the repository root is three folders up.
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

function loadCorpus(): FixtureTool[] {
  const folder = join(repoRoot(), 'test', 'fixtures', 'servers');
  const tools: FixtureTool[] = [];
  for (const file of readdirSync(folder).sort()) {
    if (!file.endsWith('.tools.json')) continue;
    const fixture = JSON.parse(readFileSync(join(folder, file), 'utf8')) as {
      tools: FixtureTool[];
    };
    tools.push(...fixture.tools);
  }
  return tools;
}

/** mulberry32: a small seeded generator, so every run benchmarks the same tools. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function style(words: readonly string[], kind: number): string {
  const lower = words.map((word) => word.toLowerCase());
  const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
  switch (kind) {
    case 0:
      return lower.join('_');
    case 1:
      return lower.join('-');
    case 2:
      return lower.map((word, i) => (i === 0 ? word : capital(word))).join('');
    case 3:
      return lower.map(capital).join('');
    default:
      return `${lower[0] ?? 'tool'}.${lower.slice(1).join('_')}`;
  }
}

/** Realistic variations: verbs and objects recombined, casing changed, texts mixed. */
function generateTools(corpus: readonly FixtureTool[], count: number): ToolDefinitionInput[] {
  const random = seeded(20261122);
  const splits = corpus.map((tool) => splitNameParts(tool.name));
  const verbs = splits.map((parts) => parts[0] ?? 'get');
  const objects = splits.flatMap((parts) => parts.slice(1));
  const tools: ToolDefinitionInput[] = [];
  for (let i = 0; i < count; i++) {
    const base = corpus[i % corpus.length] as FixtureTool;
    const other = pick(random, corpus);
    const parts = splits[i % corpus.length] as string[];
    const words =
      i < corpus.length
        ? parts
        : [pick(random, verbs), ...(random() < 0.5 ? parts.slice(1) : [pick(random, objects)])];
    const sentences = (base.description ?? '').split('. ');
    const description =
      random() < 0.3
        ? `${sentences[0] ?? ''}. ${(other.description ?? '').slice(0, 200)}`
        : (base.description ?? '');
    tools.push({
      name: i < corpus.length ? base.name : style(words, Math.floor(random() * 5)),
      description,
      inputSchema: random() < 0.8 ? base.inputSchema : other.inputSchema,
    });
  }
  return tools;
}

const KEYWORDS: ReadonlyArray<readonly [string, string]> = [
  ...[...READ_ONLY_VERBS].map((word) => [word, 'read'] as const),
  ...[...DESTRUCTIVE_VERBS].map((word) => [word, 'destructive'] as const),
  ...[...UPDATE_VERBS].map((word) => [word, 'update'] as const),
  ...[...ADDITIVE_VERBS].map((word) => [word, 'additive'] as const),
  ...[...TOGGLE_VERBS].map((word) => [word, 'toggle'] as const),
  ...[...INTERACT_VERBS].map((word) => [word, 'interact'] as const),
  ...[...EXEC_VERBS].map((word) => [word, 'exec'] as const),
];

/** The common approach: one fresh word-boundary regex per keyword, per call. */
function naiveInfer(tool: ToolDefinitionInput): Record<string, boolean> {
  const text = `${tool.name} ${tool.description ?? ''}`;
  let read = false;
  let destructive = false;
  let write = false;
  for (const [keyword, kind] of KEYWORDS) {
    const pattern = new RegExp(`\\b${keyword}\\b`, 'i');
    if (!pattern.test(text)) continue;
    if (kind === 'read') read = true;
    else if (kind === 'destructive') destructive = true;
    else write = true;
  }
  const readOnly = read && !destructive && !write;
  return { readOnlyHint: readOnly, destructiveHint: destructive };
}

interface Measurement {
  /** Tools per second of this process's CPU time: what one core does, whatever else runs. */
  readonly perCpuSecond: number;
  /** Tools per second of wall-clock time: lower when other processes share the cores. */
  readonly perWallSecond: number;
  readonly checksum: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Warms up with two full passes, then times ROUNDS rounds of at least ROUND_SECONDS each
 * and reports the median rates, which shrug off a round disturbed by the machine.
 */
function measure(
  tools: readonly ToolDefinitionInput[],
  run: (tool: ToolDefinitionInput) => { readonly readOnlyHint?: unknown },
): Measurement {
  let checksum = 0;
  for (let pass = 0; pass < 2; pass++) {
    for (const tool of tools) checksum += run(tool).readOnlyHint === true ? 1 : 2;
  }
  const cpuRates: number[] = [];
  const wallRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let done = 0;
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < ROUND_SECONDS * 1000) {
      for (const tool of tools) checksum += run(tool).readOnlyHint === true ? 1 : 2;
      done += tools.length;
      elapsed = performance.now() - start;
    }
    const cpu = process.cpuUsage(cpuStart);
    cpuRates.push(done / ((cpu.user + cpu.system) / 1e6));
    wallRates.push((done / elapsed) * 1000);
  }
  return { perCpuSecond: median(cpuRates), perWallSecond: median(wallRates), checksum };
}

function format(value: number): string {
  return Math.round(value).toLocaleString('en-US').padStart(12);
}

function main(): void {
  const corpus = loadCorpus();
  const tools = generateTools(corpus, TOOL_COUNT);
  const ours = measure(tools, (tool) => inferAnnotations(tool).annotations);
  const naive = measure(tools, naiveInfer);
  const row = (label: string, m: Measurement): string =>
    `${label.padEnd(34)} ${format(m.perCpuSecond)} ${format(m.perWallSecond)}  ${(1e6 / m.perCpuSecond).toFixed(2).padStart(8)}`;
  console.log(
    `inference throughput: ${tools.length.toLocaleString('en-US')} tool definitions from ${corpus.length} recorded tools, one core, warmed up, median of ${ROUNDS} rounds`,
  );
  console.log(`${''.padEnd(34)} tools/cpu-s  tools/wall-s  µs/tool`);
  console.log(row('hintgate inferAnnotations', ours));
  console.log(row(`naive per-call RegExp (${KEYWORDS.length} words)`, naive));
  console.log(
    `ratio: ${(ours.perCpuSecond / naive.perCpuSecond).toFixed(1)}x the naive baseline (goal: >= 100,000 tools per CPU second)`,
  );
  // The checksums keep the work observable, so no pass can be optimized away.
  if (ours.checksum === 0 || naive.checksum === 0) process.exitCode = 1;
}

main();
