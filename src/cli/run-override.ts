import { OVERRIDE_FIELDS as FIELDS, parseAssignments } from '../core/annotations/assignments.js';
import { HintgateError } from '../core/errors.js';
import type { AnnotationOverride } from '../store/types.js';
import { writeOut } from './io.js';
import { formatJson, formatTable } from './output.js';
import type { StoreCommandOptions } from './store-access.js';
import { withStore } from './store-access.js';
import { formatRef, parseToolArgument, say } from './store-commands.js';
import { checkedWrite, reportCheck } from './tool-check.js';

/** Options of the `override` subcommands. */
export interface OverrideOptions extends StoreCommandOptions {
  readonly json?: boolean;
  /** Inside this toolset; global when absent. */
  readonly toolset?: string;
  /** `override set`: refuse a tool that does not exist, or that cannot be checked. */
  readonly strict?: boolean;
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
  const outcome = await withStore(options, (store) =>
    checkedWrite(store, [{ kind: 'tool', ref }], options.strict === true, () =>
      store.setOverride(ref, annotations, scopeOf(options)),
    ),
  );
  const saved = outcome.value;
  if (options.json === true) await writeOut(formatJson(saved));
  else say(`override of ${formatRef(ref)} ${where(options)}: ${JSON.stringify(saved.annotations)}`);
  reportCheck(outcome, say);
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
