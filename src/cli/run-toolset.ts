import { writeFile } from 'node:fs/promises';
import { HintgateError } from '../core/errors.js';
import type { Orphans } from '../gateway/toolsets/resolve.js';
import { describeMember } from '../gateway/toolsets/resolve.js';
import type { Store } from '../store/store.js';
import type { Toolset, ToolsetMember } from '../store/types.js';
import { readInput, writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import { withCatalog } from './run-catalog.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';
import { formatRef, parseToolArgument, say } from './store-commands.js';

/** Options of the `toolset` subcommands. */
export interface ToolsetOptions extends StoreCommandOptions {
  readonly json?: boolean;
}

/** `hintgate toolset list`. */
export async function runToolsetList(options: ToolsetOptions): Promise<void> {
  const list = await withStore(options, (store) => store.listToolsets());
  if (options.json === true) return writeOut(formatJson(list));
  if (list.length === 0) return writeOut('(no toolsets)\n');
  return writeOut(
    `${formatTable(list, [
      { heading: 'toolset', cell: (row) => row.name },
      { heading: 'members', cell: (row) => String(row.memberCount), right: true },
      { heading: 'notes', cell: (row) => String(row.noteCount), right: true },
      { heading: 'overrides', cell: (row) => String(row.overrideCount), right: true },
      { heading: 'rules', cell: (row) => String(row.ruleCount), right: true },
      { heading: 'description', cell: (row) => oneLine(row.description) },
    ])}\n`,
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

/** Options of `hintgate toolset create`. */
export interface ToolsetCreateOptions extends ToolsetOptions {
  readonly description?: string;
  /** `--tool server.tool` or a refId, repeatable. */
  readonly tool?: readonly string[];
  /** `--server name`, repeatable. */
  readonly server?: readonly string[];
}

/** `hintgate toolset create <name>`. */
export async function runToolsetCreate(name: string, options: ToolsetCreateOptions): Promise<void> {
  const members: ToolsetMember[] = [
    ...(options.tool ?? []).map((value): ToolsetMember => {
      const ref = parseToolArgument(value);
      return ref.refId === undefined
        ? { kind: 'tool', namespacedName: ref.namespacedName ?? value }
        : { kind: 'ref', refId: ref.refId };
    }),
    ...(options.server ?? []).map((server): ToolsetMember => ({ kind: 'server', server })),
  ];
  const toolset = await withStore(options, (store) =>
    store.createToolset({
      name,
      ...(options.description === undefined ? {} : { description: options.description }),
      members,
    }),
  );
  if (options.json === true) return writeOut(formatJson(toolset));
  say(`created toolset "${toolset.name}" with ${toolset.members.length} member(s)`);
}

/** `hintgate toolset delete <name>`. */
export async function runToolsetDelete(name: string, options: ToolsetOptions): Promise<void> {
  await withStore(options, (store) => store.deleteToolset(name));
  say(`deleted toolset "${name}" with its notes and overrides`);
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
  const result = await withStore(options, (store) =>
    store.importToolset(document, {
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.replace === true ? { replace: true } : {}),
    }),
  );
  if (options.json === true) return writeOut(formatJson(result));
  const { toolset } = result;
  say(
    `${result.replaced ? 'replaced' : 'imported'} toolset "${toolset.name}": ${toolset.members.length} member(s), ${toolset.notes.length} note(s), ${toolset.overrides.length} override(s), ${toolset.rules.length} rule(s)`,
  );
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
