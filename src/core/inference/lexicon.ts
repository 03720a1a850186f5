/**
 * The word tables inference reads tools with. Every table is a `Set` or `Map` built once,
 * when the module loads; lookups are exact, whole-word and allocation-free, so "forget" is
 * never "get", "preset" never "reset" and "settings" never "set".
 */
import { hashWord, spanEquals } from './tokenize.js';

/**
 * What a verb says about a call, in the terms of MCP's hints:
 * - `read`: looks and changes nothing (get, list, search).
 * - `destructive`: removes or irreversibly ends something (delete, drop, kill, replace).
 * - `update`: changes existing state in place (update, set, edit, write, move); the MCP
 *   specification counts any non-additive change as destructive.
 * - `additive`: only adds (create, add, insert, send, upload).
 * - `toggle`: flips a reversible state, losing nothing (enable, restore, mark, archive).
 * - `interact`: drives a user interface (click, type, navigate); effects unknown.
 * - `exec`: runs code or commands it is given (execute, run, eval): it could do anything.
 * - `vague`: a verb that says nothing by itself (manage, handle, process, use).
 */
export type VerbKind =
  'read' | 'destructive' | 'update' | 'additive' | 'toggle' | 'interact' | 'exec' | 'vague';

/** How bad each kind of action is, for "the worst value wins". */
export const KIND_SEVERITY: Readonly<Record<VerbKind, number>> = {
  vague: -1,
  read: 0,
  toggle: 1,
  additive: 2,
  interact: 3,
  update: 5,
  exec: 6,
  destructive: 7,
};

/** The coarse classes `classifyVerb` returns, for argument values as well as names. */
export type VerbClass = 'read' | 'destructive' | 'additive' | 'idempotent-write';

/** What the lexicon knows about one verb. */
export interface VerbInfo {
  /** The base form (`delete` for `deleting`). */
  readonly lemma: string;
  readonly kind: VerbKind;
  /** True or false when the verb alone says whether repeating a call changes anything. */
  readonly idempotent: boolean | undefined;
  /**
   * Also common as a noun at the front of a name (`label_write`, `comment_delete`,
   * `query_logs`), so a clearer verb elsewhere in the name is preferred to it.
   */
  readonly nounish: boolean;
}

/** How a word was inflected: base form, third person `-s`, past `-ed` or gerund `-ing`. */
export type VerbForm = 'base' | 's' | 'ed' | 'ing';

/** A word found in the verb tables, with its inflection. */
export interface VerbMatch {
  readonly info: VerbInfo;
  readonly form: VerbForm;
}

function words(list: string): readonly string[] {
  return list.split(/\s+/).filter((word) => word.length > 0);
}

/** Verbs that only read: calling them changes nothing. */
export const READ_ONLY_VERBS: ReadonlySet<string> = new Set(
  words(`
    get list read search find fetch retrieve query describe show view inspect check count
    lookup look browse display explain analyze analyse validate verify preview diff compare
    summarize summarise whoami ping echo stat print render calculate compute estimate
    suggest recommend detect identify scan audit lint parse extract observe wait sleep
    download export capture screenshot test aggregate return peek poll explore discover
    probe crawl scrape visit map measure forecast predict think plan reason translate
    classify sort filter match grep tail dump trace review research generate diagnose
    troubleshoot investigate examine assess rank rerank recognize transcribe
  `),
);

/**
 * Read verbs whose effect depends on what they make: generating a chart or a link returns
 * it, generating a collection or an archive stores it. In a name they yield to the
 * description's opening verb ("Creates a collection from the given API specification").
 */
export const SOFT_VERBS: ReadonlySet<string> = new Set(words(`generate`));

/** Verbs that remove data or end something for good: the destructive ones. */
export const DESTRUCTIVE_VERBS: ReadonlySet<string> = new Set(
  words(`
    delete remove drop destroy purge erase wipe truncate overwrite replace reset revoke
    kill terminate uninstall unlink clear flush prune discard rollback revert shutdown
    evict unpublish cancel abort expire shred trash nuke deregister unregister unset
    restart reboot drain force rewrite detach decommission deprovision delist forget
    disassociate cleanup
  `),
);

/**
 * Of the destructive verbs, those that destroy outright, with no reading under which
 * nothing is lost: only these, as a tool's main verb, overrule a server's word that the
 * tool is not destructive (`cancel`, `restart` or `revoke` may lose nothing).
 */
export const OUTRIGHT_DESTRUCTIVE_VERBS: ReadonlySet<string> = new Set(
  words(`
    delete remove drop destroy purge erase wipe truncate overwrite kill terminate uninstall
    shred nuke decommission deprovision unpublish evict flush prune rm rmdir del
  `),
);

