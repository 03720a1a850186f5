/**
 * The shell classifier: what a command line passed to a command-running tool does, the
 * worst over every command it may run.
 */
import type { HintField } from '../annotations/types.js';
import type { InferenceReason } from '../inference/types.js';
import type { ClassifierResult, Finding } from './hints.js';
import {
  ADDITIVE,
  CONSERVATIVE,
  DESTRUCTIVE_IDEMPOTENT,
  READ,
  argumentReason,
  combineFindings,
  excerpt,
  finding,
} from './hints.js';
import { classifyHttpRequest } from './http.js';
import type { CommandHandler, Outcome } from './shell-args.js';
import { isHarmlessPath, nameSet } from './shell-args.js';
import { CORE_COMMANDS } from './shell-commands.js';
import { gitHandler } from './shell-git.js';
import { NET_COMMANDS } from './shell-net.js';
import type { ShellCommand, ShellRedirect, ShellWord } from './shell-parse.js';
import { MAX_SHELL_NESTING, parseShell } from './shell-parse.js';
import { TOOL_COMMANDS } from './shell-tools.js';
import { classifySql } from './sql.js';

/** Folders whose programs are the system's own; a program run from elsewhere is unknown. */
const SYSTEM_DIRS = nameSet(
  '/bin /usr/bin /usr/local/bin /sbin /usr/sbin /usr/local/sbin /opt/homebrew/bin',
);
const FD_TARGET = /^(?:\d+|-)$/;

function handlerFor(name: string): CommandHandler | undefined {
  if (name === 'git') return gitHandler;
  if (name.startsWith('mkfs.')) return CORE_COMMANDS.get('mkfs');
  return CORE_COMMANDS.get(name) ?? NET_COMMANDS.get(name) ?? TOOL_COMMANDS.get(name);
}

function redirectFinding(redirect: ShellRedirect, label: string): Finding | undefined {
  const { op, target } = redirect;
  const path = target.literal ? `\`${target.text}\`` : 'a file named at run time';
  if (op === '>&' && FD_TARGET.test(target.text)) return undefined;
  if (target.literal && isHarmlessPath(target.text)) return undefined;
  const rule = 'shell-redirect';
  if (op === '>' || op === '>|' || op === '&>' || op === '>&') {
    return finding(
      DESTRUCTIVE_IDEMPOTENT,
      op,
      rule,
      `${label} overwrites ${path} (\`${op}\` redirection)`,
    );
  }
  if (op === '>>' || op === '&>>') {
    return finding(ADDITIVE, op, rule, `${label} appends to ${path} (\`${op}\` redirection)`);
  }
  if (op === '<>') return finding(ADDITIVE, op, rule, `${label} opens ${path} for writing`);
  return undefined;
}

/** The reasons of another classifier's result, each prefixed with where it ran. */
function embedded(result: ClassifierResult, word: string, rule: string, prefix: string): Finding {
  const fieldReasons: Partial<Record<HintField, InferenceReason>> = {};
  for (const [field, reason] of Object.entries(result.reasons) as Array<
    [HintField, InferenceReason]
  >) {
    fieldReasons[field] = argumentReason(word, rule, `${prefix}: ${reason.text}`);
  }
  const main = result.reasons.readOnlyHint ?? result.findings[0];
  const reason = argumentReason(word, rule, `${prefix}: ${main?.text ?? 'nothing runs'}`);
  return { hints: result.annotations, reason, fieldReasons };
}

function outcomeFindings(
  outcome: Outcome,
  name: string,
  label: string,
  nesting: number,
  hops: number,
): Finding[] {
  switch (outcome.type) {
    case 'effect':
      return [finding(outcome.hints, name, `shell-${name}`, `${label} ${outcome.phrase}`)];
    case 'argv':
      return argvFindings(outcome.argv, label, nesting, hops + 1);
    case 'script': {
      const inner = scriptFindings(
        outcome.script,
        nesting + 1,
        `${label} runs a script through \`${outcome.via}\``,
      );
      if (!outcome.openWorld) return inner;
      return [
        ...inner,
        finding(
          { ...READ, openWorldHint: true },
          name,
          `shell-${name}`,
          `${label} reaches another host`,
        ),
      ];
    }
    case 'sql': {
      const result = classifySql(outcome.sql);
      return result === undefined
        ? [finding(READ, name, 'shell-sql', `${label} runs no SQL statement`)]
        : [embedded(result, name, 'shell-sql', label)];
    }
    case 'http': {
      const result = classifyHttpRequest(
        outcome.method,
        outcome.url === '' ? undefined : outcome.url,
      );
      if (result === undefined)
        return [
          finding(
            CONSERVATIVE,
            name,
            'shell-http',
            `${label} sends a request hintgate cannot read`,
          ),
        ];
      const found = embedded(result, name, 'shell-http', label);
      return [{ ...found, hints: { ...found.hints, openWorldHint: true } }];
    }
  }
}

