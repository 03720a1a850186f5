/**
 * Gathering evidence from what the name, schema and description say, sorted into strong
 * evidence (settles a hint by itself) and weak evidence (counts when nothing strong does).
 */
import type { DescriptionReading, DescriptionVerb } from './description-signals.js';
import { describeEffect, evidence, type Evidence } from './evidence.js';
import {
  OUTRIGHT_DESTRUCTIVE_VERBS,
  QUERY_RUNNING_VERBS,
  SCRIPT_ARGUMENTS,
  SQL_STATEMENT_PATTERN,
} from './lexicon.js';
import { describePosition, objectRule, type NameReading, type NameVerb } from './name-signals.js';
import type { ActionSignal, SchemaReading } from './schema-signals.js';

/** The evidence about one tool. */
export interface GatheredEvidence {
  /**
   * The name's verb and joined verbs, `force`, an action enum's worst value, code or
   * command arguments, an SQL statement in a query tool's description, a dry-run flag.
   */
  readonly strong: readonly Evidence[];
  /**
   * The description's opening verbs, a name verb that is more often a noun, code-like
   * arguments, preview and confirmation flags, destructive verbs mentioned in passing.
   */
  readonly weak: readonly Evidence[];
}

function nameVerbEvidence(verb: NameVerb, conjoined: boolean, detaches = false): Evidence {
  if (verb.rule === 'ephemeral-reset') {
    const text = `name words "${verb.word}" and "${verb.object ?? ''}" reset view state, not data`;
    return evidence('toggle', 'name', verb.word, 'ephemeral-reset', 'strong', text, true);
  }
  if (verb.rule === 'ends-session') {
    const text = `name words "${verb.word}" and "${verb.object ?? ''}" end a session and its state`;
    return evidence('destructive', 'name', verb.word, 'ends-session', 'strong', text, true);
  }
  if (verb.rule === 'context-switch') {
    const object = verb.object === undefined ? '' : ` and "${verb.object}"`;
    const text = `name words "${verb.word}"${object} only change which resource later calls use`;
    return evidence('read', 'name', verb.word, 'context-switch', 'strong', text, true);
  }
  if (verb.rule === 'feeds-process') {
    const text = `name words "${verb.word}" and "${verb.object ?? ''}" send input to a live process, which runs it`;
    return evidence('exec', 'name', verb.word, 'feeds-process', 'strong', text);
  }
  if (verb.rule === 'starts-job') {
    const text = `name words "${verb.word}" and "${verb.object ?? ''}" start a run of a defined job: an additive change`;
    return evidence('additive', 'name', verb.word, 'starts-job', 'strong', text, false);
  }
  if (verb.rule === 'lookup-object') {
    const text = `name words "${verb.word}" and "${verb.object ?? ''}" look up an identifier`;
    return evidence('read', 'name', verb.word, 'lookup-object', 'strong', text, true);
  }
  if (verb.rule === 'returns-guidance') {
    const about = verb.word === verb.object ? '' : ` about "${verb.word}"`;
    const text = `name ends in "${verb.object ?? ''}": it returns guidance${about} and changes nothing`;
    return evidence('read', 'name', verb.word, 'returns-guidance', 'strong', text, true);
  }
  if (verb.rule === 'read-object') {
    const text = `name words "${verb.word}" and "${verb.object ?? ''}" only read`;
    return evidence('read', 'name', verb.word, 'read-object', 'strong', text, true);
  }
  const role = conjoined
    ? 'joined name word'
    : `name word "${verb.word}" (${describePosition(verb)})`;
  const text = conjoined
    ? `${role} "${verb.word}" is ${describeEffect(verb.kind)}`
    : `${role} is ${describeEffect(verb.kind)}`;
  const rule = `${conjoined ? 'conjoined' : verb.kind}-verb`;
  // Clear: a verb in verb position that is not more often a noun (`delete` in
  // `delete_repo` or `compute_vm_delete`, not `trigger` in `trigger-long-running-operation`).
  const clear = verb.position !== 'fallback' && !verb.info.nounish;
  // A name verb that runs something (`invoke`, `execute`) is clearly not read-only, but only
  // code or SQL in an argument proves the tool could destroy.
  const destroys =
    clear &&
    verb.kind === 'destructive' &&
    OUTRIGHT_DESTRUCTIVE_VERBS.has(verb.info.lemma) &&
    !verb.detaches &&
    !detaches;
  return evidence(
    verb.kind,
    'name',
    verb.word,
    rule,
    'strong',
    text,
    verb.info.idempotent,
    clear,
    destroys,
  );
}

