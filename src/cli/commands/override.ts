import type { Command } from 'commander';
import { storeCommandOptions } from '../store-commands.js';
import type { OverrideOptions } from '../run-override.js';

/** `hintgate override set|unset|list`, globally or in a toolset. */
export function registerOverride(program: Command): void {
  const override = program
    .command('override')
    .description(
      'Override annotation fields of a tool (tool: server.tool or a refId), globally or in a toolset; the source becomes "override"',
    );
  storeCommandOptions(
    override
      .command('set <tool> <field=value...>')
      .description(
        "Set fields, e.g. readOnlyHint=true destructiveHint=false tags=a,b; the tool is checked against a running gateway's catalog",
      )
      .option('-t, --toolset <name>', 'only in this toolset (default: global)')
      .option(
        '--strict',
        'refuse a tool the running gateway does not have, or that cannot be checked (default: write the override and warn)',
      ),
  ).action(async (tool: string, assignments: string[], options: OverrideOptions) => {
    const { runOverrideSet } = await import('../run-override.js');
    await runOverrideSet(tool, assignments, options);
  });
  storeCommandOptions(
    override
      .command('unset <tool> [fields...]')
      .description('Remove some fields of an override, or all of it')
      .option('-t, --toolset <name>', 'only in this toolset (default: global)'),
  ).action(async (tool: string, fields: string[], options: OverrideOptions) => {
    const { runOverrideUnset } = await import('../run-override.js');
    await runOverrideUnset(tool, fields, options);
  });
  storeCommandOptions(
    override
      .command('list')
      .description('List the global overrides, or those of a toolset')
      .option('-t, --toolset <name>', "the toolset's overrides (default: the global ones)"),
  ).action(async (options: OverrideOptions) => {
    const { runOverrideList } = await import('../run-override.js');
    await runOverrideList(options);
  });
}
