import type { Command } from 'commander';
import { storeCommandOptions } from '../store-commands.js';
import type { ToolsetEquipOptions } from '../run-toolset-default.js';
import type {
  ToolsetCreateOptions,
  ToolsetExportOptions,
  ToolsetImportOptions,
  ToolsetMembersOptions,
  ToolsetOptions,
  ToolsetShowOptions,
} from '../run-toolset.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `hintgate toolset list|show|create|add|remove|equip|delete|export|import|rules`. */
export function registerToolset(program: Command): void {
  const toolset = program
    .command('toolset')
    .description(
      'Manage toolsets (named selections of tools with notes and overrides), in the same store as a running gateway',
    );
  storeCommandOptions(toolset.command('list').description('List the saved toolsets')).action(
    async (options: ToolsetOptions) => {
      const { runToolsetList } = await import('../run-toolset.js');
      await runToolsetList(options);
    },
  );
  storeCommandOptions(
    toolset
      .command('show <name>')
      .description("Show a toolset's members, notes and overrides")
      .option(
        '--check',
        'connect to the configured servers and report members, notes and overrides that resolve to no tool now (orphans)',
      ),
  ).action(async (name: string, options: ToolsetShowOptions) => {
    const { runToolsetShow } = await import('../run-toolset.js');
    await runToolsetShow(name, options);
  });
  storeCommandOptions(
    toolset
      .command('create <name>')
      .description('Create a toolset')
      .option('-d, --description <text>', 'what the toolset is for')
      .option('--tool <tool>', 'a tool: server.tool or a refId (repeatable)', collect)
      .option('--server <name>', 'every tool of a server (repeatable)', collect)
      .option(
        '--strict',
        'refuse a tool or server the running gateway does not have, or that cannot be checked (default: write it and warn)',
      ),
  ).action(async (name: string, options: ToolsetCreateOptions) => {
    const { runToolsetCreate } = await import('../run-toolset.js');
    await runToolsetCreate(name, options);
  });
  storeCommandOptions(
    toolset
      .command('add <name>')
      .description(
        "Add members to a toolset, checked against a running gateway's catalog (a warning for one it does not have)",
      )
      .option('--tool <tool>', 'a tool: server.tool or a refId (repeatable)', collect)
      .option('--server <name>', 'every tool of a server (repeatable)', collect)
      .option(
        '--strict',
        'refuse a tool or server the running gateway does not have, or that cannot be checked (default: write it and warn)',
      ),
  ).action(async (name: string, options: ToolsetMembersOptions) => {
    const { runToolsetAdd } = await import('../run-toolset.js');
    await runToolsetAdd(name, options);
  });
  storeCommandOptions(
    toolset
      .command('remove <name>')
      .description('Remove members from a toolset (its notes and overrides stay)')
      .option('--tool <tool>', 'a tool: server.tool or a refId (repeatable)', collect)
      .option('--server <name>', 'a whole-server member (repeatable)', collect),
  ).action(async (name: string, options: ToolsetMembersOptions) => {
    const { runToolsetRemove } = await import('../run-toolset.js');
    await runToolsetRemove(name, options);
  });
  storeCommandOptions(
    toolset
      .command('equip [name]')
      .description(
        "Make a toolset the default: what sessions that have not chosen one see (kept in the store: it holds after a restart and wins over the config's toolsets.default); a running gateway tells its clients",
      )
      .option('--none', 'no default toolset: sessions that have not chosen one see every tool')
      .option('--reset', "forget the choice: the config's toolsets.default holds again")
      .option('--by <name>', 'who chooses (default: your user name)'),
  ).action(async (name: string | undefined, options: ToolsetEquipOptions) => {
    const { runToolsetEquip } = await import('../run-toolset-default.js');
    await runToolsetEquip(name, options);
  });
  storeCommandOptions(
    toolset.command('delete <name>').description('Delete a toolset with its notes and overrides'),
    false,
  ).action(async (name: string, options: ToolsetOptions) => {
    const { runToolsetDelete } = await import('../run-toolset.js');
    await runToolsetDelete(name, options);
  });
  storeCommandOptions(
    toolset
      .command('export <name>')
      .description('Write a toolset (members, notes, overrides) as JSON')
      .option('-o, --output <file>', 'write to this file instead of standard output'),
    false,
  ).action(async (name: string, options: ToolsetExportOptions) => {
    const { runToolsetExport } = await import('../run-toolset.js');
    await runToolsetExport(name, options);
  });
  const rules = toolset
    .command('rules')
    .description(
      "Set or clear a toolset's dynamic-annotation rules (refine a call's annotations from its arguments)",
    );
  storeCommandOptions(
    rules
      .command('set <toolset> [file]')
      .description(
        'Replace the rules with those in a YAML or JSON file (a list, or { rules: [...] }), or standard input',
      ),
  ).action(async (name: string, file: string | undefined, options: ToolsetOptions) => {
    const { runToolsetRulesSet } = await import('../run-toolset-rules.js');
    await runToolsetRulesSet(name, file, options);
  });
  storeCommandOptions(rules.command('clear <toolset>').description('Remove every rule')).action(
    async (name: string, options: ToolsetOptions) => {
      const { runToolsetRulesClear } = await import('../run-toolset-rules.js');
      await runToolsetRulesClear(name, options);
    },
  );
  storeCommandOptions(
    toolset
      .command('import [file]')
      .description('Read a toolset from JSON (a file, or standard input)')
      .option('--name <name>', 'import under this name instead of the one in the file')
      .option('--replace', 'replace an existing toolset of that name')
      .option(
        '--strict',
        'refuse a tool or server the running gateway does not have, or that cannot be checked (default: write it and warn)',
      ),
  ).action(async (file: string | undefined, options: ToolsetImportOptions) => {
    const { runToolsetImport } = await import('../run-toolset.js');
    await runToolsetImport(file, options);
  });
}
