import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import ts from 'typescript';
import type { StoreOptions } from '../../../src/store/store.js';

const ROOT = process.cwd();
const CACHE = join(ROOT, 'node_modules', '.cache', 'hintgate-store-test');
const SOURCES = ['src/core', 'src/store', 'test/store/fixtures'];

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// Builds of sources that have since changed; an hour old is old enough not to be in use.
function pruneOldBuilds(): void {
  if (!existsSync(CACHE)) return;
  for (const entry of readdirSync(CACHE)) {
    const path = join(CACHE, entry);
    if (entry.startsWith('child-') && Date.now() - statSync(path).mtimeMs > 3_600_000) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}

/**
 * Compiles the store (and the core it uses) plus the child fixture to JavaScript, once per
 * content: Node 20 cannot run TypeScript, and the child must run the real store code.
 * The output sits under node_modules/.cache so that `node_modules` packages resolve.
 */
export function buildChild(): string {
  const files = SOURCES.flatMap(tsFiles).sort();
  const hash = createHash('sha256');
  const sources = files.map((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    hash.update(file).update(text);
    return { file, text };
  });
  const out = join(CACHE, `child-${hash.digest('hex').slice(0, 16)}`);
  const entry = join(out, 'test/store/fixtures/store-child.js');
  if (existsSync(entry)) return entry;
  pruneOldBuilds();
  const building = `${out}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  for (const { file, text } of sources) {
    const { outputText } = ts.transpileModule(text, {
      fileName: file,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    });
    const target = join(building, relative('.', file).replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  try {
    renameSync(building, out);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return entry;
}

/** A running child: its process and a way to wait for a line it prints. */
export interface StoreChild {
  readonly process: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  /** Resolves with the first line (already printed or coming) that matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves when the process has exited, with its exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the child fixture with a command and store options. */
export function spawnStoreChild(
  command: string,
  options: StoreOptions,
  argument?: string,
): StoreChild {
  const args = [buildChild(), command, JSON.stringify(options), ...(argument ? [argument] : [])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of [...waiters]) wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const wake of [...waiters]) wake();
    }),
  );
  return {
    process: child,
    lines,
    exited,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.find((line) => pattern.test(line));
          if (found !== undefined) {
            finish();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            finish();
            reject(
              new Error(`child exited without printing ${pattern}: ${lines.join('\n')}\n${stderr}`),
            );
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `child did not print ${pattern} in ${timeoutMs} ms: ${lines.join('\n')}\n${stderr}`,
            ),
          );
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
