/**
 * Inference scored against real MCP servers whose authors declared annotations, recorded
 * from their `tools/list` (test/fixtures/servers, see its README): the development corpus,
 * held to floors so a change that loses ground shows. The held-out servers in its held-out/
 * folder are not read here: they are the measure on servers inference was not tuned on,
 * scored only to report. Each hint is scored over the tools whose author declared it; a
 * hint left unset counts as the MCP default, except that an unset destructiveHint on a
 * tool inferred read-only counts as false.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectConflicts } from '../../../src/core/annotations/conflicts.js';
import {
  HINT_FIELDS,
  SPEC_DEFAULTS,
  type HintField,
  type ToolAnnotations,
} from '../../../src/core/annotations/types.js';
import { inferAnnotations } from '../../../src/core/inference/infer.js';

interface FixtureTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly annotations?: Partial<Record<HintField, unknown>>;
}

interface Fixture {
  readonly source: { readonly package: string; readonly recorded: string };
  readonly tools: readonly FixtureTool[];
}

interface Scored {
  readonly server: string;
  readonly name: string;
  readonly labels: Partial<Record<HintField, boolean>>;
  readonly predicted: Partial<Record<HintField, boolean>>;
  readonly readOnlyExplicit: boolean;
  /** Declared hints an untrusted server would see changed by a conflict. */
  readonly conflicts: readonly string[];
}