/** Verbs that change existing state in place: update-like, non-additive writes. */
export const UPDATE_VERBS: ReadonlySet<string> = new Set(
  words(`
    update set edit modify change alter write put patch upsert rename move save store
    configure apply sync deploy redeploy upgrade downgrade scale merge push migrate
    reindex rebuild rotate transfer fix assign reassign reorder reprioritize resize
    reschedule
    prioritize convert commit
  `),
);

/** Verbs that only add: creating, sending or uploading something new. */
export const ADDITIVE_VERBS: ReadonlySet<string> = new Set(
  words(`
    create add insert append post send upload comment reply react fork clone copy
    duplicate import register invite schedule book reserve submit request trigger
    dispatch enqueue queue spawn launch provision allocate install build compile record
    log note share notify email message remember backup track compress
    gzip zip bundle tag label star like vote bookmark follow subscribe watch respond link
    attach associate init initialize initialise
  `),
);

/** Verbs that flip a reversible state without losing anything. */
export const TOGGLE_VERBS: ReadonlySet<string> = new Set(
  words(`
    enable disable activate deactivate start stop pause resume suspend unsuspend restore
    undelete recover unarchive untrash archive mark unmark flag unflag lock unlock pin
    unpin mute unmute hide unhide close reopen approve reject accept decline dismiss
    resolve unresolve grant unassign unstar unfollow unsubscribe unwatch unlabel untag
    refresh reload toggle cordon uncordon favorite unfavorite acknowledge ack snooze
    complete finish select switch focus unshare login logout connect disconnect reconnect
    publish
  `),
);

/** Verbs that drive a user interface. */
export const INTERACT_VERBS: ReadonlySet<string> = new Set(
  words(`
    click tap type press hover drag fill scroll navigate go goto emulate zoom
    uncheck blur keypress dblclick
  `),
);

/** Name verbs that run a query or statement the caller writes (`query_x`, `run_sql`). */
export const QUERY_RUNNING_VERBS: ReadonlySet<string> = new Set(words(`query run execute exec`));

/** Verbs that run what they are given: code, commands, scripts. */
export const EXEC_VERBS: ReadonlySet<string> = new Set(
  words(`execute exec run rerun eval evaluate invoke call inject interpret`),
);

/** Verbs that say nothing about effects by themselves. */
export const VAGUE_VERBS: ReadonlySet<string> = new Set(
  words(`
    manage handle process use do perform make access operate control administer batch
    bulk take try work interact ask answer help provide support allow open load
  `),
);

/**
 * Verbs that mean "repeat it and nothing more happens" on their own. Destructive, read
 * and toggle verbs are idempotent by default; the sets below name the exceptions and the
 * idempotent update verbs: those that put a thing into a given state or place (`set`,
 * `rename`, `move`, `transfer`, `convert`), where a second call finds it there already.
 */
export const IDEMPOTENT_VERBS: ReadonlySet<string> = new Set(
  words(`
    set put update write replace overwrite upsert rename configure apply sync assign
    reassign scale resize move transfer convert change
  `),
);

const NOT_IDEMPOTENT: ReadonlySet<string> = new Set(
  words(`rollback revert rewrite restart reboot toggle select switch`),
);

/**
 * Verbs also common as nouns: a service or resource named at the front of a tool name
 * (`compute_vm_delete`, `deploy_plan_get`, `queue_list`) or an object at its end
 * (`get_workflow_run`, `get_commit`). A clear verb elsewhere in the name is its verb.
 */
const NOUNISH: ReadonlySet<string> = new Set(
  words(`
    label tag comment post query search note log record request map test review check
    plan trace match sort filter schedule message email backup copy share view export
    import build report print stat snapshot screenshot like vote star research
    bookmark flag pin watch type order compute deploy queue trigger monitor cache record
    design commit run diff scan audit trash transfer link eval store
  `),
);

/** Verbs found only in names: abbreviations (`rm_file`, `ls`, `mkdir`) and `new` (`new_page`). */
const NAME_ABBREVIATIONS: ReadonlyMap<string, VerbKind> = new Map<string, VerbKind>([
  ['ls', 'read'],
  ['cat', 'read'],
  ['head', 'read'],
  ['du', 'read'],
  ['df', 'read'],
  ['pwd', 'read'],
  ['rm', 'destructive'],
  ['rmdir', 'destructive'],
  ['del', 'destructive'],
  ['mv', 'update'],
  ['chmod', 'update'],
  ['chown', 'update'],
  ['mkdir', 'additive'],
  // `new_page`; in prose "new" is an adjective ("to new dates"), never the action.
  ['new', 'additive'],
  ['mk', 'additive'],
  ['touch', 'additive'],
  ['cp', 'additive'],
  ['sh', 'exec'],
  ['bash', 'exec'],
  ['shell', 'exec'],
]);

