/**
 * `inferAnnotations`: MCP hints for a tool from its name, description and input schema,
 * each with the reason that set it.
 */
import type { Complexity, ToolAnnotations } from '../annotations/types.js';
import { readDescription, type DescriptionReading } from './description-signals.js';
import {
  isDestructiveEffect,
  isGentleEffect,
  reasonFor,
  toReason,
  worstOf,
  type Evidence,
} from './evidence.js';
import { gatherEvidence } from './gather.js';
import {
  HYPOTHETICAL_WORDS,
  LOCAL_NAME_WORDS,
  OPEN_WORLD_WORDS,
  REACHING_NAME_WORDS,
  TRANSFER_WORDS,
  type VerbKind,
} from './lexicon.js';
import { readName, type NameVerb } from './name-signals.js';
import { readSchema, type SchemaReading } from './schema-signals.js';
import { titleFromParts } from './title.js';
import { splitNameParts } from './tokenize.js';
import type { InferenceReason, InferenceResult, ToolDefinitionInput } from './types.js';

function statement(rule: string, phrase: string, meaning: string): InferenceReason {
  return {
    part: 'description',
    word: phrase,
    rule,
    strength: 'strong',
    text: `description says "${phrase}": ${meaning}`,
  };
}

/**
 * The weak evidence to decide on: a destructive verb mentioned somewhere in the
 * description counts only when the description does not open with the tool's action.
 */
function primaryWeak(weak: readonly Evidence[]): readonly Evidence[] {
  const opening = weak.filter((item) => item.rule !== 'destructive-mention');
  return opening.length > 0 ? opening : weak;
}

interface Decision {
  readonly value: boolean;
  readonly reason: InferenceReason;
}

function decideReadOnly(
  strong: readonly Evidence[],
  weak: readonly Evidence[],
  description: DescriptionReading,
  hypothetical: boolean,
): Decision | undefined {
  const writes = strong.filter((item) => item.effect !== 'read');
  // A statement in the description outweighs an argument that merely could run anything,
  // and a verb the name marks as hypothetical (`delete_preview`).
  const firmWrites = hypothetical
    ? []
    : writes.filter((item) => item.effect !== 'exec' && item.effect !== 'interact');
  const said = description.readOnlyStatement;
  // A negation is scoped ("without changing the alert rules"): a destructive verb elsewhere
  // in the description outweighs it; an explicit "read-only" is not outweighed.
  const contradicted =
    said?.rule === 'negated-write' && weak.some((item) => item.rule === 'destructive-mention');
  // Of a statement that the tool changes nothing and one that it destroys, the first is
  // about the tool; the later one is about something it mentions ("a read-only SELECT …
  // rejects destructive keywords").
  const destroys = description.destructiveStatement;
  const destroysFirst =
    destroys !== undefined && (said === undefined || description.destructiveStatementAt < said.at);
  if (said !== undefined && !contradicted && firmWrites.length === 0 && !destroysFirst) {
    return { value: true, reason: statement(said.rule, said.phrase, 'it changes nothing') };
  }
  const worst = worstOf(writes);
  if (worst !== undefined) return { value: false, reason: reasonFor(worst, 'readOnlyHint') };
  const read = strong.find((item) => item.effect === 'read');
  if (destroysFirst) {
    // Safety first: a description saying the call destroys outweighs a harmless-looking
    // name word, and the reason says the evidence disagreed.
    const meaning =
      read === undefined
        ? 'it destroys'
        : `it destroys, which outweighs ${read.text} (conservative: evidence disagrees)`;
    return { value: false, reason: statement('destructive-statement', destroys, meaning) };
  }
  if (read !== undefined) return { value: true, reason: toReason(read) };
  const pool = primaryWeak(weak);
  const weakWorst = worstOf(pool.filter((item) => item.effect !== 'read'));
  if (weakWorst !== undefined) return { value: false, reason: toReason(weakWorst) };
  const weakRead = pool.find((item) => item.effect === 'read');
  return weakRead === undefined ? undefined : { value: true, reason: toReason(weakRead) };
}

function decideDestructive(
  strong: readonly Evidence[],
  weak: readonly Evidence[],
  description: DescriptionReading,
): Decision | undefined {
  const worst = worstOf(strong.filter((item) => isDestructiveEffect(item.effect)));
  if (worst !== undefined) return { value: true, reason: reasonFor(worst, 'destructiveHint') };
  if (description.destructiveStatement !== undefined) {
    const phrase = description.destructiveStatement;
    return { value: true, reason: statement('destructive-statement', phrase, 'it destroys') };
  }
  // A confirmation or force flag outweighs a gentle verb: `create_file(force)` overwrites.
  const flag = weak.find((item) => item.rule === 'confirm-flag');
  if (flag !== undefined) return { value: true, reason: toReason(flag) };
  const gentle = strong.find((item) => isGentleEffect(item.effect));
  if (gentle !== undefined) return { value: false, reason: toReason(gentle) };
  if (description.notDestructiveStatement !== undefined) {
    const phrase = description.notDestructiveStatement;
    return {
      value: false,
      reason: statement('negated-destructive', phrase, 'it destroys nothing'),
    };
  }
  const pool = primaryWeak(weak);
  const weakWorst = worstOf(pool.filter((item) => isDestructiveEffect(item.effect)));
  if (weakWorst !== undefined) return { value: true, reason: toReason(weakWorst) };
  const weakGentle = pool.find((item) => isGentleEffect(item.effect));
  return weakGentle === undefined ? undefined : { value: false, reason: toReason(weakGentle) };
}

