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

/** Picks the verb of a name's words; see `readName`. */
function pickPrimary(candidates: ReadonlyArray<VerbInfo | undefined>): number {
  const last = candidates.length - 1;
  if (isClear(candidates[0])) return 0;
  if (last > 0 && isClear(candidates[last])) return last;
  for (let i = 1; i < last; i++) if (isClear(candidates[i])) return i;
  for (let i = 0; i <= last; i++) if (candidates[i] !== undefined) return i;
  return -1;
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
 * Finds the verb of a tool name from its lower-case words. The leading word wins when it
 * is a clear verb (`get_commit`, `list_deleted_items`: later words are objects); when it
 * is not, a clear verb at the end (`issue_read`, `label_write`, `repo.delete`), then one
 * in the middle (`mcp_github_get_me`); words that are more often nouns (`comment`,
 * `label`, `query`) and vague verbs (`manage`) come last. A verb after `and`, `or` or
 * `then` is an action of its own (`getAndDelete`, `search_and_replace`). Base forms
 * only: a name's `deleted` describes its object.
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
      candidates.push(lookupNameVerb(token));
    }
  }
  const httpRequest =
    (tokens.includes('request') || tokens.includes('requests')) &&
    (tokens.includes('http') || tokens.includes('api'));
  const index = pickPrimary(candidates);
  if (index < 0) return force || httpRequest ? { ...NONE, force, httpRequest } : NONE;
  const info = candidates[index] as VerbInfo;
  const primary: NameVerb = {
    word: tokens[index] as string,
    info,
    index,
    firm: index === 0 || !info.nounish,
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
        ...objectRule(candidate, tokens, i),
      });
    }
  }
  return { primary, conjoined, force, httpRequest };
}
