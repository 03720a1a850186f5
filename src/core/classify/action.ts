/**
 * The action classifier: the value of an `action`, `operation`, `method` or `mode`
 * argument (`read`, `append`, `list_files`, `getAndDelete`), read with the verb rules of
 * name inference.
 */
import type { VerbClass } from '../inference/lexicon.js';
import { CONJUNCTIONS, classifyVerb, lookupNameVerb } from '../inference/lexicon.js';
import { tokenizeName } from '../inference/tokenize.js';
import type { CallHints, ClassifierResult } from './hints.js';
import { combineFindings, excerpt, finding } from './hints.js';

/** What a verb in an action value does. */
export interface ActionEffect {
  readonly hints: CallHints;
  /** The verb that decided it (`delete` in `getAndDelete`). */
  readonly verb: string;
  /** `is a destructive verb`, `is an additive verb`… */
  readonly phrase: string;
}

interface Verb {
  readonly word: string;
  readonly verbClass: VerbClass;
  readonly idempotent: boolean;
  readonly toggle: boolean;
  readonly exec: boolean;
}

/**
 * A verb of a value: base forms and the abbreviations names use (`rm`, `ls`), so `labels`
 * or `deleted` (nouns and adjectives in action values) are not verbs here.
 */
function verbOf(word: string | undefined): Verb | undefined {
  if (word === undefined) return undefined;
  const info = lookupNameVerb(word);
  const verbClass = info === undefined ? undefined : classifyVerb(word);
  if (info === undefined || verbClass === undefined) return undefined;
  return {
    word,
    verbClass,
    idempotent: info.idempotent === true,
    toggle: info.kind === 'toggle',
    exec: info.kind === 'exec',
  };
}

function effectOf(verb: Verb): ActionEffect {
  const idempotentHint = verb.idempotent;
  switch (verb.verbClass) {
    case 'read':
      return {
        hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
        verb: verb.word,
        phrase: 'is a read-only verb',
      };
    case 'additive':
      return {
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint },
        verb: verb.word,
        phrase: 'is an additive verb',
      };
    case 'idempotent-write':
      return verb.toggle
        ? {
            hints: { readOnlyHint: false, destructiveHint: false, idempotentHint },
            verb: verb.word,
            phrase: 'is a reversible state change',
          }
        : {
            hints: { readOnlyHint: false, destructiveHint: true, idempotentHint },
            verb: verb.word,
            phrase: 'changes existing state in place',
          };
    case 'destructive':
      return {
        hints: { readOnlyHint: false, destructiveHint: true, idempotentHint },
        verb: verb.word,
        phrase: verb.exec ? 'runs code or commands: it could do anything' : 'is a destructive verb',
      };
  }
}

function severity(hints: CallHints): number {
  if (hints.readOnlyHint) return 0;
  return (hints.destructiveHint ? 2 : 1) + (hints.idempotentHint ? 0 : 0.5);
}

/**
 * The effect of an action value's verbs, the worst of them: the leading word when it is a
 * verb, else the last (`issue_read`), else the first verb inside; plus every verb after
 * `and`, `or` or `then` (`getAndDelete`), and `force` anywhere (destructive).
 * `undefined` when the value has no verb.
 */
export function actionEffect(value: string): ActionEffect | undefined {
  const tokens = tokenizeName(value);
  const last = tokens.length - 1;
  let index = verbOf(tokens[0]) !== undefined ? 0 : -1;
  if (index < 0 && last > 0 && verbOf(tokens[last]) !== undefined) index = last;
  for (let i = 1; index < 0 && i < last; i++) if (verbOf(tokens[i]) !== undefined) index = i;
  const effects: ActionEffect[] = [];
  if (index >= 0) effects.push(effectOf(verbOf(tokens[index]) as Verb));
  for (let i = index + 2; index >= 0 && i <= last; i++) {
    const verb = CONJUNCTIONS.has(tokens[i - 1] as string) ? verbOf(tokens[i]) : undefined;
    if (verb !== undefined) effects.push(effectOf(verb));
  }
  if (tokens.includes('force')) {
    effects.push({
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      verb: 'force',
      phrase: 'forces the action',
    });
  }
  let worst: ActionEffect | undefined;
  for (const item of effects) {
    if (worst === undefined || severity(item.hints) > severity(worst.hints)) worst = item;
  }
  return worst;
}

/**
 * Classifies the value of an action-like argument by its verbs, with the verb rules of
 * name inference: read verbs read-only; additive verbs (`append`, `create`) not
 * destructive; updates (`replace`, `update`) destructive and, where the verb says so,
 * idempotent; reversible toggles (`archive`, `close`) not destructive; destructive verbs
 * (`delete`) destructive; verbs that run code (`run`, `exec`) destructive and not
 * idempotent. `undefined` when the value has no verb hintgate knows.
 *
 * @example classifyAction('getAndDelete')?.annotations.destructiveHint // true
 */
export function classifyAction(value: string): ClassifierResult | undefined {
  const found = actionEffect(value);
  if (found === undefined) return undefined;
  const text = `action \`${excerpt(value, 40)}\`: \`${found.verb}\` ${found.phrase}`;
  return combineFindings([finding(found.hints, found.verb, `action-${found.verb}`, text)]);
}