const IRREGULAR_FORMS: ReadonlyArray<readonly [string, string, VerbForm]> = [
  ['got', 'get', 'ed'],
  ['gotten', 'get', 'ed'],
  ['found', 'find', 'ed'],
  ['shown', 'show', 'ed'],
  ['wrote', 'write', 'ed'],
  ['written', 'write', 'ed'],
  ['sent', 'send', 'ed'],
  ['made', 'make', 'ed'],
  ['done', 'do', 'ed'],
  ['does', 'do', 's'],
  ['did', 'do', 'ed'],
  ['took', 'take', 'ed'],
  ['taken', 'take', 'ed'],
  ['ran', 'run', 'ed'],
  ['went', 'go', 'ed'],
  ['gone', 'go', 'ed'],
  ['built', 'build', 'ed'],
  ['thought', 'think', 'ed'],
  ['undone', 'undo', 'ed'],
];

function kindOf(word: string): VerbKind | undefined {
  // Order matters only for words in two tables: the more careful reading wins.
  if (DESTRUCTIVE_VERBS.has(word)) return 'destructive';
  if (EXEC_VERBS.has(word)) return 'exec';
  if (UPDATE_VERBS.has(word)) return 'update';
  if (ADDITIVE_VERBS.has(word)) return 'additive';
  if (TOGGLE_VERBS.has(word)) return 'toggle';
  if (INTERACT_VERBS.has(word)) return 'interact';
  if (READ_ONLY_VERBS.has(word)) return 'read';
  if (VAGUE_VERBS.has(word)) return 'vague';
  return undefined;
}

function idempotenceOf(word: string, kind: VerbKind): boolean | undefined {
  if (NOT_IDEMPOTENT.has(word)) return undefined;
  if (IDEMPOTENT_VERBS.has(word)) return true;
  switch (kind) {
    case 'read':
    case 'destructive':
    case 'toggle':
      return true;
    case 'additive':
      return false;
    case 'update':
    case 'interact':
    case 'exec':
    case 'vague':
      return undefined;
  }
}

const VOWELS = 'aeiou';

function isConsonant(char: string | undefined): boolean {
  return char !== undefined && !VOWELS.includes(char);
}

/** The regular inflections of a base form, including the doubled-consonant variants. */
function inflect(base: string): Array<readonly [string, VerbForm]> {
  const forms: Array<readonly [string, VerbForm]> = [];
  const last = base.at(-1);
  const beforeLast = base.at(-2);
  if (/(s|x|z|ch|sh|o)$/.test(base)) forms.push([`${base}es`, 's']);
  else if (last === 'y' && isConsonant(beforeLast)) forms.push([`${base.slice(0, -1)}ies`, 's']);
  else forms.push([`${base}s`, 's']);
  if (last === 'e') {
    forms.push([`${base}d`, 'ed']);
    if (base.endsWith('ie')) forms.push([`${base.slice(0, -2)}ying`, 'ing']);
    else if (base.endsWith('ee')) forms.push([`${base}ing`, 'ing']);
    else forms.push([`${base.slice(0, -1)}ing`, 'ing']);
  } else if (last === 'y' && isConsonant(beforeLast)) {
    forms.push([`${base.slice(0, -1)}ied`, 'ed'], [`${base}ing`, 'ing']);
  } else {
    forms.push([`${base}ed`, 'ed'], [`${base}ing`, 'ing']);
    // stop → stopped, drop → dropping: a final consonant after one vowel may double.
    if (
      last !== undefined &&
      isConsonant(last) &&
      !'wxy'.includes(last) &&
      !isConsonant(beforeLast) &&
      isConsonant(base.at(-3))
    ) {
      forms.push([`${base}${last}ed`, 'ed'], [`${base}${last}ing`, 'ing']);
    }
  }
  return forms;
}

function buildVerbTable(): ReadonlyMap<string, VerbMatch> {
  const table = new Map<string, VerbMatch>();
  const infos = new Map<string, VerbInfo>();
  const all = [
    DESTRUCTIVE_VERBS,
    EXEC_VERBS,
    UPDATE_VERBS,
    ADDITIVE_VERBS,
    TOGGLE_VERBS,
    INTERACT_VERBS,
    READ_ONLY_VERBS,
    VAGUE_VERBS,
  ];
  for (const set of all) {
    for (const lemma of set) {
      if (infos.has(lemma)) continue;
      const kind = kindOf(lemma);
      if (kind === undefined) continue;
      const info: VerbInfo = {
        lemma,
        kind,
        idempotent: idempotenceOf(lemma, kind),
        nounish: NOUNISH.has(lemma),
      };
      infos.set(lemma, info);
      table.set(lemma, { info, form: 'base' });
    }
  }
  // Base forms first, so an inflection never hides another verb's base form.
  for (const [lemma, info] of infos) {
    for (const [form, kind] of inflect(lemma)) {
      if (!table.has(form)) table.set(form, { info, form: kind });
    }
  }
  for (const [form, lemma, kind] of IRREGULAR_FORMS) {
    const info = infos.get(lemma);
    if (info !== undefined && !table.has(form)) table.set(form, { info, form: kind });
  }
  return table;
}

