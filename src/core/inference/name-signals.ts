/**
 * Reading a tool name's words: which one is the tool's verb, which verbs are joined to it
 * (`get_and_delete`), and which words are its objects.
 */
import {
  CONJUNCTIONS,
  CONTEXT_OBJECTS,
  CONTEXT_VERBS,
  FEEDING_VERBS,
  PROCESS_OBJECTS,
  EPHEMERAL_OBJECTS,
  HTTP_METHOD_KINDS,
  KIND_SEVERITY,
  NOUN_COMPOUNDS,
  READ_OBJECTS,
  SESSION_OBJECTS,
  lookupNameVerb,
  type VerbInfo,
  type VerbKind,
} from './lexicon.js';

/** A verb found in a name. */
export interface NameVerb {
  /** The word as it appears (lower case). */
  readonly word: string;
  readonly info: VerbInfo;
  /** Its index among the name's words. */
  readonly index: number;
  /**
   * The kind after reading the verb's objects: resetting a view is a `toggle`, running a
   * query or taking a screenshot a `read`; otherwise the verb's own kind.
   */
  readonly kind: VerbKind;
  /**
   * False for a word more often a noun found away from the front of the name
   * (`browser_network_request`): a clearer verb in the description is preferred to it.
   */
  readonly firm: boolean;
  /**
   * The rule that set `kind`: `verb`, `ephemeral-reset`, `read-object`, `ends-session`,
   * `context-switch`, `feeds-process`.
   */
  readonly rule:
    | 'verb'
    | 'ephemeral-reset'
    | 'read-object'
    | 'ends-session'
    | 'context-switch'
    | 'feeds-process';
  /** The object word a rule other than `verb` read, if any. */
  readonly object: string | undefined;
  /** Where the verb stands in the name, which is why it was taken as the verb. */
  readonly position: VerbPosition;
  /** True when a destructive verb ending the name outweighed a milder one in front. */
  readonly safety: boolean;
}

/** What a name says. */
export interface NameReading {
  /** The tool's own verb, if the name has one. */
  readonly primary: NameVerb | undefined;
  /** Further verbs joined by `and`, `or`, `then` (`search_and_replace` → replace). */
  readonly conjoined: readonly NameVerb[];
  /** The `force` modifier, when the name has it (`force_unlock_workspace`). */
  readonly force: boolean;
  /** The name is a generic HTTP request (`http_request`, `grafana_api_request`). */
  readonly httpRequest: boolean;
}

function httpMethodVerb(method: string): VerbInfo {
  const kind = HTTP_METHOD_KINDS.get(method) ?? 'vague';
  return { lemma: method, kind, idempotent: method !== 'post', nounish: false };
}

const NONE: NameReading = { primary: undefined, conjoined: [], force: false, httpRequest: false };

function isClear(info: VerbInfo | undefined): info is VerbInfo {
  return info !== undefined && !info.nounish && info.kind !== 'vague';
}

/**
 * Two verbs written as one word with `or` or `and` between them (`createorupdate`,
 * `getorcreate`, `addandcommit`): the more severe of the two, so the word is read as
 * safely as its worst part.
 */
function joinedVerbs(token: string): VerbInfo | undefined {
  for (const joiner of ['or', 'and']) {
    let at = token.indexOf(joiner, 2);
    while (at > 0) {
      const left = lookupNameVerb(token.slice(0, at));
      const right = lookupNameVerb(token.slice(at + joiner.length));
      if (left !== undefined && right !== undefined) {
        return KIND_SEVERITY[right.kind] > KIND_SEVERITY[left.kind] ? right : left;
      }
      at = token.indexOf(joiner, at + 1);
    }
  }
  return undefined;
}

/**
 * Where a name's verb stands: `first` (`delete_repo`), `last` (`compute_vm_delete`, verb
 * after a service and resource prefix), `after-prefix` (`mcp_github_get_me`), or
 * `fallback` for a word more often a noun or a vague verb taken for want of a clear one.
 */
export type VerbPosition = 'first' | 'last' | 'after-prefix' | 'fallback';

interface VerbPick {
  readonly index: number;
  readonly position: VerbPosition;
  /** True when a destructive verb at the end won over a milder verb in front. */
  readonly safety: boolean;
}

const NO_PICK: VerbPick = { index: -1, position: 'fallback', safety: false };

/** Picks the verb of a name's words; see `readName`. */
function pickPrimary(candidates: ReadonlyArray<VerbInfo | undefined>): VerbPick {
  const last = candidates.length - 1;
  const lastInfo = last > 0 ? candidates[last] : undefined;
  if (isClear(candidates[0])) {
    // Safety first: a destructive verb ending the name (`find_replace`) is not outweighed
    // by a milder verb in front.
    const first = candidates[0];
    if (isClear(lastInfo) && lastInfo.kind === 'destructive' && first.kind !== 'destructive') {
      return { index: last, position: 'last', safety: true };
    }
    return { index: 0, position: 'first', safety: false };
  }
  if (isClear(lastInfo)) return { index: last, position: 'last', safety: false };
  for (let i = 1; i < last; i++) {
    if (isClear(candidates[i])) return { index: i, position: 'after-prefix', safety: false };
  }
  for (let i = 0; i <= last; i++) {
    if (candidates[i] !== undefined) {
      return { index: i, position: i === 0 ? 'first' : 'fallback', safety: false };
    }
  }
  return NO_PICK;
}

const POSITION_PHRASE: Readonly<Record<VerbPosition, string>> = {
  first: 'the first word',
  last: 'the last word, after the resource it acts on',
  'after-prefix': 'the first verb after a service or resource prefix',
  fallback: 'the only verb-like word',
};

