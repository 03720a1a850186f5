/**
 * The ceiling of name-based inference: how far authors agree with each other.
 *
 * Tools are grouped by a key computed from the name alone (its main verb as the name
 * grammar finds it, the verb with its object, or, for contrast, the server), and each
 * group is given its majority declared label. Scored in-sample, that is the best any
 * function of the key could do on these tools: an upper bound. Scored leave-one-server-out
 * (each server's tools labelled by the majority of the other servers' tools with the same
 * key, the other servers' overall majority for a key they lack), it is what a table
 * learned from other servers' habits reaches on a server it has not seen. Verbs whose
 * servers label them differently show where authors disagree.
 */
import type { HintField, ToolAnnotations } from '../src/core/annotations/types.js';
import { HINT_FIELDS, SPEC_DEFAULTS } from '../src/core/annotations/types.js';
import { PREPOSITIONS } from '../src/core/inference/lexicon.js';
import { readName } from '../src/core/inference/name-signals.js';
import { tokenizeName } from '../src/core/inference/tokenize.js';

/** A tool with its author's annotations, as the scorer loads it. */
export interface LabeledTool {
  readonly server: string;
  readonly name: string;
  readonly annotations?: ToolAnnotations;
}

/** A key a ceiling groups tools by. */
interface Key {
  readonly label: string;
  readonly of: (tool: LabeledTool) => string;
  /** False for a key that is the server itself: no other server shares it. */
  readonly crossServer: boolean;
  /**
   * A coarser key to fall back on, across servers, when no other server has this key
   * (`delete repo` falls back on `delete`).
   */
  readonly backoff?: (tool: LabeledTool) => string;
}

/** The value a tie is broken to: the conservative one, as inference does. */
const CONSERVATIVE: Readonly<Record<HintField, boolean>> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

const NO_VERB = '(no verb)';

/** The name's main verb and the word it acts on, as the name grammar reads them. */
function verbAndObject(name: string): { verb: string; object: string } {
  const tokens = tokenizeName(name);
  const primary = readName(tokens).primary;
  if (primary === undefined) return { verb: NO_VERB, object: tokens.at(-1) ?? '' };
  const after = tokens[primary.index + 1];
  const before = tokens[primary.index - 1];
  // The object follows the verb (`delete_repo`), or precedes a verb ending the name
  // (`compute_vm_delete`); a preposition is skipped (`add_to_cart`).
  let object = after !== undefined && PREPOSITIONS.has(after) ? tokens[primary.index + 2] : after;
  object ??= before ?? '';
  return { verb: primary.word, object: singular(object) };
}

