/**
 * Inference quality against authors' annotations, on three sets of real tools.
 *
 *   npx tsc -p bench/tsconfig.json && node bench/dist/bench/score-inference.js \
 *     [--errors N] [--servers] [--ceiling] [--set public|recorded|held-out] [--held-out]
 *     [--public FILE]
 *   node bench/dist/bench/score-inference.js --predict < tools.json > annotations.json
 *
 * The sets: the public development set (`shared/eval/public-annotated-tools.jsonl` in a
 * folder above the repository, or `--public FILE`), the recorded corpus
 * (`test/fixtures/servers/*.tools.json`) and the held-out servers
 * (`test/fixtures/servers/held-out/*.tools.json`, scored only with `--held-out`: they are
 * kept out of tuning and scored to report).
 * Per hint: precision, recall and F1 over the tools whose author declared it, a hint left
 * unset counting as the MCP default (an unset destructiveHint on a tool inferred read-only
 * counts as false). Dangerous misses: declared destructive (and not read-only) tools
 * inferred read-only. Conflict rate: the share of tools with declared annotations whose
 * declared value an untrusted server would see changed by a conflict. `--servers` adds a
 * line per server; `--errors N` lists N misses per hint. `--ceiling` scores instead what
 * any function of the name's verb (or verb and object) could reach on each set, and on the
 * two development sets together (`ceiling.ts`).
 *
 * `--predict` reads a JSON array of tools on stdin and prints their inferred annotations,
 * the command interface of the shared `score-inference.mjs`.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveEffectiveAnnotations } from '../src/core/annotations/effective.js';
import type { HintField, ToolAnnotations } from '../src/core/annotations/types.js';
import { HINT_FIELDS, SPEC_DEFAULTS } from '../src/core/annotations/types.js';
import { inferAnnotations } from '../src/core/inference/infer.js';
import { ceilingReport } from './ceiling.js';

interface Tool {
  readonly server: string;
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly annotations?: ToolAnnotations;
}

interface Confusion {
  n: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  misses: string[];
}

function repoRoot(): string {
  // bench/dist/bench/score-inference.js → the repository root is three folders up.
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

/** The file at `relative` in `from` or the nearest folder above it that has it. */
function findAbove(from: string, relative: string): string {
  let folder = dirname(from);
  for (;;) {
    const candidate = join(folder, relative);
    if (existsSync(candidate) || dirname(folder) === folder) return candidate;
    folder = dirname(folder);
  }
}

function loadFolder(folder: string): Tool[] {
  if (!existsSync(folder)) return [];
  const tools: Tool[] = [];
  for (const file of readdirSync(folder).sort()) {
    if (!file.endsWith('.tools.json')) continue;
    const server = file.replace('.tools.json', '');
    const fixture = JSON.parse(readFileSync(join(folder, file), 'utf8')) as {
      tools: Array<Omit<Tool, 'server'>>;
    };
    for (const tool of fixture.tools) tools.push({ ...tool, server });
  }
  return tools;
}

function loadJsonl(file: string): Tool[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Tool);
}

function predicted(annotations: ToolAnnotations, hint: HintField): boolean {
  const value = annotations[hint];
  if (typeof value === 'boolean') return value;
  if (hint === 'destructiveHint' && annotations.readOnlyHint === true) return false;
  return SPEC_DEFAULTS[hint];
}

function declaredHints(tool: Tool): ToolAnnotations | undefined {
  const declared = tool.annotations;
  if (declared === undefined) return undefined;
  return HINT_FIELDS.some((hint) => typeof declared[hint] === 'boolean') ? declared : undefined;
}

interface SetScore {
  readonly tools: number;
  readonly servers: number;
  readonly hints: Record<HintField, Confusion>;
  readonly dangerous: { n: number; misses: string[] };
  readonly conflicts: { n: number; changed: string[] };
  /** The same, server by server, in the order the servers came. */
  readonly perServer: ReadonlyMap<string, SetScore>;
}

/** Scores one set of tools, and each of its servers. */
export function scoreSet(tools: readonly Tool[]): SetScore {
  const byServer = new Map<string, Tool[]>();
  for (const tool of tools) {
    const own = byServer.get(tool.server);
    if (own === undefined) byServer.set(tool.server, [tool]);
    else own.push(tool);
  }
  const perServer = new Map<string, SetScore>();
  if (byServer.size > 1) {
    for (const [server, own] of byServer) perServer.set(server, scoreSet(own));
  }
  return { ...scoreTools(tools), servers: byServer.size, perServer };
}

function scoreTools(tools: readonly Tool[]): Omit<SetScore, 'servers' | 'perServer'> {
  const hints = Object.fromEntries(
    HINT_FIELDS.map((hint) => [hint, { n: 0, tp: 0, fp: 0, fn: 0, tn: 0, misses: [] }]),
  ) as unknown as Record<HintField, Confusion>;
  const dangerous = { n: 0, misses: [] as string[] };
  const conflicts = { n: 0, changed: [] as string[] };
  for (const tool of tools) {
    const id = `${tool.server}/${tool.name}`;
    const inference = inferAnnotations(tool);
    const inferred = inference.annotations;
    const declared = tool.annotations ?? {};
    for (const hint of HINT_FIELDS) {
      const label = declared[hint];
      if (typeof label !== 'boolean') continue;
      const guess = predicted(inferred, hint);
      const c = hints[hint];
      c.n++;
      if (label && guess) c.tp++;
      else if (!label && guess) c.fp++;
      else if (label && !guess) c.fn++;
      else c.tn++;
      if (label !== guess) c.misses.push(`${id}: ${String(label)} -> ${String(guess)}`);
    }
    if (declared.destructiveHint === true && declared.readOnlyHint !== true) {
      dangerous.n++;
      if (inferred.readOnlyHint === true) dangerous.misses.push(id);
    }
    const hinted = declaredHints(tool);
    if (hinted !== undefined) {
      conflicts.n++;
      const effective = resolveEffectiveAnnotations({
        inference,
        declared: hinted,
        trust: 'untrusted',
      });
      for (const conflict of effective.conflicts) {
        conflicts.changed.push(`${id} ${conflict.field}: ${conflict.reason}`);
      }
    }
  }
  return { tools: tools.length, hints, dangerous, conflicts };
}

