import { spawn } from 'node:child_process';
import { ROOT, requireBuiltCli } from './paths.js';

/** What a CLI run produced. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs `hintgate <args>` to completion (killed after `timeoutMs`). */
export function runCli(
  args: readonly string[],
  {
    timeoutMs = 60_000,
    env = {},
    cwd = ROOT,
    command,
  }: {
    timeoutMs?: number;
    env?: Record<string, string>;
    cwd?: string;
    /** An executable to run instead of this checkout's built CLI (an installed bin). */
    command?: string;
  } = {},
): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    const [file, prefix] =
      command === undefined ? [process.execPath, [requireBuiltCli()]] : [command, []];
    const child = spawn(file, [...prefix, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `hintgate <args> --config <config> --json`, parsed; a failed run throws with its stderr. */
export async function cliJson<T>(config: string, ...args: string[]): Promise<T> {
  const run = await runCli([...args, '--config', config, '--json']);
  if (run.code !== 0)
    throw new Error(`hintgate ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}
