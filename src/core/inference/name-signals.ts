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
  GUIDANCE_NOUNS,
  HTTP_METHOD_KINDS,
  KIND_SEVERITY,
  IDENTIFIER_OBJECTS,
  JOB_OBJECTS,
  JOB_VERBS,
  MEMBERSHIP_OBJECTS,
  NOUN_COMPOUNDS,
  PREPOSITIONS,
  READ_OBJECTS,
  RESETTING_VERBS,
  RUN_OBJECTS,
  SOFT_VERBS,
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
   * (`browser_network_request`), and for a verb whose effect depends on what it makes
   * (`generate`): a clearer verb in the description is preferred to it.
   */
  readonly firm: boolean;
  /**
   * The rule that set `kind`: `verb`, `ephemeral-reset`, `read-object`, `ends-session`,
   * `context-switch`, `feeds-process`, `lookup-object`, `starts-job`, `returns-guidance`.
   */
  readonly rule:
    | 'verb'
    | 'ephemeral-reset'
    | 'read-object'
    | 'ends-session'
    | 'context-switch'
    | 'feeds-process'
    | 'lookup-object'
    | 'starts-job'
    | 'returns-guidance';
  /** The object word a rule other than `verb` read, if any. */
  readonly object: string | undefined;
  /** Where the verb stands in the name, which is why it was taken as the verb. */
  readonly position: VerbPosition;
  /** True when a destructive verb ending the name outweighed a milder one in front. */
  readonly safety: boolean;
  /**
   * True when the name says the verb takes one thing away from another
   * (`remove_user_from_team`, `unlink_test_cases_from_requirement`): a detachment.
   */
  readonly detaches: boolean;
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
        return joiner === 'or' ? either(left, right) : worse(left, right);
      }
      at = token.indexOf(joiner, at + 1);
    }
  }
  return undefined;
}

function worse(left: VerbInfo, right: VerbInfo): VerbInfo {
  return KIND_SEVERITY[right.kind] > KIND_SEVERITY[left.kind] ? right : left;
}

/**
 * Two verbs joined by `or` (`create_or_update`, `getOrCreate`): one or the other happens,
 * whichever applies, so calling again changes nothing more: the worse of the two,
 * idempotent.
 */
function either(left: VerbInfo, right: VerbInfo): VerbInfo {
  const verb = worse(left, right);
  return verb.idempotent === true ? verb : { ...verb, idempotent: true };
}