/**
 * True when the description says the name's `remove` takes something off another
 * ("Removes one or more droplets from a firewall"), a detachment.
 */
function removesFrom(verb: NameVerb, description: DescriptionReading): boolean {
  return (
    verb.info.lemma === 'remove' &&
    description.leadingFrom &&
    description.leading[0]?.info.lemma === 'remove'
  );
}

/**
 * True when an action argument's values describe data rather than the tool's action: the
 * name's clear verb says what the tool does, and the values are HTTP methods of a request
 * it stores (`createCollectionRequest`), or the verb reads and the values filter what it
 * reads (`list_todos` with `action: merge_train_removed`).
 */
function isData(action: ActionSignal, verb: NameVerb | undefined): boolean {
  if (verb === undefined || verb.kind === 'vague' || verb.position === 'fallback') return false;
  if (verb.info.nounish) return false;
  return action.http || (verb.kind === 'read' && verb.rule === 'verb');
}

/**
 * True when a script argument is content the tool stores, not code it runs: the name's
 * clear verb creates or updates (Postman's `createPackage`, Cloudflare's `worker_put`).
 */
function storesScript(argument: string, verb: NameVerb | undefined): boolean {
  if (verb === undefined || verb.position === 'fallback' || verb.info.nounish) return false;
  if (verb.kind !== 'additive' && verb.kind !== 'update') return false;
  return SCRIPT_ARGUMENTS.has(argument.toLowerCase());
}

/** Evidence that settles a hint by itself. */
function strongEvidence(
  name: NameReading,
  schema: SchemaReading,
  description: DescriptionReading,
  text: string,
): Evidence[] {
  const found: Evidence[] = [];
  const primary = name.primary;
  if (primary !== undefined && primary.kind !== 'vague' && primary.firm) {
    found.push(nameVerbEvidence(primary, false, removesFrom(primary, description)));
  }
  for (const verb of name.conjoined) {
    if (verb.kind !== 'vague') found.push(nameVerbEvidence(verb, true));
  }
  if (name.force) {
    const text = 'name word "force" overrides safeguards';
    found.push(evidence('destructive', 'name', 'force', 'force-modifier', 'strong', text));
  }
  const action = schema.action;
  if (action !== undefined && !isData(action, primary)) {
    const text =
      action.allRead && action.kind === 'read'
        ? `every value of argument "${action.argument}" is a read`
        : `argument "${action.argument}" allows "${action.value}", ${describeEffect(action.kind)}`;
    found.push(evidence(action.kind, 'schema', action.value, 'action-enum', 'strong', text));
  }
  if (schema.exec !== undefined && !storesScript(schema.exec.argument, primary)) {
    const { argument } = schema.exec;
    const text = `argument "${argument}" is run as code or a command: the tool could do anything`;
    found.push(
      evidence('exec', 'schema', argument, 'exec-argument', 'strong', text, undefined, true),
    );
  }
  const runner = name.primary === undefined || QUERY_RUNNING_VERBS.has(name.primary.info.lemma);
  // The pattern runs only for a tool that runs queries: most descriptions never need it.
  if (runner && schema.exec === undefined && SQL_STATEMENT_PATTERN.test(text)) {
    const text = 'description shows an SQL statement: the tool runs SQL, which could do anything';
    found.push(
      evidence('exec', 'description', 'SQL', 'sql-in-description', 'strong', text, undefined, true),
    );
  }
  if (name.httpRequest && schema.action === undefined && schema.exec === undefined) {
    const text = 'name says it makes HTTP requests: with any method, it could do anything';
    found.push(evidence('exec', 'name', 'request', 'http-request', 'strong', text));
  }
  if (schema.output !== undefined) {
    const { argument } = schema.output;
    const text = `argument "${argument}" says where output is saved: the tool writes files`;
    found.push(evidence('write', 'schema', argument, 'output-argument', 'strong', text));
  }
  if (schema.dryRun !== undefined) {
    const { argument } = schema.dryRun;
    const text = `argument "${argument}" offers a dry run, so the tool writes`;
    found.push(evidence('write', 'schema', argument, 'dry-run-flag', 'strong', text));
  }
  return found;
}