const VERB_TABLE = buildVerbTable();

const NAME_VERB_TABLE: ReadonlyMap<string, VerbMatch> = new Map(
  [...NAME_ABBREVIATIONS].map(([word, kind]) => [
    word,
    {
      info: { lemma: word, kind, idempotent: idempotenceOf(word, kind), nounish: false },
      form: 'base' as const,
    },
  ]),
);

/**
 * Looks a lower-case word up in the verb tables, in any regular or common irregular
 * inflection (`deletes`, `deleted`, `deleting`, `found`). Whole words only.
 */
export function lookupVerb(word: string): VerbMatch | undefined {
  return VERB_TABLE.get(word);
}

/**
 * Looks up a word of a tool name: base forms only (a name's `deleted` is an adjective, as
 * in `list_deleted_items`), plus abbreviations such as `rm`, `ls` and `mkdir`.
 */
export function lookupNameVerb(word: string): VerbInfo | undefined {
  const match = VERB_TABLE.get(word) ?? NAME_VERB_TABLE.get(word);
  if (match !== undefined) return match.form === 'base' ? match.info : undefined;
  return word.length > 4 && word.startsWith('un') ? reversal(word) : undefined;
}

/**
 * `un` before a verb the tables know, as in `unapprove`: undoing the action, a reversible
 * state change.
 */
function reversal(word: string): VerbInfo | undefined {
  const undone = VERB_TABLE.get(word.slice(2));
  if (undone === undefined || undone.form !== 'base' || undone.info.kind === 'vague')
    return undefined;
  return { lemma: word, kind: 'toggle', idempotent: true, nounish: false };
}

/**
 * The coarse class of a verb, for names and for the values of `action`, `operation` or
 * `mode` arguments (`read`, `append`, `replace`, `delete`). Update-like and toggle verbs
 * are `idempotent-write`; verbs that run code count as `destructive` (they could do
 * anything); UI and vague verbs have no class.
 *
 * @example classifyVerb('append') // 'additive'
 */
export function classifyVerb(word: string): VerbClass | undefined {
  const lower = word.toLowerCase();
  const info = lookupVerb(lower)?.info ?? NAME_VERB_TABLE.get(lower)?.info;
  if (info === undefined) return undefined;
  switch (info.kind) {
    case 'read':
      return 'read';
    case 'destructive':
    case 'exec':
      return 'destructive';
    case 'additive':
      return 'additive';
    case 'update':
    case 'toggle':
      return 'idempotent-write';
    case 'interact':
    case 'vague':
      return undefined;
  }
}

/**
 * Name words saying a call only shows what would happen (`delete_preview`,
 * `apply_dry_run`): with a description that says it changes nothing, the verb is
 * hypothetical.
 */
export const HYPOTHETICAL_WORDS: ReadonlySet<string> = new Set(
  words(`preview dry dryrun simulate simulation whatif`),
);

/**
 * Prepositions: a name word right after one is its object or complement, never its verb
 * (`mark_as_read`, `convert_to_pdf`, `remove_user_from_team`).
 */
export const PREPOSITIONS: ReadonlySet<string> = new Set(
  words(`as to from by with for in into onto on of via at per`),
);

/**
 * Articles, determiners and quantifiers: a description word right after one is a noun ("a
 * set of documents", "in one call"), not the tool's action.
 */
export const DETERMINERS: ReadonlySet<string> = new Set(
  words(`
    a an the this that these those each every any some its their your our my another one
    single multiple several many both
  `),
);

/**
 * Determiners by their `hashWord` hash: a scanner checks the word before a verb against
 * them only when it needs to, so these frequent words cost nothing on their own.
 */
export const DETERMINER_HASHES: ReadonlyMap<number, string> = new Map(
  [...DETERMINERS].map((word) => [hashWord(word), word]),
);

/** Forms of "be" by their hash: "Deletion is permanent" states something lost for good. */
export const BE_HASHES: ReadonlyMap<number, string> = new Map(
  words(`is are was were be`).map((word) => [hashWord(word), word]),
);

/** Words that join two actions in a name or a sentence (`get_and_delete`). */
export const CONJUNCTIONS: ReadonlySet<string> = new Set(words(`and or then plus also`));

/**
 * Verbs that reset or empty what they act on; with an ephemeral object they lose no data
 * (`resetPagination`, `clear_filters`, `spaces-cdn-flush-cache`, `purge_cache`).
 */
