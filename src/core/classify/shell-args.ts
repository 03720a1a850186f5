/**
 * What a shell command handler receives and returns, and helpers to read its options.
 */
import type { CallHints } from './hints.js';
import type { ShellWord } from './shell-parse.js';

/** A command's name (its base name: `/bin/rm` is `rm`) and its arguments. */
export interface CommandArgs {
  readonly name: string;
  readonly args: readonly ShellWord[];
  /** The arguments' texts. */
  readonly texts: readonly string[];
}

/**
 * What running a command does:
 * - `effect`: a verdict with its phrase (`removes files`);
 * - `argv`: it runs another command given as words (`sudo rm x`, `find -exec rm {} \;`);
 * - `script`: it runs a shell script given as text (`sh -c '…'`, `eval`, `ssh host '…'`);
 * - `sql`: it runs SQL (`psql -c '…'`);
 * - `http`: it sends an HTTP request (`curl -X DELETE …`).
 */
export type Outcome =
  | { readonly type: 'effect'; readonly hints: CallHints; readonly phrase: string }
  | { readonly type: 'argv'; readonly argv: readonly ShellWord[]; readonly via: string }
  | {
      readonly type: 'script';
      readonly script: string;
      readonly via: string;
      readonly openWorld: boolean;
    }
  | { readonly type: 'sql'; readonly sql: string }
  | { readonly type: 'http'; readonly method: string; readonly url: string };

/** A command handler. */
export type CommandHandler = (command: CommandArgs) => Outcome | readonly Outcome[];

/** An `effect` outcome. */
export function effect(hints: CallHints, phrase: string): Outcome {
  return { type: 'effect', hints, phrase };
}

/** The same hints, reaching the open world (the network, another host). */
export function openWorld(hints: CallHints): CallHints {
  return { ...hints, openWorldHint: true };
}

/** The index of `--` (the end of options), or the number of arguments. */
export function optionsEnd(texts: readonly string[]): number {
  const end = texts.indexOf('--');
  return end < 0 ? texts.length : end;
}

function isShortCluster(text: string): boolean {
  return text.length > 1 && text[0] === '-' && text[1] !== '-';
}

/**
 * True when an option is given before `--`: a long one exactly or as `--name=value`, or a
 * short letter alone or in a cluster (`-rf` has `r` and `f`).
 */
export function hasOption(
  texts: readonly string[],
  longs: readonly string[],
  shorts = '',
): boolean {
  const end = optionsEnd(texts);
  for (let i = 0; i < end; i++) {
    const text = texts[i] as string;
    if (text.startsWith('--')) {
      for (const long of longs) if (text === long || text.startsWith(`${long}=`)) return true;
    } else if (shorts !== '' && isShortCluster(text)) {
      for (let j = 1; j < text.length; j++) if (shorts.includes(text[j] as string)) return true;
    } else if (longs.includes(text)) {
      return true;
    }
  }
  return false;
}

/**
 * The value of an option: `-o file`, `-ofile`, `--output file` or `--output=file`, else
 * the short letter inside a cluster (`-qO-`, `-sSLo out`: the rest of the word or the next);
 * `undefined` when it is not given.
 */
export function optionValue(
  texts: readonly string[],
  longs: readonly string[],
  short?: string,
): string | undefined {
  const end = optionsEnd(texts);
  for (let i = 0; i < end; i++) {
    const text = texts[i] as string;
    for (const long of longs) {
      if (text === long) return texts[i + 1] ?? '';
      if (text.startsWith(`${long}=`)) return text.slice(long.length + 1);
    }
    if (short !== undefined && text.startsWith(`-${short}`) && !text.startsWith('--')) {
      return text.length > 2 ? text.slice(2) : (texts[i + 1] ?? '');
    }
  }
  for (let i = 0; short !== undefined && i < end; i++) {
    const text = texts[i] as string;
    const at = isShortCluster(text) ? text.indexOf(short, 1) : -1;
    if (at > 0) return at + 1 < text.length ? text.slice(at + 1) : (texts[i + 1] ?? '');
  }
  return undefined;
}

/**
 * The positional arguments: words that are not options, skipping the value after each
 * option in `valued` (written as `-o` or `--output`); everything after `--` is positional.
 */
export function positionals(texts: readonly string[], valued: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let options = true;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i] as string;
    if (options && text === '--') {
      options = false;
    } else if (options && text.length > 1 && text.startsWith('-')) {
      if (valued.has(text)) i++;
    } else {
      out.push(text);
    }
  }
  return out;
}

/** The index in `args` of the first positional argument, as {@link positionals} reads them. */
export function firstPositional(texts: readonly string[], valued: ReadonlySet<string>): number {
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i] as string;
    if (text === '--') return i + 1;
    if (text.length > 1 && text.startsWith('-')) {
      if (valued.has(text)) i++;
      continue;
    }
    return i;
  }
  return texts.length;
}

/** Splits a word list written as one string into a set, once, at module load. */
export function nameSet(list: string): ReadonlySet<string> {
  return new Set(list.split(/\s+/).filter((word) => word.length > 0));
}

/** Paths a redirection or output option may name without writing a file. */
export function isHarmlessPath(path: string): boolean {
  return (
    path === '/dev/null' ||
    path === '/dev/stdout' ||
    path === '/dev/stderr' ||
    path === '/dev/tty' ||
    path === '-' ||
    path.startsWith('/dev/fd/') ||
    path.startsWith('/proc/self/fd/')
  );
}
