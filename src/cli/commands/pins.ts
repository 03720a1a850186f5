import type { Command } from 'commander';
import type { PinsOptions } from '../run-pins.js';
import { storeCommandOptions } from '../store-commands.js';

/** `hintgate pins list|diff|approve|reject`. */
export function registerPins(program: Command): void {
  const pins = program
    .command('pins')
    .description(
      "Pinned tool definitions and their drift: what changed since a server's tools were pinned, graded by safety, and a person's decision (applied by a running gateway at once)",
    );
  storeCommandOptions(
    pins
      .command('list')
      .description('List pinned tools with their status and drift')
      .option('--server <name>', "only this server's tools")
      .option('--status <status>', 'pinned, pending, rejected, removed or all'),
  ).action(async (options: PinsOptions) => {
    const { runPinsList } = await import('../run-pins.js');
    await runPinsList(options);
  });
  storeCommandOptions(
    pins
      .command('diff <tool>')
      .description('Show what drifted in a tool (server.tool), field by field'),
  ).action(async (tool: string, options: PinsOptions) => {
    const { runPinsDiff } = await import('../run-pins.js');
    await runPinsDiff(tool, options);
  });
  for (const [action, what] of [
    [
      'approve',
      'Approve the waiting definition of a tool (or every one of --server): it becomes the pin',
    ],
    ['reject', 'Reject it: the pin stands and the drifted definition stays held back'],
  ] as const) {
    storeCommandOptions(
      pins
        .command(`${action} [tool]`)
        .description(what)
        .option('--server <name>', 'every waiting tool of this server')
        .option('--note <text>', 'a note kept with the decision')
        .option('--by <name>', 'who decides (default: your user name)'),
    ).action(async (tool: string | undefined, options: PinsOptions) => {
      const { runPinsDecide } = await import('../run-pins.js');
      await runPinsDecide(tool, action, options);
    });
  }
}
