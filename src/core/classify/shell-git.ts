/**
 * What `git` subcommands do. Reading commands are read-only; `add`, `commit`, `push`
 * (without force), `clone`, `branch <new>` add; history rewrites and anything that can
 * lose work (`push --force`, `reset --hard`, `clean -f`, `checkout -- <path>`, `restore`,
 * `rebase`, `branch -D`, `stash drop`) are destructive. Network commands reach an open world.
 */
import type { CallHints } from './hints.js';
import {
  ADDITIVE,
  CONSERVATIVE,
  DESTRUCTIVE,
  DESTRUCTIVE_IDEMPOTENT,
  GENTLE_IDEMPOTENT,
  READ,
} from './hints.js';
import type { CommandArgs, Outcome } from './shell-args.js';
import {
  effect,
  firstPositional,
  hasOption,
  nameSet,
  openWorld,
  optionValue,
  positionals,
} from './shell-args.js';

const GLOBAL_VALUED = nameSet('-C -c --git-dir --work-tree --namespace --exec-path --config-env');
const NO_VALUES: ReadonlySet<string> = new Set();
const READ_SUBCOMMANDS = nameSet(`
  status log diff show blame grep ls-files ls-tree rev-parse rev-list describe shortlog
  cat-file show-ref for-each-ref count-objects whatchanged name-rev merge-base check-ignore
  check-attr help version var verify-commit verify-tag cherry range-diff show-branch annotate
  fsck difftool --version --help
`);
const REWRITES = nameSet(
  'merge rebase cherry-pick revert am filter-branch filter-repo update-index',
);
const BRANCH_LIST = [
  '--list',
  '--all',
  '--remotes',
  '--show-current',
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '--format',
  '--sort',
  '--column',
  '--verbose',
];

function git(hints: CallHints, phrase: string): Outcome {
  return effect(hints, phrase);
}

function pushOutcome(args: readonly string[]): Outcome {
  const forced =
    hasOption(
      args,
      ['--force', '--force-with-lease', '--force-if-includes', '--mirror', '--delete', '--prune'],
      'fd',
    ) ||
    positionals(args, nameSet('--repo -o --push-option --receive-pack --exec'))
      .slice(1)
      .some((ref) => ref.startsWith('+') || ref.startsWith(':'));
  return forced
    ? git(
        openWorld(DESTRUCTIVE),
        'force-pushes or deletes remote branches, which can discard commits',
      )
    : git(openWorld(ADDITIVE), 'pushes commits to a remote');
}

function branchOutcome(args: readonly string[]): Outcome {
  if (hasOption(args, ['--delete', '--move', '--force'], 'dDmMf')) {
    return git(DESTRUCTIVE, 'deletes, renames or force-moves a branch');
  }
  if (hasOption(args, ['--set-upstream-to', '--unset-upstream', '--edit-description'], 'u')) {
    return git(DESTRUCTIVE_IDEMPOTENT, "changes a branch's configuration");
  }
  const listing = hasOption(args, BRANCH_LIST, 'larv');
  if (listing || positionals(args, NO_VALUES).length === 0) return git(READ, 'only lists branches');
  return git(ADDITIVE, 'creates a branch');
}

function tagOutcome(args: readonly string[]): Outcome {
  if (hasOption(args, ['--delete'], 'd')) return git(DESTRUCTIVE_IDEMPOTENT, 'deletes tags');
  if (hasOption(args, ['--force'], 'f')) return git(DESTRUCTIVE, 'moves an existing tag');
  if (
    hasOption(args, ['--list', '--contains', '--points-at', '--merged'], 'ln') ||
    positionals(args, nameSet('-m -F -u')).length === 0
  ) {
    return git(READ, 'only lists tags');
  }
  return git(ADDITIVE, 'creates a tag');
}

function checkoutOutcome(args: readonly string[]): Outcome {
  if (hasOption(args, [], 'B') || hasOption(args, ['--force'], 'f')) {
    return git(DESTRUCTIVE, 'resets a branch or discards local changes');
  }
  if (hasOption(args, ['--orphan'], 'b') && !args.includes('--'))
    return git(ADDITIVE, 'creates and switches to a branch');
  return git(
    DESTRUCTIVE_IDEMPOTENT,
    'switches branches or restores files, overwriting local changes to them',
  );
}

