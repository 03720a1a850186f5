import type { Command } from 'commander';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionTree } from './tree.js';
import { zshScript } from './zsh.js';

/** The shells `hintgate completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;

/** One of {@link COMPLETION_SHELLS}. */
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** The completion script of `program` for `shell`, generated from its command tree. */
export function completionScript(program: Command, shell: CompletionShell): string {
  const tree = completionTree(program);
  switch (shell) {
    case 'bash':
      return bashScript(tree);
    case 'zsh':
      return zshScript(tree);
    case 'fish':
      return fishScript(tree);
  }
}