/** True for a word of digits only (`1` in `marketplace-1-click-list`). */
function isNumber(token: string): boolean {
  const code = token.charCodeAt(0);
  return code >= 48 && code <= 57;
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

/**
 * Safety first: a destructive verb ending the name (`find_replace`) is not outweighed by a
 * milder verb in front of it.
 */
function endsDestroying(lastInfo: VerbInfo | undefined, front: VerbInfo): boolean {
  return isClear(lastInfo) && lastInfo.kind === 'destructive' && front.kind !== 'destructive';
}

/** Picks the verb of a name's words; see `readName`. */
function pickPrimary(candidates: ReadonlyArray<VerbInfo | undefined>): VerbPick {
  const last = candidates.length - 1;
  const lastInfo = last > 0 ? candidates[last] : undefined;
  const first = candidates[0];
  if (isClear(first)) {
    return endsDestroying(lastInfo, first)
      ? { index: last, position: 'last', safety: true }
      : { index: 0, position: 'first', safety: false };
  }
  // After a prefix, the first clear verb acts on the words after it, which are its objects
  // even when one of them could be a verb (`genai-simulation-get-scenario-set`,
  // `linear_createProjectUpdate`).
  for (let i = 1; i < last; i++) {
    const info = candidates[i];
    if (!isClear(info)) continue;
    return endsDestroying(lastInfo, info)
      ? { index: last, position: 'last', safety: true }
      : { index: i, position: 'after-prefix', safety: false };
  }
  if (isClear(lastInfo)) return { index: last, position: 'last', safety: false };
  if (first !== undefined) return { index: 0, position: 'first', safety: false };
  // Behind a noun prefix, a word ending the name is its likelier verb, even one as often a
  // noun (`vector_store_search`, `data_source_query`); in the middle, the first one
  // (`qmetry_link_test_cases_to_test_suite`).
  if (lastInfo !== undefined) return { index: last, position: 'fallback', safety: false };
  for (let i = 1; i < last; i++) {
    if (candidates[i] !== undefined) return { index: i, position: 'fallback', safety: false };
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
 * process or shell runs it (`interact_with_process`); resolving or converting a name, ID
 * or address looks it up (`resolve-library-id`, `pubmed_convert_ids`), unlike resolving
 * an issue; running or executing a test, suite, pipeline or job the service defines adds
 * a run of it (`swagger_run_suite`), unlike running code.
 */
/** A verb read as itself, one shared result per kind. */
const PLAIN: Readonly<Record<VerbKind, Pick<NameVerb, 'kind' | 'rule' | 'object'>>> = {
  read: { kind: 'read', rule: 'verb', object: undefined },
  destructive: { kind: 'destructive', rule: 'verb', object: undefined },
  update: { kind: 'update', rule: 'verb', object: undefined },
  additive: { kind: 'additive', rule: 'verb', object: undefined },
  toggle: { kind: 'toggle', rule: 'verb', object: undefined },
  interact: { kind: 'interact', rule: 'verb', object: undefined },
  exec: { kind: 'exec', rule: 'verb', object: undefined },
  vague: { kind: 'vague', rule: 'verb', object: undefined },
};

/**
 * True for a verb whose meaning its objects can change (`reset`, `run`, `close`, `select`,
 * `send`, `resolve`, `start` …): only then are its objects read.
 */
export function readsObjects(info: VerbInfo): boolean {
  const lemma = info.lemma;
  return (
    info.kind === 'exec' ||
    info.kind === 'vague' ||
    RESETTING_VERBS.has(lemma) ||
    CONTEXT_VERBS.has(lemma) ||
    FEEDING_VERBS.has(lemma) ||
    lemma === 'start' ||
    lemma === 'close' ||
    lemma === 'resolve' ||
    lemma === 'convert'
  );
}

export function objectRule(
  info: VerbInfo,
  tokens: readonly string[],
  index: number,
): Pick<NameVerb, 'kind' | 'rule' | 'object'> {
  if (!readsObjects(info)) return PLAIN[info.kind];
  const resets = RESETTING_VERBS.has(info.lemma);
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
  const resolves = info.lemma === 'resolve' || info.lemma === 'convert';
  const executes = JOB_VERBS.has(info.lemma);
  const starts = info.lemma === 'start';
  if (resets || runs || closes || switches || feeds || resolves) {
    const trailing = index > 0 && index === tokens.length - 1;
    const from = trailing ? 0 : index + 1;
    const to = trailing ? index : tokens.length;
    // A job the verb runs is its direct object, before any preposition: `run_command_in_pod`
    // runs a command, not a pod.
    let direct = true;
    for (let i = from; i < to; i++) {
      const token = tokens[i] as string;
      if (!trailing && PREPOSITIONS.has(token)) direct = false;
      if (resets && EPHEMERAL_OBJECTS.has(token)) {
        return { kind: 'toggle', rule: 'ephemeral-reset', object: token };
      }
      if (runs && READ_OBJECTS.has(token)) {
        return { kind: 'read', rule: 'read-object', object: token };
      }
      if (executes && direct && JOB_OBJECTS.has(token)) {
        return { kind: 'additive', rule: 'starts-job', object: token };
      }
      if (starts && direct && RUN_OBJECTS.has(token)) {
        return { kind: 'additive', rule: 'starts-job', object: token };
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
      if (resolves && IDENTIFIER_OBJECTS.has(token)) {
        return { kind: 'read', rule: 'lookup-object', object: token };
      }
    }
  }
  return PLAIN[info.kind];
}

/**
 * True when the verb at `index` is `remove` taking something away from another: `from`
 * follows it (`remove_user_from_team`), or its object is a membership such as a member,
 * label or assignee (`removeProjectMember`, `removeIssueLabel`). Deleting records from a
 * table is no detachment.
 */
function detachesAfter(tokens: readonly string[], index: number): boolean {
  if ((tokens[index] as string) !== 'remove') return false;
  for (let i = index + 1; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (token === 'from' || MEMBERSHIP_OBJECTS.has(token)) return true;
  }
  return false;
}

/**
 * A name that ends in a noun for guidance (`create-canva-app-instructions`, `qql_help`)
 * returns text about the words before it: a read, whatever verb stands in front, unless that
 * verb takes the noun as its direct object (`update_docs` updates them) or destroys or runs
 * something (safety first: `delete_app_guide` keeps its verb).
 */
function guidanceVerb(
  tokens: readonly string[],
  found: VerbInfo | undefined,
  index: number,
): NameVerb | undefined {
  let verb = found;
  const last = tokens.length - 1;
  const noun = tokens[last] as string;
  if (last < 1 || !GUIDANCE_NOUNS.has(noun)) return undefined;
  // The noun itself may be a verb (`help`): then no other verb stands in the name.
  if (index === last) verb = undefined;
  if (verb !== undefined) {
    const acts = verb.kind !== 'read' && verb.kind !== 'vague';
    if (acts && index === last - 1) return undefined;
    if (verb.kind === 'destructive' || verb.kind === 'exec') return undefined;
  }
  return {
    word: verb === undefined ? noun : (tokens[index] as string),
    info: GUIDANCE_READ,
    index: verb === undefined ? last : index,
    kind: 'read',
    rule: 'returns-guidance',
    object: noun,
    firm: true,
    position: verb === undefined ? 'last' : 'first',
    safety: false,
    detaches: false,
  };
}

const GUIDANCE_READ: VerbInfo = {
  lemma: 'guidance',
  kind: 'read',
  idempotent: true,
  nounish: false,
};

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
  // The words as reasons name them: `create or update` for two verbs read as one.
  let shown: string[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const next = tokens[i + 1];
    if (token === 'force') {
      force = true;
      candidates.push(undefined);
    } else if (i > 0 && PREPOSITIONS.has(tokens[i - 1] as string)) {
      // After a preposition a word is an object or complement: `mark_as_read`.
      candidates.push(undefined);
    } else if (i > 0 && isNumber(tokens[i - 1] as string)) {
      // After a number a word is a noun: `marketplace-1-click-list`, `2_factor_enable`.
      candidates.push(undefined);
    } else if (next !== undefined && NOUN_COMPOUNDS.get(token)?.has(next) === true) {
      candidates.push(undefined);
    } else if (i > 0 && tokens[i - 1] === 'api' && HTTP_METHOD_KINDS.has(token)) {
      // Names generated from an API description: `API-post-search`, `api_delete_user`.
      candidates.push(httpMethodVerb(token));
    } else {
      const verb = lookupNameVerb(token) ?? joinedVerbs(token);
      const before = i > 1 && tokens[i - 1] === 'or' ? candidates[i - 2] : undefined;
      if (verb !== undefined && before !== undefined) {
        // `create_or_update`: one action, the worse of the two, idempotent.
        candidates[i - 2] = either(before, verb);
        shown ??= [...tokens];
        shown[i - 2] = `${tokens[i - 2] as string} or ${token}`;
        candidates.push(undefined);
      } else {
        candidates.push(verb);
      }
    }
  }
  const httpRequest =
    (tokens.includes('request') || tokens.includes('requests')) &&
    (tokens.includes('http') || tokens.includes('api'));
  const { index, position, safety } = pickPrimary(candidates);
  const guidance = guidanceVerb(tokens, index < 0 ? undefined : candidates[index], index);
  if (guidance !== undefined) return { primary: guidance, conjoined: [], force, httpRequest };
  if (index < 0) return force || httpRequest ? { ...NONE, force, httpRequest } : NONE;
  const info = candidates[index] as VerbInfo;
  const primary: NameVerb = {
    word: (shown ?? tokens)[index] as string,
    info,
    index,
    firm: (index === 0 || !info.nounish) && !SOFT_VERBS.has(info.lemma),
    position,
    safety,
    detaches: detachesAfter(tokens, index),
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
        detaches: detachesAfter(tokens, i),
        ...objectRule(candidate, tokens, i),
      });
    }
  }
  return { primary, conjoined, force, httpRequest };
}