function configOutcome(args: readonly string[]): Outcome {
  if (
    hasOption(args, [
      '--unset',
      '--unset-all',
      '--remove-section',
      '--rename-section',
      '--replace-all',
    ])
  ) {
    return git(DESTRUCTIVE_IDEMPOTENT, 'removes or renames configuration');
  }
  const reads = [
    '--get',
    '--get-all',
    '--get-regexp',
    '--get-urlmatch',
    '--list',
    '--show-origin',
    '--show-scope',
  ];
  const values = positionals(args, nameSet('--file -f --blob --type --default'));
  if (hasOption(args, reads, 'l') || values.length <= 1)
    return git(READ, 'only reads configuration');
  return git(DESTRUCTIVE_IDEMPOTENT, 'sets configuration');
}

/** A table of outcomes by action name (`''` for none). */
function outcomes(entries: Readonly<Record<string, Outcome>>): ReadonlyMap<string, Outcome> {
  return new Map(Object.entries(entries));
}

/** A subcommand with actions of its own (`git stash drop`): by the table, else `fallback`. */
function nested(
  args: readonly string[],
  table: ReadonlyMap<string, Outcome>,
  fallback: Outcome,
): Outcome {
  return table.get(positionals(args, NO_VALUES)[0] ?? '') ?? fallback;
}

const STASH = outcomes({
  list: git(READ, 'only lists stashes'),
  show: git(READ, 'only shows a stash'),
  drop: git(DESTRUCTIVE_IDEMPOTENT, 'deletes stashed changes'),
  clear: git(DESTRUCTIVE_IDEMPOTENT, 'deletes all stashed changes'),
  pop: git(DESTRUCTIVE, 'applies and deletes a stash, changing files'),
  apply: git(DESTRUCTIVE, 'applies a stash, changing files'),
  branch: git(ADDITIVE, 'creates a branch from a stash'),
});
const REMOTE = outcomes({
  '': git(READ, 'only lists remotes'),
  show: git(READ, 'only shows a remote'),
  'get-url': git(READ, 'only shows a remote URL'),
  add: git(ADDITIVE, 'adds a remote'),
});
const WORKTREE = outcomes({
  list: git(READ, 'only lists worktrees'),
  add: git(ADDITIVE, 'adds a worktree'),
  lock: git(GENTLE_IDEMPOTENT, 'locks a worktree'),
  unlock: git(GENTLE_IDEMPOTENT, 'unlocks a worktree'),
});
const REFLOG = outcomes({
  '': git(READ, 'only shows the reflog'),
  show: git(READ, 'only shows the reflog'),
  exists: git(READ, 'only checks the reflog'),
});
const SUBMODULE = outcomes({
  '': git(READ, 'only lists submodules'),
  status: git(READ, 'only shows submodule status'),
  summary: git(READ, 'only summarizes submodules'),
  add: git(ADDITIVE, 'adds a submodule'),
  init: git(GENTLE_IDEMPOTENT, 'initializes submodules'),
  foreach: git(CONSERVATIVE, 'runs a command in every submodule'),
});
const NOTES = outcomes({
  '': git(READ, 'only lists notes'),
  list: git(READ, 'only lists notes'),
  show: git(READ, 'only shows notes'),
  add: git(ADDITIVE, 'adds notes'),
  append: git(ADDITIVE, 'appends to notes'),
});