export const RESETTING_VERBS: ReadonlySet<string> = new Set(
  words(`reset clear flush purge invalidate`),
);

/**
 * Objects whose reset or clearing loses no data: view state and caches, not records
 * (`resetPagination`, `clear_filters`).
 */
export const EPHEMERAL_OBJECTS: ReadonlySet<string> = new Set(
  words(`
    pagination paging page cursor cursors filter filters view views form forms zoom
    selection selections sort sorting search scroll layout highlight highlights input
    inputs offset focus cache caches console timer timers
  `),
);

/** Objects that make `run`, `execute` or `take` a read (`run_query`, `take_screenshot`). */
export const READ_OBJECTS: ReadonlySet<string> = new Set(
  words(`
    query queries report reports search searches analysis lint diagnostics diagnostic
    detector detectors analyzer analyzers scan scans audit audits screenshot screenshots
    snapshot snapshots
    picture photo heapsnapshot
  `),
);

/**
 * Objects that make running start a run of something the service defines that checks or
 * hosts, not code the caller wrote: a test, a suite, a session, a pod (`swagger_run_suite`,
 * `runBrowserLiveSession`, `pods_run`). A pipeline, workflow or job is left out: it is
 * automation that may do anything, deployments included (`run_pipeline`).
 */
export const JOB_OBJECTS: ReadonlySet<string> = new Set(
  words(`
    test tests suite suites check checks benchmark benchmarks regression session sessions
    pod pods container containers webhook webhooks hook hooks
  `),
);

/** The verbs that start a run of a job object (`run`, `rerun`, `execute`), unlike `exec`. */
export const JOB_VERBS: ReadonlySet<string> = new Set(words(`run rerun execute`));

/**
 * Objects that make `start` add a new run rather than switch something on: a pipeline,
 * task, migration or execution started twice runs twice (`tekton_pipeline_start`,
 * `db-cluster-start-online-migration`, `qtm4j_start_new_execution`), unlike a VM.
 */
export const RUN_OBJECTS: ReadonlySet<string> = new Set(
  words(`
    pipeline pipelines workflow workflows job jobs task tasks build builds migration
    migrations execution executions run runs test tests suite suites scan scans
  `),
);

/**
 * Objects that are memberships or marks on something else: removing one takes it off,
 * losing nothing of either (`removeProjectMember`, `removeIssueLabel`).
 */
export const MEMBERSHIP_OBJECTS: ReadonlySet<string> = new Set(
  words(`
    member members label labels tag tags assignee assignees reviewer reviewers watcher
    watchers subscriber subscribers collaborator collaborators favorite favorites reaction
    reactions star stars
  `),
);

/**
 * Objects that make `resolve` a look-up: a name, ID or address resolved to what it
 * stands for (`resolve-library-id`, `resolve_hostname`).
 */
export const IDENTIFIER_OBJECTS: ReadonlySet<string> = new Set(
  words(`
    id ids identifier identifiers name names uri uris url urls path paths address addresses
    host hostname hostnames domain domains dns alias aliases symbol symbols reference
    references ref refs handle handles
  `),
);

/**
 * Nouns for text a tool returns to guide its caller: a name ending in one
 * (`create-canva-app-instructions`, `deploy_pipeline_guidance_get`) returns guidance about
 * the words before it and changes nothing, whatever verb they contain.
 */
export const GUIDANCE_NOUNS: ReadonlySet<string> = new Set(
  words(`
    instructions instruction guidance guide guides guidelines docs documentation help
    bestpractices tips tutorial tutorials cheatsheet howto
  `),
);

/** Objects that closing ends for good, losing their state (`close_page`, `browser_close`). */
export const SESSION_OBJECTS: ReadonlySet<string> = new Set(
  words(`page pages tab tabs browser window windows session sessions connection terminal`),
);

/**
 * Verbs that only change which resource later calls act on (`select_page`, `connect`,
 * `switch_project`): the environment itself is not modified.
 */
export const CONTEXT_VERBS: ReadonlySet<string> = new Set(
  words(`select switch use focus connect disconnect`),
);

/**
 * Objects a context verb points at (`select_page`, `connect_database`); `connect` and
 * `disconnect` with no object count too.
 */
export const CONTEXT_OBJECTS: ReadonlySet<string> = new Set(
  words(`
    page pages tab tabs window windows frame frames context contexts project projects
    workspace workspaces profile profiles database databases db instance instances
    cluster clusters connection connections
  `),
);

/**
 * Objects that make sending, writing or interacting a way to run commands: input to a
 * live process or shell is executed (`interact_with_process`, `send_to_terminal`).
 */
export const PROCESS_OBJECTS: ReadonlySet<string> = new Set(
  words(`process processes terminal terminals repl shell shells`),
);

