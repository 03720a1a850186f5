import type { Command } from 'commander';
import type { ApprovalsOptions } from '../run-approvals.js';
import { storeCommandOptions } from '../store-commands.js';

/** `hintgate approvals list|show|approve|deny`. */
export function registerApprovals(program: Command): void {
  const approvals = program
    .command('approvals')
    .description(
      'The approval queue: calls waiting for a person (they go on or are refused as soon as you decide)',
    );
  storeCommandOptions(
    approvals
      .command('list')
      .description('List approvals, newest first (default: the pending ones)')
      .option(
        '--status <status>',
        'pending, approved, denied, expired, withdrawn or all',
        'pending',
      )
      .option('--limit <n>', 'at most this many', '100'),
  ).action(async (options: ApprovalsOptions) => {
    const { runApprovalsList } = await import('../run-approvals.js');
    await runApprovalsList(options);
  });
  storeCommandOptions(
    approvals.command('show <id>').description('Show one approval with its arguments'),
  ).action(async (id: string, options: ApprovalsOptions) => {
    const { runApprovalsShow } = await import('../run-approvals.js');
    await runApprovalsShow(id, options);
  });
  for (const [action, what] of [
    ['approve', 'Approve a pending call: it runs'],
    ['deny', 'Deny a pending call: it is refused and never runs'],
  ] as const) {
    storeCommandOptions(
      approvals
        .command(`${action} <id>`)
        .description(what)
        .option('--note <text>', 'a note kept with the decision (and shown to the model on deny)')
        .option('--by <name>', 'who decides (default: your user name)'),
    ).action(async (id: string, options: ApprovalsOptions) => {
      const { runApprovalsDecide } = await import('../run-approvals.js');
      await runApprovalsDecide(id, action === 'approve' ? 'approved' : 'denied', options);
    });
  }
}
