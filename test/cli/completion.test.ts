import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratchDir } from '../helpers/config.js';
import { ROOT } from '../helpers/paths.js';

/** True when the shell is installed (zsh and fish: `apt-get install zsh fish`). */
function installed(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0']).status === 0;
}

/** Runs a shell command line in `cwd` and returns its stdout (failing loudly otherwise). */
function shell(command: string, args: readonly string[], cwd: string): string {
  const run = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) {
    throw new Error(`${command} exited ${String(run.status)}: ${run.stderr}${run.stdout}`);
  }
  return run.stdout;
}

/** A folder with a file and a directory to complete. */
function folder(): string {
  const dir = scratchDir();
  writeFileSync(join(dir, 'hintgate.config.yaml'), 'mcpServers: {}\n');
  mkdirSync(join(dir, 'data'));
  return dir;
}

const SHELLS = ['bash', 'zsh', 'fish'] as const;
const scripts: Partial<Record<(typeof SHELLS)[number], string>> = {};

beforeAll(async () => {
  const dir = scratchDir();
  for (const name of SHELLS) {
    const run = await runCli(['completion', name]);
    expect(run.code, run.stderr).toBe(0);
    scripts[name] = join(dir, `hintgate.${name}`);
    writeFileSync(scripts[name], run.stdout);
  }
}, 60_000);

describe('hintgate completion bash', () => {
  /** What the completion function offers for the words typed (the last one being completed). */
  function complete(dir: string, ...words: string[]): string[] {
    const script = `source ${JSON.stringify(scripts.bash)}
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
_hintgate_completion
printf '%s\\n' "\${COMPREPLY[@]}"`;
    return shell('bash', ['--norc', '--noprofile', '-c', script], dir)
      .split('\n')
      .filter((line) => line !== '');
  }

  it('registers a completion function for hintgate in a real bash', () => {
    const out = shell(
      'bash',
      [
        '--norc',
        '--noprofile',
        '-c',
        `source ${JSON.stringify(scripts.bash)}; complete -p hintgate`,
      ],
      ROOT,
    );
    expect(out.trim()).toBe('complete -F _hintgate_completion hintgate');
  });

  it('offers commands, subcommands, options, option values and files from the command tree', () => {
    const dir = folder();
    expect(complete(dir, 'hintgate', '')).toEqual(
      expect.arrayContaining(['init', 'serve', 'tools', 'toolset', 'note', 'completion']),
    );
    expect(complete(dir, 'hintgate', 'tool')).toEqual(['tools', 'toolset']);
    expect(complete(dir, 'hintgate', 'toolset', 'e')).toEqual(['equip', 'export']);
    expect(complete(dir, 'hintgate', 'toolset', 'equip', '--')).toEqual(
      expect.arrayContaining(['--none', '--reset', '--config', '--data-dir', '--json', '--help']),
    );
    // Subcommands of the same name under different commands are told apart.
    expect(complete(dir, 'hintgate', 'override', 'set', '--')).toContain('--toolset');
    expect(complete(dir, 'hintgate', 'note', 'add', '--')).not.toContain('--toolset');
    // Option values: files, directories, choices; a value is skipped when walking the words.
    expect(complete(dir, 'hintgate', 'serve', '--config', '')).toEqual(
      expect.arrayContaining(['hintgate.config.yaml', 'data']),
    );
    expect(complete(dir, 'hintgate', 'serve', '--data-dir', '')).toEqual(['data']);
    expect(complete(dir, 'hintgate', 'serve', '--config', 'x', '--h')).toEqual([
      '--http',
      '--help',
    ]);
    expect(complete(dir, 'hintgate', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
    // A file argument.
    expect(complete(dir, 'hintgate', 'infer', 'hint')).toEqual(['hintgate.config.yaml']);
  });
});

describe('hintgate completion zsh', () => {
  it.skipIf(!installed('zsh'))('is a script zsh parses', () => {
    shell('zsh', ['-n', scripts.zsh as string], ROOT);
  });

  it.skipIf(!installed('zsh'))(
    "offers the command tree in a real interactive zsh's completion system",
    () => {
      const dir = folder();
      const capture = join(ROOT, 'test', 'fixtures', 'completion', 'zsh-capture.zsh');
      const matches = (line: string): string[] =>
        shell('zsh', ['-f', capture, scripts.zsh as string, line], dir)
          .split('\n')
          .map((match) => match.trim())
          .filter((match) => match !== '');
      expect(matches('hintgate tool')).toEqual(['tools', 'toolset']);
      expect(matches('hintgate toolset eq')).toEqual(['equip']);
      expect(matches('hintgate toolset equip --')).toEqual(
        expect.arrayContaining(['--none', '--reset', '--config', '--data-dir']),
      );
      expect(matches('hintgate note list -')).toEqual(expect.arrayContaining(['--json', '-c']));
      expect(matches('hintgate completion ')).toEqual(['bash', 'zsh', 'fish']);
      expect(matches('hintgate serve --config hint')).toEqual(['hintgate.config.yaml']);
    },
    60_000,
  );
});

describe('hintgate completion fish', () => {
  it.skipIf(!installed('fish'))('is a script fish parses', () => {
    shell('fish', ['-n', scripts.fish as string], ROOT);
  });

  it.skipIf(!installed('fish'))("offers the command tree through fish's complete -C", () => {
    const dir = folder();
    const complete = (line: string): string[] =>
      shell('fish', ['-c', `source ${scripts.fish}; complete -C ${JSON.stringify(line)}`], dir)
        .split('\n')
        .filter((row) => row !== '')
        .map((row) => row.split('\t')[0] as string);
    expect(complete('hintgate tool')).toEqual(['tools', 'toolset']);
    expect(complete('hintgate toolset eq')).toEqual(['equip']);
    expect(complete('hintgate toolset equip --')).toEqual(
      expect.arrayContaining(['--none', '--reset', '--config', '--data-dir']),
    );
    expect(complete('hintgate override l')).toEqual(['list']);
    expect(complete('hintgate toolset rules s')).toEqual(['set']);
    expect(complete('hintgate completion ')).toEqual(['bash', 'fish', 'zsh']);
    expect(complete('hintgate serve --config hint')).toEqual(['hintgate.config.yaml']);
  });
});
