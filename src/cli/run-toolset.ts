import { writeFile } from 'node:fs/promises';
import { HintgateError } from '../core/errors.js';
import type { Orphans } from '../gateway/toolsets/resolve.js';
import { describeMember } from '../gateway/toolsets/resolve.js';
import type { Store, ToolsetDocument } from '../store/store.js';
import { parseToolsetDocument } from '../store/store.js';
import type { Toolset, ToolsetMember } from '../store/types.js';
import { configuredDefaultOf, describeDefault } from './default-toolset.js';
import { readInput, writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import { withCatalog } from './run-catalog.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';
import { formatRef, parseToolArgument, say } from './store-commands.js';
import type { CheckTarget } from './tool-check.js';
import { checkedWrite, memberTargets, reportCheck } from './tool-check.js';

/** Options of the `toolset` subcommands. */
export interface ToolsetOptions extends StoreCommandOptions {
  readonly json?: boolean;
}

/** `hintgate toolset list`. */
export async function runToolsetList(options: ToolsetOptions): Promise<void> {
  const { list, chosen } = await withStore(options, async (store) => ({
    list: await store.listToolsets(),
    chosen: await store.getDefaultToolset(),
  }));
  if (options.json === true) return writeOut(formatJson(list));
  if (list.length === 0) return writeOut('(no toolsets)\n');
  const configured = await configuredDefaultOf(options);
  return writeOut(
    `${formatTable(list, [
      { heading: 'toolset', cell: (row) => row.name },
      { heading: 'members', cell: (row) => String(row.memberCount), right: true },
      { heading: 'notes', cell: (row) => String(row.noteCount), right: true },
      { heading: 'overrides', cell: (row) => String(row.overrideCount), right: true },
      { heading: 'rules', cell: (row) => String(row.ruleCount), right: true },
      { heading: 'description', cell: (row) => oneLine(row.description) },
    ])}\n\n${describeDefault(chosen, configured)}\n`,
  );
}

/** Options of `hintgate toolset show`. */
export interface ToolsetShowOptions extends ToolsetOptions {
  /** Connect to the configured servers and report what does not resolve (orphans). */
  readonly check?: boolean;
}

/** `hintgate toolset show <name>`. */
export async function runToolsetShow(name: string, options: ToolsetShowOptions): Promise<void> {
  const toolset = await withStore(options, (store) => requireToolset(store, name));
  const orphans =
    options.check === true
      ? await withCatalog(options, (catalog, resolution) => resolution(catalog, toolset))
      : undefined;
  if (options.json === true) {
    return writeOut(formatJson(orphans === undefined ? toolset : { ...toolset, orphans }));
  }
  const lines = [
    `toolset ${toolset.name} (revision ${toolset.revision}, updated ${toolset.updatedAt})`,
  ];
  if (toolset.description !== '') lines.push(oneLine(toolset.description));
  lines.push('', 'members:');
  for (const member of toolset.members) lines.push(`  ${describeMember(member)}`);
  if (toolset.members.length === 0) lines.push('  (none)');
  lines.push('', 'notes:');
  for (const note of toolset.notes) {
    lines.push(`  ${formatRef(note.tool)}  ${note.name}: ${oneLine(note.note)}`);
  }
  if (toolset.notes.length === 0) lines.push('  (none)');
  lines.push('', 'overrides:');
  for (const override of toolset.overrides) {
    lines.push(`  ${formatRef(override.tool)}  ${JSON.stringify(override.annotations)}`);
  }
  if (toolset.overrides.length === 0) lines.push('  (none)');
  lines.push('', 'dynamic-annotation rules:');
  toolset.rules.forEach((rule, index) => {
    const label =
      rule.name === undefined ? `rule ${index + 1}` : `rule ${index + 1} ("${rule.name}")`;
    lines.push(`  ${label}  ${JSON.stringify({ ...rule, name: undefined })}`);
  });
  if (toolset.rules.length === 0) lines.push('  (none)');
  if (orphans !== undefined) lines.push('', ...orphanLines(orphans));
  return writeOut(`${lines.join('\n')}\n`);
}

/** Lines reporting orphans (kept, but resolving to no tool now). */
export function orphanLines(orphans: Orphans): string[] {
  const total = orphans.members.length + orphans.notes.length + orphans.overrides.length;
  if (total === 0) return ['orphans: none; every member, note and override resolves'];
  const lines = [`orphans (${total}; kept, and back in use when their tool resolves again):`];
  for (const orphan of orphans.members) {
    lines.push(`  member ${describeMember(orphan.member)}: ${orphan.reason}`);
  }
  for (const orphan of orphans.notes) {
    lines.push(`  note ${formatRef(orphan.tool)} ${orphan.name}: ${orphan.reason}`);
  }
  for (const orphan of orphans.overrides) {
    lines.push(
      `  override (${orphan.scope}) ${formatRef(orphan.tool)} ${orphan.fields.join(', ')}: ${orphan.reason}`,
    );
  }
  return lines;
}

/** Options of the commands that name members: `--tool` and `--server`, repeatable. */
export interface ToolsetMembersOptions extends ToolsetOptions {
  /** `--tool server.tool` or a refId, repeatable. */
  readonly tool?: readonly string[];
  /** `--server name`, repeatable. */
  readonly server?: readonly string[];
  /** Refuse a tool or server that does not exist, or that cannot be checked. */
  readonly strict?: boolean;
}

/** Options of `hintgate toolset create`. */
export interface ToolsetCreateOptions extends ToolsetMembersOptions {
  readonly description?: string;
}

/** The members `--tool` and `--server` name, in that order. */
export function membersFrom(options: ToolsetMembersOptions): ToolsetMember[] {
  return [
    ...(options.tool ?? []).map((value): ToolsetMember => {
      const ref = parseToolArgument(value);
      return ref.refId === undefined
        ? { kind: 'tool', namespacedName: ref.namespacedName ?? value }
        : { kind: 'ref', refId: ref.refId };
    }),
    ...(options.server ?? []).map((server): ToolsetMember => ({ kind: 'server', server })),
  ];
}

/**
 * `hintgate toolset create <name>`: members are checked against a running gateway's catalog
 * first (a warning for one that does not exist; `--strict` refuses).
 */
export async function runToolsetCreate(name: string, options: ToolsetCreateOptions): Promise<void> {
  const members = membersFrom(options);
  const outcome = await withStore(options, (store) =>
    checkedWrite(store, memberTargets(members), options.strict === true, () =>
      store.createToolset({
        name,
        ...(options.description === undefined ? {} : { description: options.description }),
        members,
      }),
    ),
  );
  const toolset = outcome.value;
  if (options.json === true) await writeOut(formatJson(toolset));
  else say(`created toolset "${toolset.name}" with ${toolset.members.length} member(s)`);
  reportCheck(outcome, say);
}

/** `hintgate toolset add <name>`: appends members (checked like `create`'s). */
export async function runToolsetAdd(name: string, options: ToolsetMembersOptions): Promise<void> {
  const members = requireMembers(options);
  const outcome = await withStore(options, async (store) => {
    await requireToolset(store, name);
    return checkedWrite(store, memberTargets(members), options.strict === true, () =>
      store.addMembers(name, members),
    );
  });
  if (options.json === true) await writeOut(formatJson(outcome.value));
  else say(`toolset "${name}" has ${outcome.value.members.length} member(s)`);
  reportCheck(outcome, say);
}

/** `hintgate toolset remove <name>`: removes members (those not in the toolset are ignored). */
export async function runToolsetRemove(
  name: string,
  options: ToolsetMembersOptions,
): Promise<void> {
  const members = requireMembers(options);
  const toolset = await withStore(options, async (store) => {
    const before = await requireToolset(store, name);
    const after = await store.removeMembers(name, members);
    return { after, removed: before.members.length - after.members.length };
  });
  if (options.json === true) return writeOut(formatJson(toolset.after));
  say(
    `removed ${toolset.removed} member(s) of "${name}"; ${toolset.after.members.length} left${toolset.removed < members.length ? ' (the others were not members)' : ''}`,
  );
}

function requireMembers(options: ToolsetMembersOptions): ToolsetMember[] {
  const members = membersFrom(options);
  if (members.length === 0) {
    throw new HintgateError(
      'INPUT_INVALID',
      'name members with --tool <server.tool> or --server <name>',
    );
  }
  return members;
}

/** `hintgate toolset delete <name>`. */
export async function runToolsetDelete(name: string, options: ToolsetOptions): Promise<void> {
  const wasDefault = await withStore(options, async (store) => {
    const chosen = await store.getDefaultToolset();
    await store.deleteToolset(name);
    return chosen?.kind === 'toolset' && chosen.name === name;
  });
  say(`deleted toolset "${name}" with its notes and overrides`);
  if (wasDefault) {
    say(
      'it was the default toolset: sessions that have not chosen one now see every tool (hintgate toolset equip <name> chooses another)',
    );
  }
}

/** Options of `hintgate toolset export`. */
export interface ToolsetExportOptions extends ToolsetOptions {
  readonly output?: string;
}

/** `hintgate toolset export <name>`: the toolset as a JSON document (stdout or a file). */
export async function runToolsetExport(name: string, options: ToolsetExportOptions): Promise<void> {
  const document = await withStore(options, (store) => store.exportToolset(name));
  const text = formatJson(document);
  if (options.output === undefined || options.output === '-') return writeOut(text);
  await writeFile(options.output, text);
  say(`exported toolset "${name}" to ${options.output}`);
}

/** Options of `hintgate toolset import`. */
export interface ToolsetImportOptions extends ToolsetOptions {
  readonly name?: string;
  readonly replace?: boolean;
  readonly strict?: boolean;
}

/** `hintgate toolset import [file]`: a document written by export (or by hand). */
export async function runToolsetImport(
  file: string | undefined,
  options: ToolsetImportOptions,
): Promise<void> {
  const text = await readInput(file);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new HintgateError(
      'INPUT_INVALID',
      `${file ?? 'standard input'}: not JSON: ${(error as Error).message}`,
    );
  }
  // Checked as written: what the document's members, notes and overrides refer to.
  const outcome = await withStore(options, (store) =>
    checkedWrite(store, documentTargets(document), options.strict === true, () =>
      store.importToolset(document, {
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.replace === true ? { replace: true } : {}),
      }),
    ),
  );
  const result = outcome.value;
  const { toolset } = result;
  if (options.json === true) await writeOut(formatJson(result));
  else
    say(
      `${result.replaced ? 'replaced' : 'imported'} toolset "${toolset.name}": ${toolset.members.length} member(s), ${toolset.notes.length} note(s), ${toolset.overrides.length} override(s), ${toolset.rules.length} rule(s)`,
    );
  reportCheck(outcome, say);
}