function argvFindings(
  words: readonly ShellWord[],
  label: string,
  nesting: number,
  hops: number,
): Finding[] {
  const first = words[0];
  if (first === undefined) return [];
  if (hops > MAX_SHELL_NESTING) {
    return [
      finding(
        CONSERVATIVE,
        first.text,
        'shell-too-deep',
        `${label} wraps commands too deeply to read`,
      ),
    ];
  }
  if (!first.literal) {
    return [
      finding(
        CONSERVATIVE,
        first.text,
        'shell-dynamic',
        `${label} runs a command whose name is only known when it runs (\`${first.text}\`)`,
      ),
    ];
  }
  const slash = first.text.lastIndexOf('/');
  const name = first.text.slice(slash + 1);
  if (slash >= 0 && !SYSTEM_DIRS.has(first.text.slice(0, slash))) {
    return [
      finding(
        CONSERVATIVE,
        first.text,
        'shell-program',
        `${label} runs the program \`${first.text}\`, which hintgate cannot see`,
      ),
    ];
  }
  const handler = handlerFor(name);
  if (handler === undefined) {
    return [
      finding(
        CONSERVATIVE,
        name,
        'shell-unknown',
        `${label} runs \`${name}\`, which is not a command hintgate knows`,
      ),
    ];
  }
  const args = words.slice(1);
  const result = handler({ name, args, texts: args.map((word) => word.text) });
  const outcomes: readonly Outcome[] = Array.isArray(result) ? result : [result as Outcome];
  return outcomes.flatMap((outcome) => outcomeFindings(outcome, name, label, nesting, hops));
}

function commandFindings(
  command: ShellCommand,
  base: number,
  prefix: string | undefined,
): Finding[] {
  const where = command.nesting > base ? ' (in a command substitution)' : '';
  const shown = `shell \`${excerpt(command.source)}\`${where}`;
  const label = prefix === undefined ? shown : `${prefix}: ${shown}`;
  const findings: Finding[] = [];
  for (const redirect of command.redirects) {
    const found = redirectFinding(redirect, label);
    if (found !== undefined) findings.push(found);
  }
  if (command.words.length > 0)
    findings.push(...argvFindings(command.words, label, command.nesting, 0));
  else if (findings.length === 0)
    findings.push(
      finding(
        READ,
        'assignment',
        'shell-assignment',
        `${label} only sets shell variables or opens files to read`,
      ),
    );
  return findings;
}

function scriptFindings(script: string, nesting: number, prefix?: string): Finding[] {
  const parsed = parseShell(script, nesting);
  const findings = parsed.commands.flatMap((command) => commandFindings(command, nesting, prefix));
  if (parsed.tooDeep) {
    findings.push(
      finding(
        CONSERVATIVE,
        'nesting',
        'shell-too-deep',
        `shell \`${excerpt(script)}\` nests commands too deeply to read`,
      ),
    );
  }
  return findings;
}

/**
 * Classifies a shell command line (POSIX sh, as `sh -c` would run it) for one call: every
 * command it may run, including those in `$(…)`, backticks, pipes, `&&`/`||`/`;` lists,
 * subshells, unquoted here-documents, `sh -c '…'`, `eval`, `sudo`, `env`, `xargs`,
 * `find -exec` and `ssh host '…'`, plus its redirections (`>` overwrites: destructive; `>>`
 * appends: additive); the worst per field. Quoted text is data (`echo "rm -rf /"` only
 * prints). `psql -c`, `mysql -e` and `sqlite3 db '…'` are read with the SQL classifier,
 * `curl`/`wget`/HTTPie with the HTTP method table; those reach an open world. Unknown
 * commands, programs run by path and commands named at run time are conservative, with a
 * reason naming them. `undefined` for a line with no command.
 *
 * @example classifyShell('ls -la && git status')?.annotations.readOnlyHint // true
 */
export function classifyShell(command: string): ClassifierResult | undefined {
  return combineFindings(scriptFindings(command, 0));
}
