import type { Argument, Command, Option } from 'commander';

/** What a value is completed with: files, directories, fixed choices, or nothing. */
export type ValueKind =
  | { readonly kind: 'file' }
  | { readonly kind: 'dir' }
  | { readonly kind: 'choices'; readonly choices: readonly string[] }
  | { readonly kind: 'none' };

/** An option as the shells see it. */
export interface CompletionOption {
  /** `--config`, `-c`. */
  readonly long: string | undefined;
  readonly short: string | undefined;
  readonly description: string;
  /** What its value is completed with; undefined for a flag. */
  readonly value: ValueKind | undefined;
}

/** A positional argument. */
export interface CompletionArgument {
  readonly name: string;
  readonly variadic: boolean;
  readonly value: ValueKind;
}

/** A command (the program itself at the root) with everything a shell completes of it. */
export interface CompletionCommand {
  /** The words from the program to it: [] for the program, ['toolset', 'equip']. */
  readonly path: readonly string[];
  readonly name: string;
  readonly description: string;
  readonly options: readonly CompletionOption[];
  readonly commands: readonly CompletionCommand[];
  readonly args: readonly CompletionArgument[];
}

/**
 * The command tree of a commander program as the completion scripts need it: every visible
 * command, option and argument, read through commander's own help (so hidden ones stay
 * hidden and `--help` is there). A value named `<file>` completes files, `<dir>` directories;
 * declared choices complete themselves.
 */
export function completionTree(program: Command, path: readonly string[] = []): CompletionCommand {
  const help = program.createHelp();
  return {
    path,
    name: program.name(),
    description: shortDescription(program.description()),
    options: help.visibleOptions(program).map(optionOf),
    commands: help
      .visibleCommands(program)
      .map((command) => completionTree(command, [...path, command.name()])),
    args: program.registeredArguments.map(argumentOf),
  };
}

function optionOf(option: Option): CompletionOption {
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1];
  return {
    long: option.long,
    short: option.short,
    description: shortDescription(option.description),
    value:
      option.required || option.optional ? valueKind(placeholder, option.argChoices) : undefined,
  };
}

function argumentOf(argument: Argument): CompletionArgument {
  return {
    name: argument.name(),
    variadic: argument.variadic,
    value: valueKind(argument.name(), argument.argChoices),
  };
}

function valueKind(name: string | undefined, choices: readonly string[] | undefined): ValueKind {
  if (choices !== undefined && choices.length > 0) return { kind: 'choices', choices };
  if (name === 'file') return { kind: 'file' };
  if (name === 'dir') return { kind: 'dir' };
  return { kind: 'none' };
}

/** The first sentence of a description, at most 90 characters, on one line. */
function shortDescription(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const first = /^(.*?[^.]\.)(\s|$)/.exec(flat)?.[1] ?? flat;
  return first.length > 90 ? `${first.slice(0, 89)}…` : first;
}

/** Every command of the tree, the program first, depth first. */
export function allCommands(root: CompletionCommand): CompletionCommand[] {
  return [root, ...root.commands.flatMap(allCommands)];
}