function f1(c: Confusion): { precision: number; recall: number; f1: number } {
  const precision = c.tp / (c.tp + c.fp || 1);
  const recall = c.tp / (c.tp + c.fn || 1);
  const f = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1: f };
}

/** One line per server: accuracy (n) per hint, dangerous misses, declared values changed. */
function serverTable(score: SetScore): string[] {
  if (score.perServer.size === 0) return [];
  const lines = [
    '  per server: tools, accuracy (n) for readOnly | destructive | idempotent | openWorld,',
  ];
  lines.push('  dangerous misses, declared values changed by a conflict');
  for (const [server, own] of score.perServer) {
    const cells = HINT_FIELDS.map((hint) => {
      const c = own.hints[hint];
      return (c.n === 0 ? '   -' : `${((c.tp + c.tn) / c.n).toFixed(2)} (${c.n})`).padEnd(12);
    });
    const danger =
      own.dangerous.n === 0 ? '-' : `${own.dangerous.misses.length}/${own.dangerous.n}`;
    const changed = new Set(own.conflicts.changed.map((line) => line.split(' ')[0])).size;
    lines.push(
      `    ${server.padEnd(32)} ${String(own.tools).padStart(4)}  ${cells.join(' ')} ${danger.padEnd(6)} ${changed}/${own.conflicts.n}`,
    );
  }
  return lines;
}

function report(label: string, score: SetScore, errors: number, servers: boolean): string {
  const lines = [`${label}: ${score.tools} tools, ${score.servers} servers`];
  lines.push('  hint               n    prec   recall F1      TP   FP   FN   TN');
  for (const hint of HINT_FIELDS) {
    const c = score.hints[hint];
    const m = f1(c);
    const cells = [c.tp, c.fp, c.fn, c.tn].map((v) => String(v).padStart(4)).join(' ');
    lines.push(
      `  ${hint.padEnd(16)} ${String(c.n).padStart(4)}  ${m.precision.toFixed(3)}  ${m.recall.toFixed(3)}  ${m.f1.toFixed(3)}  ${cells}`,
    );
  }
  const d = score.dangerous;
  const rate = (part: number, whole: number): string =>
    `${((100 * part) / (whole || 1)).toFixed(1)}%`;
  lines.push(`  dangerous misses: ${d.misses.length}/${d.n} = ${rate(d.misses.length, d.n)}`);
  const changedTools = new Set(score.conflicts.changed.map((line) => line.split(' ')[0]));
  lines.push(
    `  conflicts: ${changedTools.size}/${score.conflicts.n} tools with declared hints = ${rate(changedTools.size, score.conflicts.n)}`,
  );
  if (servers) lines.push(...serverTable(score));
  if (errors > 0) {
    for (const hint of HINT_FIELDS) {
      const misses = score.hints[hint].misses;
      if (misses.length === 0) continue;
      lines.push(`  misses ${hint} (${misses.length}):`);
      for (const miss of misses.slice(0, errors)) lines.push(`    ${miss}`);
    }
    if (d.misses.length > 0) lines.push(`  dangerous: ${d.misses.join(', ')}`);
    for (const line of score.conflicts.changed.slice(0, errors)) lines.push(`  conflict ${line}`);
  }
  return lines.join('\n');
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--predict')) {
    const tools = JSON.parse(await readStdin()) as Array<Omit<Tool, 'server'>>;
    const out = tools.map((tool) => inferAnnotations({ ...tool }).annotations);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return;
  }
  const at = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const errors = Number(at('--errors') ?? 0);
  const only = at('--set');
  const root = repoRoot();
  const folder = join(root, 'test', 'fixtures', 'servers');
  const sets: Array<readonly [string, Tool[]]> = [
    [
      'public development set',
      loadJsonl(
        at('--public') ?? findAbove(root, join('shared', 'eval', 'public-annotated-tools.jsonl')),
      ),
    ],
    ['recorded corpus', loadFolder(folder)],
    ['held-out servers', loadFolder(join(folder, 'held-out'))],
  ];
  const ceiling = args.includes('--ceiling');
  if (ceiling && only === undefined) {
    const [publicSet, recorded] = sets;
    const together = [...(publicSet?.[1] ?? []), ...(recorded?.[1] ?? [])];
    sets.splice(2, 0, ['development sets together', together]);
  }
  for (const [label, tools] of sets) {
    if (only !== undefined && !label.startsWith(only)) continue;
    // The held-out servers are scored only when asked: they are kept out of tuning.
    if (label.startsWith('held-out') && !args.includes('--held-out')) continue;
    if (tools.length === 0) {
      console.log(`${label}: not found, skipped`);
      continue;
    }
    console.log(
      ceiling
        ? ceilingReport(label, tools)
        : report(label, scoreSet(tools), errors, args.includes('--servers')),
    );
  }
}

await main();
