/**
 * The `hintgate` command line: every subcommand, and {@link main}, which runs one. `main.ts`
 * (the `hintgate` executable) runs it, from the bundle the build makes of this module.
 */
import { Command, CommanderError } from 'commander';
import { registerApprovals } from './commands/approvals.js';
import { registerAudit } from './commands/audit.js';
import { registerCompletion } from './commands/completion.js';
import { registerInfer } from './commands/infer.js';
import { registerInit } from './commands/init.js';
import { registerLint } from './commands/lint.js';
import { registerNote } from './commands/note.js';
import { registerOverride } from './commands/override.js';
import { registerPins } from './commands/pins.js';
import { registerAuth } from './commands/auth.js';
import { registerServe } from './commands/serve.js';
import { registerToolset } from './commands/toolset.js';
import { registerTools } from './commands/tools.js';
import { EXIT, exitCodeFor, messageFor } from './exit.js';
import { VERSION } from './version.js';

/** Builds the `hintgate` command with every subcommand registered. */
export function buildProgram(): Command {
  const program = new Command('hintgate')
    .description('An annotation-aware gateway and toolkit for the Model Context Protocol')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError();
  registerInit(program);
  registerInfer(program);
  registerLint(program);
  registerServe(program);
  registerTools(program);
  registerToolset(program);
  registerNote(program);
  registerOverride(program);
  registerApprovals(program);
  registerAudit(program);
  registerPins(program);
  registerAuth(program);
  registerCompletion(program);
  return program;
}

/** Runs the command line `argv` (as `process.argv`); resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return process.exitCode === undefined ? EXIT.ok : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    process.stderr.write(`hintgate: ${messageFor(error)}\n`);
    return exitCodeFor(error);
  }
}