function decideIdempotent(
  strong: readonly Evidence[],
  weak: readonly Evidence[],
): Decision | undefined {
  const writes = strong.some((item) => item.effect !== 'read') ? strong : weak;
  const relevant = writes.filter((item) => item.effect !== 'read');
  const additive = relevant.find((item) => item.idempotent === false);
  if (additive !== undefined) return { value: false, reason: toReason(additive) };
  const worst = worstOf(relevant);
  if (worst === undefined || relevant.some((item) => item.idempotent !== true)) return undefined;
  return { value: true, reason: toReason(worst) };
}

/**
 * Open world: true only on real evidence that the tool reaches the internet or an external
 * system of unbounded content: a URL argument the tool reaches (not one it stores, as a
 * create or update does, nor a callback, cursor or logo), a shell, a name about the web,
 * scraping or crawling, or sending e-mail or text messages, or a description about the
 * internet or websites. Local words say false (weakly). Without evidence either way the
 * hint stays unset, so MCP's default holds: authors mark whole servers open or closed by
 * habit (a SaaS server's own API is open to some, closed to others), and a guess would be
 * weak.
 */
function decideOpenWorld(
  nameTokens: readonly string[],
  verb: NameVerb | undefined,
  schema: SchemaReading,
  description: DescriptionReading,
): Decision | undefined {
  if (schema.url !== undefined && (verb === undefined || !STORING_KINDS.has(verb.kind))) {
    const { argument } = schema.url;
    const text = `argument "${argument}" takes a URL`;
    return {
      value: true,
      reason: { part: 'schema', word: argument, rule: 'url-argument', strength: 'strong', text },
    };
  }
  if (schema.shell !== undefined) {
    const { argument } = schema.shell;
    const text = `argument "${argument}" is run by a shell, which can reach anywhere`;
    return {
      value: true,
      reason: { part: 'schema', word: argument, rule: 'shell-argument', strength: 'weak', text },
    };
  }
  const webName = webNameWord(nameTokens, verb);
  if (webName !== undefined) {
    const text = `name word "${webName}" points to the open web`;
    return {
      value: true,
      reason: { part: 'name', word: webName, rule: 'web-word', strength: 'strong', text },
    };
  }
  const reaching = nameTokens.find((token) => REACHING_NAME_WORDS.has(token));
  if (reaching !== undefined) {
    const text = `name word "${reaching}" reaches beyond the service: the web or a mailbox`;
    return {
      value: true,
      reason: { part: 'name', word: reaching, rule: 'reaching-word', strength: 'strong', text },
    };
  }
  const web = description.openWorldWord;
  if (web !== undefined) {
    const text = `description word "${web}" points to the open web`;
    return {
      value: true,
      reason: { part: 'description', word: web, rule: 'web-word', strength: 'weak', text },
    };
  }
  const localName = nameTokens.find((token) => LOCAL_NAME_WORDS.has(token));
  const local = localName ?? description.localWord;
  if (local !== undefined && !transfers(nameTokens, description)) {
    const part = localName === undefined ? 'description' : 'name';
    const text = `${part} word "${local}" points to a closed, local world`;
    return {
      value: false,
      reason: { part, word: local, rule: 'local-word', strength: 'weak', text },
    };
  }
  return undefined;
}

/**
 * True when the tool moves data between the machine and elsewhere (`bb_clone`: "Clone a
 * repository to your local filesystem"): a local word then names one end of the move.
 */
function transfers(nameTokens: readonly string[], description: DescriptionReading): boolean {
  const opening = description.leading[0]?.info.lemma;
  return (
    nameTokens.some((token) => TRANSFER_WORDS.has(token)) ||
    (opening !== undefined && TRANSFER_WORDS.has(opening))
  );
}

/**
 * The first name word pointing to the open web, unless it follows a verb that stores what
 * it names (`zephyr_create_test_case_web_link` stores a link; `browser_file_upload` still
 * drives a browser).
 */
function webNameWord(
  nameTokens: readonly string[],
  verb: NameVerb | undefined,
): string | undefined {
  const storing = verb !== undefined && STORED_OBJECT_KINDS.has(verb.kind) ? verb.index : -1;
  for (let i = 0; i < nameTokens.length; i++) {
    const token = nameTokens[i] as string;
    if (OPEN_WORLD_WORDS.has(token) && (storing < 0 || i < storing)) return token;
  }
  return undefined;
}