/** `repos` → `repo`, `addresses` → `address`; `status` and `class` are kept. */
function singular(word: string): string {
  if (word.length <= 3 || word.endsWith('ss') || word.endsWith('us')) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses') || word.endsWith('xes')) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

const verbOf = (tool: LabeledTool): string => verbAndObject(tool.name).verb;

const KEYS: readonly Key[] = [
  { label: 'verb', of: verbOf, crossServer: true },
  {
    label: 'verb+object',
    of: (tool) => {
      const { verb, object } = verbAndObject(tool.name);
      return `${verb} ${object}`;
    },
    crossServer: true,
    backoff: verbOf,
  },
  { label: 'server', of: (tool) => tool.server, crossServer: false },
];

interface Tally {
  yes: number;
  no: number;
}

interface Confusion {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

function majority(tally: Tally | undefined, hint: HintField, fallback: boolean): boolean {
  if (tally === undefined || tally.yes + tally.no === 0) return fallback;
  if (tally.yes === tally.no) return CONSERVATIVE[hint];
  return tally.yes > tally.no;
}

function add(into: Map<string, Tally>, key: string, label: boolean, by = 1): void {
  let tally = into.get(key);
  if (tally === undefined) {
    tally = { yes: 0, no: 0 };
    into.set(key, tally);
  }
  if (label) tally.yes += by;
  else tally.no += by;
}

function f1(c: Confusion): number {
  const precision = c.tp / (c.tp + c.fp || 1);
  const recall = c.tp / (c.tp + c.fn || 1);
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

function count(c: Confusion, label: boolean, guess: boolean): void {
  if (label && guess) c.tp++;
  else if (!label && guess) c.fp++;
  else if (label && !guess) c.fn++;
  else c.tn++;
}

interface Labeled {
  readonly tool: LabeledTool;
  readonly key: string;
  /** The coarser key, or the key itself when there is none. */
  readonly backoff: string;
  readonly label: boolean;
}

/** Tallies per key over all servers and per server. */
class Tallies {
  readonly all = new Map<string, Tally>();
  private readonly byServer = new Map<string, Map<string, Tally>>();

  add(server: string, key: string, label: boolean): void {
    add(this.all, key, label);
    let own = this.byServer.get(server);
    if (own === undefined) this.byServer.set(server, (own = new Map()));
    add(own, key, label);
  }

  /** The tally of `key` over every server but `server`. */
  others(server: string, key: string): Tally {
    const total = this.all.get(key) ?? { yes: 0, no: 0 };
    const own = this.byServer.get(server)?.get(key) ?? { yes: 0, no: 0 };
    return { yes: total.yes - own.yes, no: total.no - own.no };
  }
}

/**
 * F1 of the majority label per key, in-sample and leave-one-server-out (a key no other
 * server has falls back on its coarser key, then on the other servers' overall majority).
 */
function scoreKey(
  items: readonly Labeled[],
  hint: HintField,
): { inSample: Confusion; crossServer: Confusion } {
  const keys = new Tallies();
  const backoffs = new Tallies();
  const overall = new Tallies();
  for (const { tool, key, backoff, label } of items) {
    keys.add(tool.server, key, label);
    backoffs.add(tool.server, backoff, label);
    overall.add(tool.server, '', label);
  }
  const inSample: Confusion = { tp: 0, fp: 0, fn: 0, tn: 0 };
  const crossServer: Confusion = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const { tool, key, backoff, label } of items) {
    count(inSample, label, majority(keys.all.get(key), hint, CONSERVATIVE[hint]));
    const rest = majority(overall.others(tool.server, ''), hint, CONSERVATIVE[hint]);
    const coarse = majority(backoffs.others(tool.server, backoff), hint, rest);
    count(crossServer, label, majority(keys.others(tool.server, key), hint, coarse));
  }
  return { inSample, crossServer };
}

/**
 * Declared destructive tools the key's majority would call read-only, in-sample: the
 * dangerous misses no function of the key avoids.
 */
function dangerousFloor(tools: readonly LabeledTool[], key: Key): { n: number; misses: number } {
  const readOnly = new Map<string, Tally>();
  for (const tool of tools) {
    const label = tool.annotations?.readOnlyHint;
    if (typeof label === 'boolean') add(readOnly, key.of(tool), label);
  }
  let n = 0;
  let misses = 0;
  for (const tool of tools) {
    const declared = tool.annotations;
    if (declared?.destructiveHint !== true || declared.readOnlyHint === true) continue;
    n++;
    if (majority(readOnly.get(key.of(tool)), 'readOnlyHint', false)) misses++;
  }
  return { n, misses };
}

interface SplitVerb {
  readonly verb: string;
  readonly yes: { servers: number; tools: number };
  readonly no: { servers: number; tools: number };
}

/**
 * Verbs whose servers disagree on a hint: per server, the majority label of its tools with
 * that verb; most split first (the smaller side, then the servers in all).
 */
function splitVerbs(tools: readonly LabeledTool[], hint: HintField): SplitVerb[] {
  const perVerb = new Map<string, Map<string, Tally>>();
  for (const tool of tools) {
    const label = tool.annotations?.[hint];
    if (typeof label !== 'boolean') continue;
    const verb = verbAndObject(tool.name).verb;
    if (verb === NO_VERB) continue;
    let servers = perVerb.get(verb);
    if (servers === undefined) perVerb.set(verb, (servers = new Map()));
    add(servers, tool.server, label);
  }
  const splits: SplitVerb[] = [];
  for (const [verb, servers] of perVerb) {
    const yes = { servers: 0, tools: 0 };
    const no = { servers: 0, tools: 0 };
    for (const tally of servers.values()) {
      if (tally.yes > tally.no) {
        yes.servers++;
        yes.tools += tally.yes + tally.no;
      } else if (tally.no > tally.yes) {
        no.servers++;
        no.tools += tally.yes + tally.no;
      }
    }
    if (yes.servers > 0 && no.servers > 0) splits.push({ verb, yes, no });
  }
  const smaller = (s: SplitVerb): number => Math.min(s.yes.servers, s.no.servers);
  return splits.sort(
    (a, b) =>
      smaller(b) - smaller(a) ||
      b.yes.servers + b.no.servers - (a.yes.servers + a.no.servers) ||
      a.verb.localeCompare(b.verb),
  );
}

const HINT_WORD: Readonly<Record<HintField, string>> = {
  readOnlyHint: 'read-only',
  destructiveHint: 'destructive',
  idempotentHint: 'idempotent',
  openWorldHint: 'open-world',
};

/**
 * The ceiling report of one set of tools: per key, F1 per hint of its majority label
 * in-sample (an upper bound) and leave-one-server-out, the dangerous misses no function of
 * the key avoids, and the `top` most split verbs per hint.
 */
export function ceilingReport(label: string, tools: readonly LabeledTool[], top = 6): string {
  const servers = new Set(tools.map((tool) => tool.server)).size;
  const lines = [
    `${label}: ceiling of name-based inference, ${tools.length} tools, ${servers} servers`,
    '  F1 of the majority declared label per key: in-sample (upper bound) / leave-one-server-out',
    `  key           keys  ${HINT_FIELDS.map((hint) => hint.padEnd(15)).join(' ')} dangerous`,
  ];
  for (const key of KEYS) {
    const cells = HINT_FIELDS.map((hint) => {
      const items: Labeled[] = [];
      for (const tool of tools) {
        const value = tool.annotations?.[hint];
        if (typeof value !== 'boolean') continue;
        const own = key.of(tool);
        items.push({ tool, key: own, backoff: key.backoff?.(tool) ?? own, label: value });
      }
      if (items.length === 0) return '-'.padEnd(15);
      const { inSample, crossServer } = scoreKey(items, hint);
      const cross = key.crossServer ? f1(crossServer).toFixed(3) : '  -  ';
      return `${f1(inSample).toFixed(3)} / ${cross}`.padEnd(15);
    });
    const keys = new Set(tools.map((tool) => key.of(tool))).size;
    const floor = dangerousFloor(tools, key);
    const danger = `${floor.misses}/${floor.n} = ${((100 * floor.misses) / (floor.n || 1)).toFixed(1)}%`;
    lines.push(
      `  ${key.label.padEnd(12)} ${String(keys).padStart(5)}  ${cells.join(' ')} ${danger}`,
    );
  }
  const defaults = HINT_FIELDS.map((hint) => {
    const c: Confusion = { tp: 0, fp: 0, fn: 0, tn: 0 };
    for (const tool of tools) {
      const value = tool.annotations?.[hint];
      if (typeof value === 'boolean') count(c, value, SPEC_DEFAULTS[hint]);
    }
    return f1(c).toFixed(3).padEnd(15);
  });
  lines.push(`  ${'MCP defaults'.padEnd(12)} ${'1'.padStart(5)}  ${defaults.join(' ')}`);
  lines.push('  verbs labelled most differently across servers (servers and their tools):');
  for (const hint of HINT_FIELDS) {
    const splits = splitVerbs(tools, hint).slice(0, top);
    if (splits.length === 0) continue;
    const word = HINT_WORD[hint];
    const described = splits.map(
      (s) => `${s.verb} ${s.yes.servers}/${s.no.servers} (${s.yes.tools}/${s.no.tools} tools)`,
    );
    lines.push(`    ${word} in / not in: ${described.join(', ')}`);
  }
  return lines.join('\n');
}