/** What a toolset document refers to, each once; nothing when it is not a valid document. */
function documentTargets(document: unknown): CheckTarget[] {
  let parsed: ToolsetDocument;
  try {
    parsed = parseToolsetDocument(document);
  } catch {
    return []; // importToolset says what is wrong with it
  }
  const seen = new Set<string>();
  const targets: CheckTarget[] = [];
  const add = (target: CheckTarget): void => {
    const key = JSON.stringify(target);
    if (seen.has(key)) return;
    seen.add(key);
    targets.push(target);
  };
  for (const target of memberTargets(parsed.members)) add(target);
  for (const item of [...(parsed.notes ?? []), ...(parsed.overrides ?? [])]) {
    add({ kind: 'tool', ref: item.tool });
  }
  return targets;
}

/** The toolset, or NOT_FOUND naming the ones there are. */
export async function requireToolset(store: Store, name: string): Promise<Toolset> {
  const toolset = await store.getToolset(name);
  if (toolset !== undefined) return toolset;
  const names = (await store.listToolsets()).map((summary) => summary.name);
  throw new HintgateError(
    'NOT_FOUND',
    `toolset "${name}" does not exist${names.length === 0 ? ' (there are no toolsets)' : `; toolsets: ${names.join(', ')}`}`,
    { toolset: name },
  );
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
}