/** Kinds of verbs whose object is a thing they store: a web word after one is a noun. */
const STORED_OBJECT_KINDS: ReadonlySet<VerbKind> = new Set<VerbKind>(['additive', 'update']);

/** Kinds of verbs that store a URL they are given rather than reach it (`createWebhook`). */
const STORING_KINDS: ReadonlySet<VerbKind> = new Set<VerbKind>([
  'additive',
  'update',
  'toggle',
  'destructive',
]);

function decideComplexity(
  schema: SchemaReading,
  description: DescriptionReading,
  descriptionLength: number,
): { value: Complexity; reason: InferenceReason } {
  const actions = schema.action !== undefined && schema.action.count > 3 ? 2 : 0;
  const length = descriptionLength > 1200 ? 2 : descriptionLength > 400 ? 1 : 0;
  const score =
    schema.properties +
    2 * schema.nested +
    (schema.required > 4 ? 1 : 0) +
    Math.min(description.complexityWords, 3) +
    actions +
    length;
  const value: Complexity = score <= 3 ? 'simple' : score >= 10 ? 'complex' : 'medium';
  const text = `${schema.properties} arguments, ${schema.nested} nested objects, score ${score}`;
  return {
    value,
    reason: { part: 'schema', word: String(score), rule: 'schema-size', strength: 'weak', text },
  };
}

/**
 * Infers MCP annotations for a tool definition. A hint is set only where the name, the
 * description or the input schema gives evidence for it; with none it stays unset (no
 * evidence is not `false`). The name's verb, joined verbs, an action enum's worst value,
 * code/command arguments and dry-run flags are strong evidence; the description's
 * opening verbs and weaker signals count only when nothing strong settles a hint, except
 * explicit statements ("read-only", "does not modify", "cannot be undone"). Every field
 * set has a reason. Pure and deterministic.
 *
 * @example
 * inferAnnotations({ name: 'delete_user_account' }).annotations
 * // { title: 'Delete User Account', readOnlyHint: false, destructiveHint: true,
 * //   idempotentHint: true, complexity: 'simple', requiresConfirmation: true }
 */
export function inferAnnotations(tool: ToolDefinitionInput): InferenceResult {
  const nameParts = splitNameParts(tool.name);
  const nameTokens = nameParts.map((part) => part.toLowerCase());
  const name = readName(nameTokens);
  const text = tool.description ?? '';
  const description = readDescription(text);
  const schema = readSchema(tool.inputSchema, nameTokens);
  const { strong, weak } = gatherEvidence(name, schema, description, text);

  const annotations: ToolAnnotations = {};
  const reasons: Record<string, InferenceReason> = {};
  const title = titleFromParts(nameParts, nameTokens);
  if (title !== undefined) {
    annotations.title = title;
    reasons['title'] = {
      part: 'name',
      word: tool.name,
      rule: 'name-humanized',
      strength: 'weak',
      text: `title humanized from the name "${tool.name}"`,
    };
  }
  const hypothetical = nameTokens.some((token) => HYPOTHETICAL_WORDS.has(token));
  const readOnly = decideReadOnly(strong, weak, description, hypothetical);
  if (readOnly !== undefined) {
    annotations.readOnlyHint = readOnly.value;
    reasons['readOnlyHint'] = readOnly.reason;
  }
  if (readOnly?.value === true) {
    const implied = toReason(
      readOnly.reason,
      'implied-by-read-only',
      `read-only: ${readOnly.reason.text}`,
    );
    annotations.destructiveHint = false;
    annotations.idempotentHint = true;
    reasons['destructiveHint'] = implied;
    reasons['idempotentHint'] = implied;
  } else {
    const destructive = decideDestructive(strong, weak, description);
    if (destructive !== undefined) {
      annotations.destructiveHint = destructive.value;
      reasons['destructiveHint'] = destructive.reason;
    }
    const idempotent = decideIdempotent(strong, weak);
    if (idempotent !== undefined) {
      annotations.idempotentHint = idempotent.value;
      reasons['idempotentHint'] = idempotent.reason;
    }
  }
  const openWorld = decideOpenWorld(nameTokens, name.primary, schema, description);
  if (openWorld !== undefined) {
    annotations.openWorldHint = openWorld.value;
    reasons['openWorldHint'] = openWorld.reason;
  }
  const complexity = decideComplexity(schema, description, text.length);
  annotations.complexity = complexity.value;
  reasons['complexity'] = complexity.reason;
  const destructiveReason = reasons['destructiveHint'];
  if (annotations.destructiveHint === true && destructiveReason !== undefined) {
    annotations.requiresConfirmation = true;
    reasons['requiresConfirmation'] = toReason(
      destructiveReason,
      'destructive',
      `confirm before calling: ${destructiveReason.text}`,
    );
  }
  return { annotations, reasons };
}
