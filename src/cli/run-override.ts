import type { ToolAnnotations } from '../core/annotations/types.js';
import { EXTENSION_FIELDS, MCP_ANNOTATION_FIELDS } from '../core/annotations/types.js';
import { HintgateError } from '../core/errors.js';
import type { AnnotationOverride } from '../store/types.js';
import { writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';
import { formatRef, parseToolArgument, say } from './store-commands.js';

/** Options of the `override` subcommands. */
export interface OverrideOptions extends StoreCommandOptions {
  readonly json?: boolean;
  /** Inside this toolset; global when absent. */
  readonly toolset?: string;
}

const FIELDS = new Set<string>([...MCP_ANNOTATION_FIELDS, ...EXTENSION_FIELDS]);
const NUMBER_FIELDS = new Set(['estimatedDuration', 'rateLimitHint', 'costHint']);
const BOOLEAN_FIELDS = new Set([
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
  'requiresConfirmation',
  'auditRequired',
]);

/**
 * `field=value` pairs as annotation fields: booleans (`true`/`false`), numbers for the
 * numeric extensions, `tags=a,b` as a list, anything else as text. Unknown fields and
 * values of the wrong kind are INPUT_INVALID naming them (the store checks the rest).
 */
export function parseAssignments(assignments: readonly string[]): ToolAnnotations {
  if (assignments.length === 0) {
    throw new HintgateError(
      'INPUT_INVALID',
      'give at least one field=value (e.g. readOnlyHint=true destructiveHint=false)',
    );
  }
  const result: Record<string, unknown> = {};
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=');
    const field = equals < 0 ? assignment : assignment.slice(0, equals);
    const text = equals < 0 ? '' : assignment.slice(equals + 1);
    if (equals < 0 || !FIELDS.has(field)) {
      throw new HintgateError(
        'INPUT_INVALID',
        `"${assignment}": expected field=value with a field among ${[...FIELDS].join(', ')}`,
      );
    }
    result[field] = parseValue(field, text);
  }
  return result;
}

function parseValue(field: string, text: string): unknown {
  if (BOOLEAN_FIELDS.has(field)) {
    if (text === 'true') return true;
    if (text === 'false') return false;
    throw new HintgateError('INPUT_INVALID', `${field}: expected true or false, got "${text}"`);
  }
  if (NUMBER_FIELDS.has(field)) {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) {
      throw new HintgateError('INPUT_INVALID', `${field}: expected a number, got "${text}"`);
    }
    return value;
  }
  if (field === 'tags')
    return text
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== '');
  return text;
}

function scopeOf(options: OverrideOptions): { toolset?: string } {
  return options.toolset === undefined ? {} : { toolset: options.toolset };
}

function where(options: OverrideOptions): string {
  return options.toolset === undefined ? 'globally' : `in toolset "${options.toolset}"`;
}

/** `hintgate override set <tool> field=value...`. */
export async function runOverrideSet(
  tool: string,
  assignments: readonly string[],
  options: OverrideOptions,
): Promise<void> {
  const ref = parseToolArgument(tool);
  const annotations = parseAssignments(assignments);
  const saved = await withStore(options, (store) =>
    store.setOverride(ref, annotations, scopeOf(options)),
  );
  if (options.json === true) return writeOut(formatJson(saved));
  say(`override of ${formatRef(ref)} ${where(options)}: ${JSON.stringify(saved.annotations)}`);
}

/** `hintgate override unset <tool> [field...]`. */
export async function runOverrideUnset(
  tool: string,
  fields: readonly string[],
  options: OverrideOptions,
): Promise<void> {
  const ref = parseToolArgument(tool);
  for (const field of fields) {
    if (!FIELDS.has(field)) {
      throw new HintgateError(
        'INPUT_INVALID',
        `"${field}" is not an annotation field (known: ${[...FIELDS].join(', ')})`,
      );
    }
  }
  const left = await withStore(options, (store) =>
    store.unsetOverride(ref, {
      ...scopeOf(options),
      ...(fields.length === 0 ? {} : { fields }),
    }),
  );
  if (options.json === true) return writeOut(formatJson(left ?? null));
  say(
    left === undefined
      ? `no override of ${formatRef(ref)} left ${where(options)}`
      : `override of ${formatRef(ref)} ${where(options)} now: ${JSON.stringify(left.annotations)}`,
  );
}

/** `hintgate override list`. */
export async function runOverrideList(options: OverrideOptions): Promise<void> {
  const list = await withStore(options, (store) => store.listOverrides(scopeOf(options)));
  if (options.json === true) return writeOut(formatJson(list));
  if (list.length === 0) return writeOut(`(no overrides ${where(options)})\n`);
  return writeOut(
    `${formatTable(list, [
      { heading: 'tool', cell: (row: AnnotationOverride) => formatRef(row.tool) },
      { heading: 'scope', cell: (row) => row.toolset ?? 'global' },
      {
        heading: 'fields',
        cell: (row) =>
          Object.entries(row.annotations)
            .map(
              ([field, value]) =>
                `${field}=${Array.isArray(value) ? value.join(',') : String(value)}`,
            )
            .join(' '),
      },
    ])}\n`,
  );
}
