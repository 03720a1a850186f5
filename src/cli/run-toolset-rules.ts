import { parse as parseYaml } from 'yaml';
import { HintgateError } from '../core/errors.js';
import type { DynamicRule } from '../core/dynamic/rules.js';
import { readInput, writeOut } from './io.js';
import { formatJson } from './output.js';
import type { ToolsetOptions } from './run-toolset.js';
import { withStore } from './store-access.js';
import { say } from './store-commands.js';

/**
 * The rules in a file: a YAML or JSON list of rules, or an object with a `rules` list (a
 * config's `dynamic` section pasted as it is). They are checked by the store.
 */
function rulesFrom(text: string, source: string): DynamicRule[] {
  let value: unknown;
  try {
    value = parseYaml(text) as unknown;
  } catch (error) {
    throw new HintgateError(
      'INPUT_INVALID',
      `${source}: neither JSON nor YAML: ${(error as Error).message}`,
    );
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'rules' in value) {
    value = value.rules;
  }
  if (!Array.isArray(value)) {
    throw new HintgateError(
      'INPUT_INVALID',
      `${source}: expected a list of rules (or an object with a "rules" list)`,
    );
  }
  return value as DynamicRule[];
}

/**
 * `hintgate toolset rules set <toolset> [file]`: replaces the toolset's dynamic-annotation
 * rules with the ones in the file (standard input without one). A running gateway picks
 * them up and tells the sessions using the toolset that their tools changed.
 */
export async function runToolsetRulesSet(
  name: string,
  file: string | undefined,
  options: ToolsetOptions,
): Promise<void> {
  const rules = rulesFrom(await readInput(file), file ?? 'standard input');
  const toolset = await withStore(options, (store) => store.setToolsetRules(name, rules));
  if (options.json === true) return writeOut(formatJson(toolset));
  say(`toolset "${toolset.name}" has ${toolset.rules.length} dynamic-annotation rule(s)`);
}

/** `hintgate toolset rules clear <toolset>`: removes the toolset's rules. */
export async function runToolsetRulesClear(name: string, options: ToolsetOptions): Promise<void> {
  const toolset = await withStore(options, (store) => store.setToolsetRules(name, []));
  if (options.json === true) return writeOut(formatJson(toolset));
  say(`toolset "${toolset.name}" has no dynamic-annotation rules`);
}
