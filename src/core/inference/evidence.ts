/**
 * Evidence: one thing a part of a tool definition says about what calling it does, in a
 * form the decision in `infer.ts` can weigh and explain.
 */
import type { VerbKind } from './lexicon.js';
import { KIND_SEVERITY } from './schema-signals.js';
import type { EvidencePart, InferenceReason } from './types.js';

/** A verb kind, or `write`: the tool writes, with nothing said about how. */
export type Effect = VerbKind | 'write';

/** One piece of evidence and the reason it gives. */
export interface Evidence extends InferenceReason {
  readonly effect: Effect;
  /** True or false when the evidence says whether repeated calls change anything. */
  readonly idempotent: boolean | undefined;
  /**
   * The source is clear enough to overrule a declaration: the main verb in verb position
   * and not a word more often a noun, a code or command argument, an SQL statement.
   */
  readonly clear: boolean;
  /**
   * Clear, and it destroys outright: a verb such as `delete`, `drop` or `purge` that does
   * not merely detach one thing from another (`remove_user_from_team`), or code that could
   * do anything. Only such evidence overrules a declared `destructiveHint: false`.
   */
  readonly destroys: boolean;
}

const EFFECT_SEVERITY: Readonly<Record<Effect, number>> = { ...KIND_SEVERITY, write: 4 };

const EFFECT_PHRASE: Readonly<Record<Effect, string>> = {
  read: 'a read-only verb',
  destructive: 'a destructive verb',
  update: 'an update verb: it changes existing state',
  additive: 'an additive verb',
  toggle: 'a reversible state change',
  interact: 'a user-interface action',
  exec: 'a verb that runs code or commands',
  vague: 'a verb that says nothing by itself',
  write: 'a write',
};

/** The readable phrase for an effect (`a destructive verb`). */
export function describeEffect(effect: Effect): string {
  return EFFECT_PHRASE[effect];
}

/** Builds a piece of evidence. */
export function evidence(
  effect: Effect,
  part: EvidencePart,
  word: string,
  rule: string,
  strength: 'strong' | 'weak',
  text: string,
  idempotent?: boolean,
  clear = false,
  destroys = clear && effect === 'exec',
): Evidence {
  return { effect, part, word, rule, strength, text, idempotent, clear, destroys };
}

/** Effects that contradict a declared `readOnlyHint: true` when their source is clear. */
const OVERRULES_READ_ONLY: ReadonlySet<Effect> = new Set<Effect>(['destructive', 'update', 'exec']);

/**
 * The reason a piece of evidence gives for one hint, marked `decisive` when it could
 * overrule a declared value of that hint: for `readOnlyHint`, a clear destroying,
 * updating or code-running source (creating or triggering is not proof enough against
 * an author's word); for `destructiveHint`, a source that destroys outright (an update,
 * a restart, a cancellation or a detachment its author calls non-destructive may well
 * lose nothing).
 */
export function reasonFor(
  item: Evidence,
  field: 'readOnlyHint' | 'destructiveHint',
): InferenceReason {
  const decisive =
    item.strength === 'strong' &&
    (field === 'readOnlyHint' ? item.clear && OVERRULES_READ_ONLY.has(item.effect) : item.destroys);
  if (!decisive) return toReason(item);
  const { part, word, rule, strength, text } = item;
  return { part, word, rule, strength, text, decisive: true };
}

/**
 * The piece of evidence of the highest severity, or `undefined`; of equally severe ones,
 * the one that proves the most (destroys, then clear), then the first.
 */
export function worstOf(items: readonly Evidence[]): Evidence | undefined {
  let worst: Evidence | undefined;
  for (const item of items) {
    if (worst === undefined) {
      worst = item;
      continue;
    }
    const severity = EFFECT_SEVERITY[item.effect] - EFFECT_SEVERITY[worst.effect];
    if (severity > 0 || (severity === 0 && weight(item) > weight(worst))) worst = item;
  }
  return worst;
}

function weight(item: Evidence): number {
  return (item.destroys ? 2 : 0) + (item.clear ? 1 : 0);
}

/** True for effects that change existing state: destructive, update-like or arbitrary. */
export function isDestructiveEffect(effect: Effect): boolean {
  return effect === 'destructive' || effect === 'update' || effect === 'exec';
}

/** True for effects that write without losing anything. */
export function isGentleEffect(effect: Effect): boolean {
  return effect === 'additive' || effect === 'toggle';
}

/** The reason a piece of evidence gives, without its internal fields. */
export function toReason(
  item: InferenceReason,
  rule = item.rule,
  text = item.text,
): InferenceReason {
  return { part: item.part, word: item.word, rule, strength: item.strength, text };
}