/** Verbs that feed input to what they act on (`send_input`, `write_to_terminal`). */
export const FEEDING_VERBS: ReadonlySet<string> = new Set(words(`send write type interact input`));

/** Two-word nouns whose first word is also a verb (`pull_request`, `check_run`). */
export const NOUN_COMPOUNDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['pull', new Set(words('request requests'))],
  ['merge', new Set(words('request requests conflict conflicts'))],
  ['change', new Set(words('request requests set sets log logs'))],
  ['feature', new Set(words('request requests flag flags'))],
  ['push', new Set(words('notification notifications subscription subscriptions'))],
  ['check', new Set(words('run runs suite suites'))],
  ['search', new Set(words('result results index indexes'))],
  ['access', new Set(words('token tokens request requests'))],
]);

/** Words that negate what follows them in the same clause. */
export const NEGATIONS: ReadonlySet<string> = new Set(
  words(`
    not no never without cannot nor none neither non doesn't don't won't isn't aren't
    can't shouldn't wouldn't didn't hasn't haven't mustn't
  `),
);

/** Verbs that, negated, say the tool changes nothing ("does not modify"). */
export const MODIFY_LEMMAS: ReadonlySet<string> = new Set(
  words(`modify change alter mutate write update affect persist save edit touch`),
);

/** Nouns that, negated, say the same ("no side effects", "without modifications"). */
export const MODIFY_NOUNS: ReadonlySet<string> = new Set(
  words(`side changes modifications mutations writes effects`),
);

/**
 * Words stating that a call destroys something for good. `permanent` counts only as
 * "is permanent" ("Deletion is permanent"), not before a noun ("a permanent link").
 */
export const DESTRUCTIVE_STATEMENT_WORDS: ReadonlySet<string> = new Set(
  words(`destructive irreversible irreversibly permanently unrecoverable irrecoverable`),
);

/** Words (after a negation) stating that a call cannot be taken back ("cannot be undone"). */
export const UNDO_WORDS: ReadonlySet<string> = new Set(words(`undone reversed recovered restored`));

/**
 * Name words that point to the open web (`web_search_exa`, `browser_navigate`). A URL in a
 * name is mostly one the tool returns (`getSdkDownloadUrl`), and `registry` or `online` a
 * service's own (`acr_registry_list`, `db-cluster-start-online-migration`): left out.
 */
export const OPEN_WORLD_WORDS: ReadonlySet<string> = new Set(
  words(`web internet website websites webpage webpages http https browser`),
);

/**
 * Description words that point to the open web. "web", "public", "external" and
 * "registry" are left out: in descriptions they name a service's own things ("web app",
 * "public ID", "external links", "container registry") far more often than the web.
 */
export const DESCRIPTION_OPEN_WORLD_WORDS: ReadonlySet<string> = new Set(
  words(`internet website websites webpage webpages`),
);

/**
 * Name words for reaching beyond the tool's own service: the web (`firecrawl_scrape`,
 * `crawl_site`) or other people's mailboxes and phones (`communication_email_send`).
 */
export const REACHING_NAME_WORDS: ReadonlySet<string> = new Set(
  words(`scrape crawl email emails mail sms`),
);

/** Words that point to a closed, local world. */
export const LOCAL_WORDS: ReadonlySet<string> = new Set(
  words(`local locally filesystem localhost sandbox sandboxed`),
);

/**
 * Of those, the ones a name uses for its own world. `local` in a name qualifies a place or
 * a thing sent elsewhere (`brave_local_search`, `insertLocalImage`), and `sandbox` is as
 * often a remote one (`create_sandbox`).
 */
export const LOCAL_NAME_WORDS: ReadonlySet<string> = new Set(words(`filesystem localhost`));

/**
 * Words of moving data between the local machine and somewhere else (`bb_clone`,
 * `download_attachment`, `port_forward`): a local word then names one end of the move, not
 * the tool's whole world.
 */
export const TRANSFER_WORDS: ReadonlySet<string> = new Set(
  words(`upload download clone push pull sync import export forward mirror`),
);

/** Words that make a tool more involved to call. */
export const COMPLEXITY_WORDS: ReadonlySet<string> = new Set(
  words(`
    batch bulk multiple workflow pipeline migrate migration deploy orchestrate recursive
    recursively transaction aggregate aggregation complex multistep
  `),
);

/** Argument names whose value is run as code or a command. */
export const EXEC_ARGUMENTS: ReadonlySet<string> = new Set(
  words(`sql command commands cmd shell statement statements script scripts cypher`),
);

/** Of those, the ones that are as often content a tool stores (`createPackage(script)`). */
export const SCRIPT_ARGUMENTS: ReadonlySet<string> = new Set(words(`script scripts`));

