/**
 * Gathering evidence from what the name, schema and description say, sorted into strong
 * evidence (settles a hint by itself) and weak evidence (counts when nothing strong does).
 */
import type { DescriptionReading } from './description-signals.js';
import { describeEffect, evidence, type Evidence } from './evidence.js';
import { QUERY_RUNNING_VERBS, SQL_STATEMENT_PATTERN } from './lexicon.js';
import { describePosition, type NameReading, type NameVerb } from './name-signals.js';
import type { SchemaReading } from './schema-signals.js';

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

function nameVerbEvidence(verb: NameVerb, conjoined: boolean): Evidence {
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
  return evidence(verb.kind, 'name', verb.word, rule, 'strong', text, verb.info.idempotent, clear);
}

/** Evidence that settles a hint by itself. */
function strongEvidence(name: NameReading, schema: SchemaReading, text: string): Evidence[] {
  const found: Evidence[] = [];
  const primary = name.primary;
  if (primary !== undefined && primary.kind !== 'vague' && primary.firm) {
    found.push(nameVerbEvidence(primary, false));
  }
  for (const verb of name.conjoined) {
    if (verb.kind !== 'vague') found.push(nameVerbEvidence(verb, true));
  }
  if (name.force) {
    const text = 'name word "force" overrides safeguards';
    found.push(evidence('destructive', 'name', 'force', 'force-modifier', 'strong', text));
  }
  const action = schema.action;
  if (action !== undefined) {
    const text =
      action.allRead && action.kind === 'read'
        ? `every value of argument "${action.argument}" is a read`
        : `argument "${action.argument}" allows "${action.value}", ${describeEffect(action.kind)}`;
    found.push(evidence(action.kind, 'schema', action.value, 'action-enum', 'strong', text));
  }
  if (schema.exec !== undefined) {
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
  if (schema.dryRun !== undefined) {
    const { argument } = schema.dryRun;
    const text = `argument "${argument}" offers a dry run, so the tool writes`;
    found.push(evidence('write', 'schema', argument, 'dry-run-flag', 'strong', text));
  }
  return found;
}

/** Evidence that counts only when no strong evidence settles the hint. */
function weakEvidence(
  name: NameReading,
  schema: SchemaReading,
  description: DescriptionReading,
): Evidence[] {
  const found: Evidence[] = [];
  for (const verb of description.leading) {
    if (verb.info.kind === 'vague') continue;
    const text = `description word "${verb.word}" is ${describeEffect(verb.info.kind)}`;
    const rule = `${verb.info.kind}-verb`;
    found.push(
      evidence(verb.info.kind, 'description', verb.word, rule, 'weak', text, verb.info.idempotent),
    );
  }
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
    strong: strongEvidence(name, schema, text),
    weak: weakEvidence(name, schema, description),
  };
}
