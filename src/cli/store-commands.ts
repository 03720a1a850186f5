import type { Command } from 'commander';
import { HintgateError } from '../core/errors.js';
import { REF_ID_LENGTH } from '../core/refs/ref-id.js';
import type { ToolRef } from '../store/types.js';

/** Pieces shared by `hintgate toolset`, `note` and `override`. */

const REF_ID = new RegExp(`^[0-9a-f]{${REF_ID_LENGTH}}$`);

/** Adds the options every store command takes: where the store is, and JSON output. */
export function storeCommandOptions(command: Command, json = true): Command {
  command
    .option(
      '-c, --config <file>',
      'config file (default: hintgate.config.json, .yaml or .yml in the working directory)',
    )
    .option('--store <url>', "a postgres:// URL (default: the config's store)")
    .option(
      '--data-dir <dir>',
      "the embedded store's data directory, instead of the config's (no config file needed)",
    );
  if (json) command.option('--json', 'print JSON');
  return command;
}

/**
 * A tool as the CLI names it: `server.tool` (a namespaced name) or a 16-character refId.
 * Anything else is an INPUT_INVALID error saying what is expected.
 */
export function parseToolArgument(value: string): ToolRef {
  if (REF_ID.test(value)) return { refId: value };
  const dot = value.indexOf('.');
  if (dot > 0 && dot < value.length - 1) return { namespacedName: value };
  throw new HintgateError(
    'INPUT_INVALID',
    `tool "${value}": expected a namespaced name (server.tool, e.g. github.create_issue) or a refId (${REF_ID_LENGTH} lowercase hex characters; hintgate tools --json shows them)`,
  );
}

/** A tool reference as people read it. */
export function formatRef(ref: ToolRef): string {
  if (ref.namespacedName !== undefined && ref.refId !== undefined) {
    return `${ref.namespacedName} (${ref.refId})`;
  }
  return ref.namespacedName ?? ref.refId ?? '?';
}

/** Writes a line to stderr (warnings and confirmations; stdout stays for data). */
export function say(line: string): void {
  process.stderr.write(`hintgate: ${line}\n`);
}