/** `git …`, by subcommand. */
export function gitHandler(command: CommandArgs): Outcome {
  const texts = command.texts;
  const index = firstPositional(texts, GLOBAL_VALUED);
  const sub = texts[index];
  const args = texts.slice(index + 1);
  if (sub === undefined) return git(READ, 'only prints help');
  if (READ_SUBCOMMANDS.has(sub)) return git(READ, 'only reads the repository');
  if (REWRITES.has(sub)) {
    return hasOption(args, ['--abort', '--quit']) && sub !== 'update-index'
      ? git(DESTRUCTIVE_IDEMPOTENT, `abandons a ${sub} in progress`)
      : git(DESTRUCTIVE, 'rewrites history or changes files');
  }
  switch (sub) {
    case 'ls-remote':
      return git(openWorld(READ), 'only lists remote references');
    case 'fetch':
      return git(
        openWorld(GENTLE_IDEMPOTENT),
        'downloads objects and updates remote-tracking branches',
      );
    case 'pull':
      return git(openWorld(DESTRUCTIVE), 'fetches and merges into the current branch');
    case 'clone':
      return git(openWorld(ADDITIVE), 'clones a repository into a new directory');
    case 'push':
      return pushOutcome(args);
    case 'add':
      return hasOption(args, ['--dry-run'], 'n')
        ? git(READ, 'only shows what it would stage')
        : git(GENTLE_IDEMPOTENT, 'stages changes');
    case 'commit':
      if (hasOption(args, ['--dry-run'])) return git(READ, 'only shows what it would commit');
      return hasOption(args, ['--amend'])
        ? git(DESTRUCTIVE, 'rewrites the last commit (--amend)')
        : git(ADDITIVE, 'records a commit');
    case 'reset':
      return hasOption(args, ['--hard', '--merge', '--keep'])
        ? git(DESTRUCTIVE, 'discards uncommitted changes (--hard)')
        : git(DESTRUCTIVE, 'moves the branch or unstages changes');
    case 'clean':
      return hasOption(args, ['--dry-run'], 'n')
        ? git(READ, 'only lists what it would delete')
        : git(DESTRUCTIVE_IDEMPOTENT, 'deletes untracked files');
    case 'checkout':
      return checkoutOutcome(args);
    case 'switch':
      if (hasOption(args, ['--discard-changes', '--force', '--force-create'], 'fC'))
        return git(DESTRUCTIVE, 'switches branches, discarding changes');
      return hasOption(args, ['--create', '--orphan'], 'c')
        ? git(ADDITIVE, 'creates and switches to a branch')
        : git(GENTLE_IDEMPOTENT, 'switches branches');
    case 'restore':
    case 'rm':
    case 'mv':
      return git(DESTRUCTIVE_IDEMPOTENT, 'changes or removes files');
    case 'branch':
      return branchOutcome(args);
    case 'tag':
      return tagOutcome(args);
    case 'config':
      return configOutcome(args);
    case 'init':
      return git(GENTLE_IDEMPOTENT, 'creates or reinitializes a repository');
    case 'gc':
    case 'prune':
    case 'repack':
      return git(DESTRUCTIVE_IDEMPOTENT, 'prunes unreachable objects');
    case 'format-patch':
      return hasOption(args, ['--stdout'])
        ? git(READ, 'only prints patches')
        : git(ADDITIVE, 'writes patch files');
    case 'archive':
      return optionValue(args, ['--output'], 'o') === undefined
        ? git(READ, 'only writes an archive to its output')
        : git(DESTRUCTIVE_IDEMPOTENT, 'writes an archive file');
    case 'stash':
      return nested(
        args,
        STASH,
        git(ADDITIVE, 'saves local changes and removes them from the worktree'),
      );
    case 'remote':
      return hasOption(args, ['--verbose'], 'v') && positionals(args, NO_VALUES).length === 0
        ? git(READ, 'only lists remotes')
        : nested(args, REMOTE, git(DESTRUCTIVE_IDEMPOTENT, 'changes or removes a remote'));
    case 'worktree':
      return nested(args, WORKTREE, git(DESTRUCTIVE_IDEMPOTENT, 'removes or moves worktrees'));
    case 'reflog':
      return nested(args, REFLOG, git(DESTRUCTIVE_IDEMPOTENT, 'expires or deletes reflog entries'));
    case 'submodule':
      return nested(args, SUBMODULE, git(DESTRUCTIVE, 'updates or removes submodules'));
    case 'notes':
      return nested(args, NOTES, git(DESTRUCTIVE_IDEMPOTENT, 'edits or removes notes'));
    case 'update-ref':
      return hasOption(args, [], 'd')
        ? git(DESTRUCTIVE_IDEMPOTENT, 'deletes a reference')
        : git(DESTRUCTIVE, 'moves a reference');
    default:
      return git(CONSERVATIVE, `runs \`git ${sub}\`, which is not a git command hintgate knows`);
  }
}