/**
 * Evidence from a verb the description opens with, read with its objects when they change
 * what it does ("Runs a standardization scan": a read; "Runs a test": adds a run).
 */
function descriptionVerbEvidence(verb: DescriptionVerb, objects: readonly string[]): Evidence {
  const { info, word } = verb;
  const read = objects.length === 0 ? undefined : objectRule(info, [info.lemma, ...objects], 0);
  if (read !== undefined && read.rule !== 'verb') {
    const object = read.object ?? '';
    const text = `description word "${word}" with its object "${object}" is ${describeEffect(read.kind)}`;
    const idempotent = read.kind === 'additive' ? false : info.idempotent;
    return evidence(read.kind, 'description', word, read.rule, 'weak', text, idempotent);
  }
  const text = `description word "${word}" is ${describeEffect(info.kind)}`;
  return evidence(
    info.kind,
    'description',
    word,
    `${info.kind}-verb`,
    'weak',
    text,
    info.idempotent,
  );
}

/** Evidence that counts only when no strong evidence settles the hint. */
function weakEvidence(
  name: NameReading,
  schema: SchemaReading,
  description: DescriptionReading,
): Evidence[] {
  const found: Evidence[] = [];
  description.leading.forEach((verb, i) => {
    if (verb.info.kind !== 'vague') {
      found.push(descriptionVerbEvidence(verb, i === 0 ? description.leadingObjects : []));
    }
  });
  // A name word that is more often a noun counts only when the description has no verb.
  const primary = name.primary;
  if (found.length === 0 && primary !== undefined && primary.kind !== 'vague' && !primary.firm) {
    const item = nameVerbEvidence(primary, false);
    found.push({ ...item, strength: 'weak' });
  }
  if (schema.code !== undefined && (name.primary === undefined || name.primary.kind === 'vague')) {
    const { argument } = schema.code;
    const text = `argument "${argument}" may be code to run`;
    found.push(evidence('exec', 'schema', argument, 'code-argument', 'weak', text));
  }
  if (schema.preview !== undefined) {
    const text = `argument "${schema.preview.argument}" previews a change, so the tool writes`;
    found.push(evidence('write', 'schema', schema.preview.argument, 'preview-flag', 'weak', text));
  }
  if (schema.confirm !== undefined) {
    const text = `argument "${schema.confirm.argument}" confirms or forces a dangerous call`;
    found.push(
      evidence('destructive', 'schema', schema.confirm.argument, 'confirm-flag', 'weak', text),
    );
  }
  if (description.destructiveMention !== undefined) {
    const word = description.destructiveMention;
    const text = `description word "${word}" is a destructive verb`;
    found.push(evidence('destructive', 'description', word, 'destructive-mention', 'weak', text));
  }
  return found;
}

/**
 * Gathers the strong and weak evidence of a tool's name, schema and description; `text`
 * is the description as written.
 */
export function gatherEvidence(
  name: NameReading,
  schema: SchemaReading,
  description: DescriptionReading,
  text: string,
): GatheredEvidence {
  return {
    strong: strongEvidence(name, schema, description, text),
    weak: weakEvidence(name, schema, description),
  };
}
