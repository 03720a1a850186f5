import type { Command } from 'commander';
import type { AuditOptions } from '../run-audit.js';
import { storeCommandOptions } from '../store-commands.js';

/** `hintgate audit`. */
export function registerAudit(program: Command): void {
  storeCommandOptions(
    program
      .command('audit')
      .description('Query the audit log of tool calls, newest first')
      .option('--tool <name>', 'a tool (flattened or namespaced name)')
      .option('--server <name>', 'a server')
      .option('--since <when>', 'an ISO 8601 date, or a time ago: 30s, 10m, 2h, 7d')
      .option('--until <when>', 'an ISO 8601 date, or a time ago')
      .option(
        '--decision <decision>',
        'allow, deny, approved, declined, cancelled, denied, expired, needs-approval, …',
      )
      .option('--outcome <outcome>', 'ok, tool-error, denied, rate-limited, timeout, error, …')
      .option('--session <id>', 'a client session')
      .option('--limit <n>', 'at most this many (default 100, at most 10000)', '100'),
  ).action(async (options: AuditOptions) => {
    const { runAudit } = await import('../run-audit.js');
    await runAudit(options);
  });
}