interface Confusion {
  n: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

/** Where authors' labels follow a convention that disagrees with the tool's behaviour. */
const KNOWN_LABEL_DISAGREEMENTS: ReadonlyMap<string, string> = new Map([
  [
    'notion/API-query-data-source',
    'Notion generates its tools from its HTTP API and marks every non-GET operation ' +
      'destructive; querying a data source is a POST that only reads (filter and sort).',
  ],
  [
    'azure/azuremigrate_platformlandingzone_getguidance',
    'Azure marks this tool destructive, but it only returns how-to guidance for changing a ' +
      'landing zone; it changes nothing itself.',
  ],
  [
    'circleci/find_flaky_tests',
    'CircleCI marks its flaky-test report destructive because its description tells the ' +
      'agent to fix the tests afterwards; the tool itself only retrieves information.',
  ],
]);

/**
 * The floors inference holds on this corpus. Destructive F1 stays far below the 0.90 goal
 * for unseen servers because authors disagree about updates: 13 of the 31 servers that
 * declare destructiveHint on update tools (DigitalOcean, Linear, SmartBear, Postman,
 * GitHub …) call them non-destructive, where the MCP specification ("only additive
 * updates" are non-destructive) and the other 18 call them destructive; and Azure marks
 * every create destructive (see the README).
 */
const GOALS = {
  readOnlyF1: 0.95,
  destructiveF1: 0.65,
  idempotentF1: 0.9,
  dangerousRate: 0.01,
  conflictRate: 0.02,
};

const folder = new URL('../../fixtures/servers/', import.meta.url);
const fixtures: ReadonlyArray<readonly [string, Fixture]> = readdirSync(folder)
  .filter((file) => file.endsWith('.tools.json'))
  .sort()
  .map((file) => [
    file.replace('.tools.json', ''),
    JSON.parse(readFileSync(new URL(file, folder), 'utf8')) as Fixture,
  ]);

function score(): Scored[] {
  const scored: Scored[] = [];
  for (const [server, fixture] of fixtures) {
    for (const tool of fixture.tools) {
      const inference = inferAnnotations(tool);
      const { annotations } = inference;
      const labels: Partial<Record<HintField, boolean>> = {};
      const predicted: Partial<Record<HintField, boolean>> = {};
      for (const hint of HINT_FIELDS) {
        const label = tool.annotations?.[hint];
        if (typeof label === 'boolean') labels[hint] = label;
        const value = annotations[hint];
        if (typeof value === 'boolean') predicted[hint] = value;
        else if (hint === 'destructiveHint' && annotations.readOnlyHint === true)
          predicted[hint] = false;
        else predicted[hint] = SPEC_DEFAULTS[hint];
      }
      scored.push({
        server,
        name: tool.name,
        labels,
        predicted,
        readOnlyExplicit: annotations.readOnlyHint === true,
        conflicts: detectConflicts({
          declared: tool.annotations as ToolAnnotations | undefined,
          inference,
          trust: 'untrusted',
        }).map((conflict) => conflict.field),
      });
    }
  }
  return scored;
}

function confusion(scored: readonly Scored[], hint: HintField): Confusion {
  const c: Confusion = { n: 0, tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const { labels, predicted } of scored) {
    const label = labels[hint];
    if (label === undefined) continue;
    const guess = predicted[hint] === true;
    c.n++;
    if (label && guess) c.tp++;
    else if (!label && guess) c.fp++;
    else if (label && !guess) c.fn++;
    else c.tn++;
  }
  return c;
}

function f1(c: Confusion): number {
  const precision = c.tp / (c.tp + c.fp || 1);
  const recall = c.tp / (c.tp + c.fn || 1);
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

/** Author-declared destructive tools (destructive, not read-only) inferred read-only. */
function dangerous(scored: readonly Scored[]): string[] {
  return scored
    .filter(
      ({ labels, readOnlyExplicit }) =>
        labels.destructiveHint === true && labels.readOnlyHint !== true && readOnlyExplicit,
    )
    .map(({ server, name }) => `${server}/${name}`);
}

/** Tools with declared hints whose declared value a conflict changes. */
function conflicted(scored: readonly Scored[]): string[] {
  return scored
    .filter(({ conflicts }) => conflicts.length > 0)
    .map(({ server, name }) => `${server}/${name}`);
}

function table(scored: readonly Scored[]): string {
  const lines = ['hint               n    prec   recall F1      TP   FP   FN   TN'];
  for (const hint of HINT_FIELDS) {
    const c = confusion(scored, hint);
    const precision = c.tp / (c.tp + c.fp || 1);
    const recall = c.tp / (c.tp + c.fn || 1);
    const cells = [c.tp, c.fp, c.fn, c.tn].map((v) => String(v).padStart(4)).join(' ');
    lines.push(
      `${hint.padEnd(16)} ${String(c.n).padStart(4)}  ${precision.toFixed(3)}  ${recall.toFixed(3)}  ${f1(c).toFixed(3)}  ${cells}`,
    );
  }
  const misses = dangerous(scored);
  lines.push(
    `dangerous (declared destructive, inferred read-only): ${misses.length} ${misses.join(', ')}`,
  );
  const changed = conflicted(scored);
  lines.push(`declared values changed by a conflict: ${changed.length} ${changed.join(', ')}`);
  lines.push('per server: tools, read-only accuracy, destructive accuracy');
  for (const [server] of fixtures) {
    const own = scored.filter((item) => item.server === server);
    const accuracy = (hint: HintField): string => {
      const c = confusion(own, hint);
      return c.n === 0 ? '   -  ' : `${((c.tp + c.tn) / c.n).toFixed(2)} (${c.n})`;
    };
    lines.push(
      `  ${server.padEnd(20)} ${String(own.length).padStart(3)}  ${accuracy('readOnlyHint').padEnd(10)} ${accuracy('destructiveHint')}`,
    );
  }
  return lines.join('\n');
}

describe('inference on recorded servers', () => {
  const scored = score();
  const readOnlyF1 = f1(confusion(scored, 'readOnlyHint'));
  const destructiveF1 = f1(confusion(scored, 'destructiveHint'));
  const idempotentF1 = f1(confusion(scored, 'idempotentHint'));

  it('scores a corpus of 2,000+ declared tools from 40+ servers', () => {
    console.log(table(scored));
    const declared = scored.filter(
      ({ labels }) => labels.readOnlyHint !== undefined || labels.destructiveHint !== undefined,
    );
    expect(fixtures.length).toBeGreaterThanOrEqual(40);
    expect(declared.length).toBeGreaterThanOrEqual(2000);
    for (const [, fixture] of fixtures) {
      expect(fixture.source.package).toMatch(/.+@\d+\.\d+\.\d+/);
      expect(fixture.source.recorded).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('calls no declared destructive tool read-only, beyond documented label disagreements', () => {
    const unexplained = dangerous(scored).filter((tool) => !KNOWN_LABEL_DISAGREEMENTS.has(tool));
    expect(unexplained).toEqual([]);
  });

  it(`reaches read-only F1 >= ${GOALS.readOnlyF1}`, () => {
    expect(readOnlyF1).toBeGreaterThanOrEqual(GOALS.readOnlyF1);
  });

  it(`reaches destructive F1 >= ${GOALS.destructiveF1}`, () => {
    expect(destructiveF1).toBeGreaterThanOrEqual(GOALS.destructiveF1);
  });

  it(`reaches idempotent F1 >= ${GOALS.idempotentF1}`, () => {
    expect(idempotentF1).toBeGreaterThanOrEqual(GOALS.idempotentF1);
  });

  it(`calls at most ${100 * GOALS.dangerousRate}% of declared destructive tools read-only`, () => {
    const destructive = scored.filter(
      ({ labels }) => labels.destructiveHint === true && labels.readOnlyHint !== true,
    );
    expect(dangerous(scored).length / destructive.length).toBeLessThanOrEqual(GOALS.dangerousRate);
  });

  it(`changes at most ${100 * GOALS.conflictRate}% of the declared tools by a conflict`, () => {
    const declared = scored.filter(({ labels }) => Object.keys(labels).length > 0);
    expect(conflicted(scored).length / declared.length).toBeLessThanOrEqual(GOALS.conflictRate);
  });
});