/** Why a name's word was taken as its verb, for reasons: `the last word, after …`. */
export function describePosition(verb: NameVerb): string {
  if (verb.safety) return 'the last word, a destructive verb that outweighs the one in front';
  if (verb.position === 'first' && verb.info.nounish) return 'the first word, with no clearer verb';
  return POSITION_PHRASE[verb.position];
}

/**
 * Reads the objects of the verb at `index`: the words after it, or, for a verb that ends
 * the name (`cache_clear`), the words before it. Resetting or clearing view state is a
 * toggle (`resetPagination`); running, starting or taking a query, search or screenshot
 * is a read (`run_query`, `start_search`, `take_screenshot`); closing a page, tab,
 * browser or session ends it for good (`browser_close`), unlike closing an issue; and
 * selecting, switching or connecting to a page, project or database only changes which
 * resource later calls use, a read (`select_page`, `connect`); sending input to a live
 * process or shell runs it (`interact_with_process`).
 */
function objectRule(
  info: VerbInfo,
  tokens: readonly string[],
  index: number,
): Pick<NameVerb, 'kind' | 'rule' | 'object'> {
  const resets = info.lemma === 'reset' || info.lemma === 'clear';
  const runs = info.kind === 'exec' || info.kind === 'vague' || info.lemma === 'start';
  const closes = info.lemma === 'close';
  const switches = CONTEXT_VERBS.has(info.lemma);
  if (
    switches &&
    tokens.length === 1 &&
    (info.lemma === 'connect' || info.lemma === 'disconnect')
  ) {
    return { kind: 'read', rule: 'context-switch', object: undefined };
  }
  const feeds = FEEDING_VERBS.has(info.lemma);
  if (resets || runs || closes || switches || feeds) {
    const trailing = index > 0 && index === tokens.length - 1;
    const from = trailing ? 0 : index + 1;
    const to = trailing ? index : tokens.length;
    for (let i = from; i < to; i++) {
      const token = tokens[i] as string;
      if (resets && EPHEMERAL_OBJECTS.has(token)) {
        return { kind: 'toggle', rule: 'ephemeral-reset', object: token };
      }
      if (runs && READ_OBJECTS.has(token)) {
        return { kind: 'read', rule: 'read-object', object: token };
      }
      if (closes && SESSION_OBJECTS.has(token)) {
        return { kind: 'destructive', rule: 'ends-session', object: token };
      }
      if (switches && CONTEXT_OBJECTS.has(token)) {
        return { kind: 'read', rule: 'context-switch', object: token };
      }
      if (feeds && PROCESS_OBJECTS.has(token)) {
        return { kind: 'exec', rule: 'feeds-process', object: token };
      }
    }
  }
  return { kind: info.kind, rule: 'verb', object: undefined };
}

/**
 * Finds the verb of a tool name from its lower-case words, by position. The leading word
 * wins when it is a clear verb (`get_commit`, `list_deleted_items`: later words are
 * objects), unless the name ends with a destructive verb (`find_replace`: safety
 * first); when it is not, a clear verb at the end (`issue_read`, `compute_vm_delete`:
 * `<service>_<resource>_<verb>`), then the first one after a prefix (`mcp_github_get_me`);
 * words that are more often nouns (`compute`, `deploy`, `queue`, `comment`, `query`) and
 * vague verbs (`manage`) count only when no clear verb stands anywhere. A verb after
 * `and`, `or` or `then` is an action of its own (`getAndDelete`, `search_and_replace`).
 * Base forms only: a name's `deleted` describes its object.
 *
 * @example readName(['get', 'and', 'delete']).conjoined[0]?.word // 'delete'
 */
export function readName(tokens: readonly string[]): NameReading {
  if (tokens.length === 0) return NONE;
  let force = false;
  const candidates: Array<VerbInfo | undefined> = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const next = tokens[i + 1];
    if (token === 'force') {
      force = true;
      candidates.push(undefined);
    } else if (next !== undefined && NOUN_COMPOUNDS.get(token)?.has(next) === true) {
      candidates.push(undefined);
    } else if (i > 0 && tokens[i - 1] === 'api' && HTTP_METHOD_KINDS.has(token)) {
      // Names generated from an API description: `API-post-search`, `api_delete_user`.
      candidates.push(httpMethodVerb(token));
    } else {
      candidates.push(lookupNameVerb(token) ?? joinedVerbs(token));
    }
  }
  const httpRequest =
    (tokens.includes('request') || tokens.includes('requests')) &&
    (tokens.includes('http') || tokens.includes('api'));
  const { index, position, safety } = pickPrimary(candidates);
  if (index < 0) return force || httpRequest ? { ...NONE, force, httpRequest } : NONE;
  const info = candidates[index] as VerbInfo;
  const primary: NameVerb = {
    word: tokens[index] as string,
    info,
    index,
    firm: index === 0 || !info.nounish,
    position,
    safety,
    ...objectRule(info, tokens, index),
  };
  const conjoined: NameVerb[] = [];
  for (let i = index + 2; i < tokens.length; i++) {
    const candidate = candidates[i];
    if (candidate !== undefined && CONJUNCTIONS.has(tokens[i - 1] as string)) {
      conjoined.push({
        word: tokens[i] as string,
        info: candidate,
        index: i,
        firm: true,
        position: 'after-prefix',
        safety: false,
        ...objectRule(candidate, tokens, i),
      });
    }
  }
  return { primary, conjoined, force, httpRequest };
}