/** Of those, the ones a shell or interpreter runs: such a tool can reach anywhere. */
export const SHELL_ARGUMENTS: ReadonlySet<string> = new Set(
  words(`command commands cmd shell script scripts`),
);

/**
 * Argument names (normalized) for where a tool saves its output: it writes files there
 * (`outputDir`, `save_path`, `download_path`).
 */
export const OUTPUT_ARGUMENTS: ReadonlySet<string> = new Set(
  words(`
    outputdir outputdirectory outputpath outputfile outputfilepath outputfolder savepath
    saveto savedir savefile downloadpath downloaddir downloaddirectory downloadfolder
  `),
);

/**
 * Names (normalized) of a lone object argument that wraps all of a tool's arguments
 * (`params`, `request`): its properties are the tool's own.
 */
export const WRAPPER_ARGUMENTS: ReadonlySet<string> = new Set(
  words(`params parameters request input inputs args arguments body payload`),
);

/** Argument names whose value may be code, when nothing else in the name says otherwise. */
export const CODE_ARGUMENTS: ReadonlySet<string> = new Set(
  words(`code js javascript python function expression source`),
);

/**
 * A description saying an argument is code to run, not an identifier ("JavaScript code to
 * evaluate", "the script to execute"). Compiled once.
 */
export const CODE_DESCRIPTION_PATTERN =
  /\b(?:run|runs|execute[sd]?|evaluat\w*|eval|script|snippet|javascript|typescript|python|expression|function body|program)\b/i;

/** Argument names that select which action a many-action tool performs. */
export const ACTION_ARGUMENTS: ReadonlySet<string> = new Set(
  words(`action actions operation operations op method mode verb command subcommand cmd`),
);

/** Boolean arguments that ask for a dry run (normalized: lower case, no `_` or `-`). */
export const DRY_RUN_ARGUMENTS: ReadonlySet<string> = new Set(
  words(`dryrun whatif simulate validateonly planonly checkonly`),
);

/** Boolean arguments that confirm or force a dangerous call (normalized). */
export const CONFIRM_ARGUMENTS: ReadonlySet<string> = new Set(
  words(`confirm confirmed confirmation force iamsure acknowledge acknowledged`),
);

/** Words of an argument's name that make it a URL. */
export const URL_ARGUMENT_WORDS: ReadonlySet<string> = new Set(
  words(`url urls href website webpage`),
);

/**
 * Words that make a URL argument an attribute the service stores or calls back, or a page
 * cursor, not an address the tool reaches (`notification_url`, `nextUrl`, `logoUrl`).
 */
export const ATTRIBUTE_URL_WORDS: ReadonlySet<string> = new Set(
  words(
    `notification callback webhook redirect next prev previous logo avatar icon image thumbnail`,
  ),
);

/** HTTP methods and how each one reads; see `inferFromHttpMethod`. */
export const HTTP_METHOD_KINDS: ReadonlyMap<string, VerbKind> = new Map<string, VerbKind>([
  ['get', 'read'],
  ['head', 'read'],
  ['options', 'read'],
  ['post', 'additive'],
  ['put', 'update'],
  ['patch', 'update'],
  ['delete', 'destructive'],
]);

/** SQL statements as action values (`select`, `insert`, …). */
export const SQL_STATEMENT_KINDS: ReadonlyMap<string, VerbKind> = new Map<string, VerbKind>([
  ['select', 'read'],
  ['show', 'read'],
  ['explain', 'read'],
  ['describe', 'read'],
  ['insert', 'additive'],
  ['update', 'update'],
  ['merge', 'update'],
  ['upsert', 'update'],
  ['alter', 'update'],
  ['create', 'additive'],
  ['delete', 'destructive'],
  ['drop', 'destructive'],
  ['truncate', 'destructive'],
  ['grant', 'toggle'],
  ['revoke', 'destructive'],
]);

/**
 * Query languages that make a `query` argument a statement to run rather than search
 * words, when its description names them ("SQL query to run"). Compiled once.
 */
export const QUERY_LANGUAGE_PATTERN = /\b(?:sql|cypher|sparql|statements?)\b/i;

/**
 * An SQL statement written out in a description (`SELECT mean(x) FROM cpu`): the tool runs
 * the caller's SQL. Case-sensitive on purpose: prose says "select", SQL says SELECT.
 * Compiled once.
 */
