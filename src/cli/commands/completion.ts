import { Argument } from 'commander';
import type { Command } from 'commander';
import type { CompletionShell } from '../completion/index.js';

/** `hintgate completion bash|zsh|fish`: a completion script from the command tree. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description(
      'Print a shell completion script for bash, zsh or fish (commands, subcommands, options, file and directory values); load it with: source <(hintgate completion bash)',
    )
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: CompletionShell) => {
      const [{ completionScript }, { writeOut }] = await Promise.all([
        import('../completion/index.js'),
        import('../io.js'),
      ]);
      await writeOut(completionScript(program, shell));
    });
}
