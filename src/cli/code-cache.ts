/**
 * How the `hintgate` executable loads the CLI fast. The build bundles `program.js` and
 * everything it loads (the SDKs, zod, hono: some 400 modules) into one CommonJS file,
 * `hintgate.cjs` (`scripts/bundle-cli.mjs`), and the executable compiles it with V8's code
 * cache: the bytecode of every function earlier runs compiled, kept per bundle location in
 * the user's cache directory. Loading the modules one by one cost a gateway start about
 * 200 ms of CPU, spent while its servers start on the same cores; the bundle saves the
 * resolving and reading, the cache the parsing and compiling.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** The bundle's file name, beside `main.js`. */
export const BUNDLE_NAME = 'hintgate.cjs';

/** The first line of a bundle: this, then the SHA-256 of the rest of the file. */
export const BUNDLE_STAMP = '// hintgate bundle ';

/** The first line of a cache file; the V8 data follows. */
const CACHE_HEADER = 'hintgate code cache 1';

/** A cache is written again when the functions compiled since make it this much larger. */
const GROWTH = 1.05;

/** Where the launcher leaves {@link codeCacheCheckpoint}'s work for the bundle to call. */
const CHECKPOINT = Symbol.for('hintgate.codeCacheCheckpoint');

/**
 * The bundle beside `main.js` (at `mainPath`), if it is there and not older
 * than the compiled modules: a build (`npm run build`) makes both, a bare `tsc` the modules
 * only, and those then run instead of a bundle made of older ones. `HINTGATE_BUNDLE=off`
 * runs the modules.
 */
export function bundleBeside(
  mainPath: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (env['HINTGATE_BUNDLE'] === 'off') return undefined;
  const bundle = join(dirname(mainPath), BUNDLE_NAME);
  const built = mtimeOf(bundle);
  if (built === undefined) return undefined;
  // tsc rewrites its build info whenever it emits; a package has none.
  const compiled = mtimeOf(join(dirname(mainPath), '..', '.tsbuildinfo'));
  return compiled !== undefined && compiled > built ? undefined : bundle;
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Where code caches are kept: `HINTGATE_CODE_CACHE` (a directory, or `off` for none), else
 * `$XDG_CACHE_HOME/hintgate`, else `~/.cache/hintgate`; undefined for none.
 */
export function codeCacheDir(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const setting = env['HINTGATE_CODE_CACHE'];
  if (setting === 'off') return undefined;
  if (setting !== undefined && setting !== '') return setting;
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg !== undefined && xdg !== '') return join(xdg, 'hintgate');
  try {
    const home = homedir();
    return home === '' ? undefined : join(home, '.cache', 'hintgate');
  } catch {
    return undefined;
  }
}

/** Options of {@link runBundle}. */
export interface RunBundleOptions {
  /** Where caches are kept; undefined: none is read or written. */
  readonly cacheDir: string | undefined;
  /** Called once the bundle is compiled (its cache taken or refused), before it runs. */
  readonly compiled?: () => void;
}

/**
 * Runs a CommonJS bundle as Node would require it, compiled with its code cache when one
 * matches, and returns its exports. The cache file is the bundle's own (named after its
 * path, one per installation, and Node's options: {@link cacheKey}), is read only if this
 * user owns it and no one else can write it, and holds the bundle's stamp, Node's version
 * and the architecture; V8 checks its own version and flags. A missing or refused cache is
 * written at exit, or at the run's {@link codeCacheCheckpoint} if it comes first; at the
 * checkpoint, a cache that was used is written again if the functions compiled since make it
 * larger by a twentieth, so that the cache a short command left grows to what a gateway's
 * start compiles.
 */
export function runBundle(bundle: string, { cacheDir, compiled }: RunBundleOptions): unknown {
  const source = readFileSync(bundle, 'utf8');
  const stampEnd = source.indexOf('\n');
  const stamp = source.startsWith(BUNDLE_STAMP)
    ? source.slice(BUNDLE_STAMP.length, stampEnd)
    : undefined;
  const cacheFile =
    cacheDir === undefined || stamp === undefined
      ? undefined
      : join(cacheDir, `cli-${cacheKey(bundle, process.execArgv, process.env['NODE_OPTIONS'])}.v8`);
  const header = `${CACHE_HEADER} ${stamp} ${process.version} ${process.arch}\n`;
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile, header);
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: bundle, ...(cachedData === undefined ? {} : { cachedData }) },
  );
  if (cacheFile !== undefined) {
    // The bytes of a cache V8 took; none when there was none, or V8 refused it (other flags).
    const used = script.cachedDataRejected === true ? undefined : cachedData?.length;
    saveLater(script, cacheFile, header, used);
  }
  compiled?.();
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  wrapper.call(
    module.exports,
    module.exports,
    createRequire(bundle),
    module,
    bundle,
    dirname(bundle),
  );
  return module.exports;
}

/**
 * Tells the launcher that the run has compiled what it needs (`serve`: its start has settled),
 * so that the code cache is written now if it is missing or has grown (see {@link runBundle}).
 * Does nothing in a run from the modules, or when already done.
 */
export function codeCacheCheckpoint(): void {
  const checkpoint = (globalThis as Record<symbol, unknown>)[CHECKPOINT];
  if (typeof checkpoint === 'function') (checkpoint as () => void)();
}

/**
 * What names a bundle's cache file: its path (one file per installation) and the options
 * Node runs with, since V8 refuses a cache made under other flags (`--max-old-space-size`,
 * say): a gateway run with them and one without each keep their own, rather than replacing
 * each other's at every start.
 */
export function cacheKey(
  bundle: string,
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string {
  return createHash('sha256')
    .update(JSON.stringify([bundle, execArgv, nodeOptions ?? '']))
    .digest('hex')
    .slice(0, 16);
}

/** The V8 data of a cache file, if it is this user's alone and made for this bundle and Node. */
function readCache(file: string, header: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    // Its code runs as this user: a file someone else owns or may write is not read.
    const stat = fstatSync(fd);
    if (process.getuid !== undefined && stat.uid !== process.getuid()) return undefined;
    if ((stat.mode & 0o022) !== 0) return undefined;
    const data = readFileSync(fd);
    const head = Buffer.from(header);
    if (data.length <= head.length || !data.subarray(0, head.length).equals(head)) return undefined;
    return data.subarray(head.length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the script's cache (every function compiled so far) at the run's checkpoint or at
 * exit, once: at exit only when there was none (`used` undefined: a short command does not
 * pay for the serializing), at the checkpoint also when it grew past {@link GROWTH} times the
 * `used` bytes. Written aside and renamed, so a reader never sees half of one.
 */
function saveLater(script: Script, file: string, header: string, used: number | undefined): void {
  let saved = false;
  const save = (): void => {
    if (saved) return;
    saved = true;
    process.off('exit', save);
    delete (globalThis as Record<symbol, unknown>)[CHECKPOINT];
    const aside = `${file}.${process.pid}.tmp`;
    try {
      const data = script.createCachedData();
      if (used !== undefined && data.length <= used * GROWTH) return;
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(aside, Buffer.concat([Buffer.from(header), data]), { mode: 0o600 });
      renameSync(aside, file);
    } catch {
      // No cache costs the next start its compiling, nothing else.
      try {
        unlinkSync(aside);
      } catch {
        // Never written.
      }
    }
  };
  (globalThis as Record<symbol, unknown>)[CHECKPOINT] = save;
  if (used === undefined) process.once('exit', save);
}