export const SQL_STATEMENT_PATTERN =
  /\b(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b[^.;]{0,200}?\b(?:FROM|INTO|SET)\b|\bSQL (?:query|queries|statements?)\b/;

/** A description of an argument that takes an HTTP method. Compiled once. */
export const HTTP_METHOD_PATTERN = /\b(?:HTTP|Http|http)\b|\b(?:GET|POST|PUT|PATCH|DELETE)\b/;

/** Word roles in a description, as bits of `WordInfo.flags`. */
export const WORD_NEGATION = 1;
export const WORD_CONJUNCTION = 2;
export const WORD_COMPLEXITY = 4;
export const WORD_OPEN_WORLD = 8;
export const WORD_LOCAL = 16;
export const WORD_DESTRUCTIVE_STATEMENT = 32;
export const WORD_UNDO = 64;
/** A modifying verb form or noun: negated, it says the tool changes nothing. */
export const WORD_MODIFY = 128;
/**
 * A word of a phrase: `read only`, `readonly`, `only <verb>`, `file system`, `knowledge
 * graph`, `no side effects`.
 */
export const WORD_PHRASE = 256;

/** Everything the lexicon knows about one word of a description. */
export interface WordInfo {
  readonly flags: number;
  readonly verb: VerbMatch | undefined;
}

function buildWordIndex(): ReadonlyMap<string, WordInfo> {
  const flags = new Map<string, number>();
  const mark = (set: Iterable<string>, bit: number): void => {
    for (const word of set) flags.set(word, (flags.get(word) ?? 0) | bit);
  };
  mark(NEGATIONS, WORD_NEGATION);
  mark(CONJUNCTIONS, WORD_CONJUNCTION);
  mark(COMPLEXITY_WORDS, WORD_COMPLEXITY);
  mark(DESCRIPTION_OPEN_WORLD_WORDS, WORD_OPEN_WORLD);
  mark(LOCAL_WORDS, WORD_LOCAL);
  mark(DESTRUCTIVE_STATEMENT_WORDS, WORD_DESTRUCTIVE_STATEMENT);
  mark(UNDO_WORDS, WORD_UNDO);
  mark(MODIFY_NOUNS, WORD_MODIFY);
  mark(words('read readonly only file system side permanent knowledge graph'), WORD_PHRASE);
  for (const [word, match] of VERB_TABLE) {
    flags.set(
      word,
      (flags.get(word) ?? 0) | (MODIFY_LEMMAS.has(match.info.lemma) ? WORD_MODIFY : 0),
    );
  }
  const index = new Map<string, WordInfo>();
  for (const [word, bits] of flags) index.set(word, { flags: bits, verb: VERB_TABLE.get(word) });
  return index;
}

const WORD_INDEX = buildWordIndex();

/**
 * The same index as an open-addressing hash table keyed by `hashWord`, so a scanner can
 * probe it with a word's span and hash, without building the word as a string.
 */
interface HashedIndex {
  readonly mask: number;
  /** Per slot, 1 + the entry's index, or 0 when empty. */
  readonly slots: Int32Array;
  readonly hashes: Int32Array;
  readonly words: readonly string[];
  readonly infos: readonly WordInfo[];
}

function buildHashedIndex(): HashedIndex {
  const words = [...WORD_INDEX.keys()];
  const infos = words.map((word) => WORD_INDEX.get(word) as WordInfo);
  let size = 1;
  while (size < words.length * 4) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size);
  const hashes = new Int32Array(words.length);
  words.forEach((word, entry) => {
    const hash = hashWord(word);
    hashes[entry] = hash;
    let slot = hash & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = entry + 1;
  });
  return { mask, slots, hashes, words, infos };
}

const HASHED_INDEX = buildHashedIndex();
const INDEX_MASK = HASHED_INDEX.mask;
const INDEX_SLOTS = HASHED_INDEX.slots;
const INDEX_HASHES = HASHED_INDEX.hashes;
const INDEX_WORDS = HASHED_INDEX.words;
const INDEX_INFOS = HASHED_INDEX.infos;
const LONGEST_WORD = HASHED_INDEX.words.reduce(
  (longest, word) => Math.max(longest, word.length),
  0,
);

/**
 * One lookup for every role a description word can play: its flags and, for a verb form,
 * the verb. `undefined` for the many words the lexicon does not know (`the`, `of`, …).
 */
export function lookupWord(word: string): WordInfo | undefined {
  return WORD_INDEX.get(word);
}

/**
 * `lookupWord` for the word at `text[start, end)` with its `hashWord` hash, as
 * `scanWords` reports it; compares characters case-insensitively and builds no string.
 */
export function lookupSpan(
  text: string,
  start: number,
  end: number,
  hash: number,
): WordInfo | undefined {
  // Longer words cannot be in the index: no need to probe for them.
  if (end - start > LONGEST_WORD) return undefined;
  let slot = hash & INDEX_MASK;
  for (;;) {
    const entry = (INDEX_SLOTS[slot] as number) - 1;
    if (entry < 0) return undefined;
    if (
      INDEX_HASHES[entry] === hash &&
      spanEquals(text, start, end, INDEX_WORDS[entry] as string)
    ) {
      return INDEX_INFOS[entry];
    }
    slot = (slot + 1) & INDEX_MASK;
  }
}
