/**
 * A template of the embedded database: an empty cluster, as PGlite's `initdb` makes it, kept
 * as a gzipped tar archive (PGlite's own `dumpDataDir` format, about 4.5 MB). Creating a
 * database runs a second PostgreSQL beside the first, about 700 MiB for a few seconds; a
 * first run that unpacks the template (a fraction of a second) opens the database as any
 * later run does (about 160 MiB). `npm run build` makes it (`scripts/store-template.mjs`); it is
 * named by PGlite's version, so a template from another PGlite is never used, and without one
 * the database is created by `initdb` as before.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as PGliteModule from '@electric-sql/pglite';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { pgliteDriver } from './pglite-driver.js';
import { STDERR_TAIL_CHARS, STORE_ENV, STORE_NODE_FLAGS } from './pglite-worker.js';

// Named by a variable, as in pglite.ts: loaded only when a template is made.
const PGLITE_MODULE = '@electric-sql/pglite';

/** The version of the PGlite this code runs (its package.json, beside its entry point). */
function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve(PGLITE_MODULE);
  const manifest = join(dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * The template's file name for this PGlite and this schema:
 * `pglite-template-<PGlite version>-schema<last migration>.tar.gz`.
 */
export function templateFileName(): string {
  return `pglite-template-${pgliteVersion()}-schema${MIGRATIONS.at(-1)?.version ?? 0}.tar.gz`;
}

/** Where the built package keeps its template: beside this module (`dist/store/`). */
export function bundledTemplate(): string {
  return join(dirname(fileURLToPath(import.meta.url)), templateFileName());
}

/**
 * Makes a template at `path`: PGlite creates an empty database in memory, the store's
 * migrations make its tables (a first run that unpacks it has none to run: 0.1 s and 0.15 s
 * of CPU less), and it is archived. Written aside and renamed into place, so a reader never
 * sees half of one.
 */
export async function makeTemplate(path: string): Promise<void> {
  const { PGlite } = (await import(PGLITE_MODULE)) as typeof PGliteModule;
  const db = await PGlite.create();
  try {
    await migrate(pgliteDriver(db, 'the store template', { release: () => undefined }));
    const archive = await db.dumpDataDir('gzip');
    const aside = `${path}.${process.pid}.tmp`;
    writeFileSync(aside, Buffer.from(await archive.arrayBuffer()));
    renameSync(aside, path);
  } finally {
    await db.close();
  }
}

/**
 * Unpacks the template at `template` as the database directory `into` (which must not exist
 * or be empty): unpacked beside it, then renamed into place, so a failure leaves no half
 * database that PGlite would take for a whole one. Directories are made 0700 and files 0600.
 * Throws when the archive cannot be read; `into` is then as before.
 *
 * The unpacking runs in a process of its own (`execPath`, the store process's options) that
 * exits when done: in the gateway's, zlib's buffers and threads left it about 35 MiB larger
 * for good; a process of its own returns them at once, before the store's starts.
 */
export async function unpackTemplate(
  template: string,
  into: string,
  execPath: string = process.execPath,
): Promise<void> {
  // What an unpacking cut short (a gateway killed meanwhile) left is removed first.
  const parent = dirname(into);
  const leftover = `${basename(into)}.template-`;
  for (const name of readdirSync(parent).filter((entry) => entry.startsWith(leftover)))
    rmSync(join(parent, name), { recursive: true, force: true });
  const aside = `${into}.template-${process.pid}`;
  mkdirSync(aside, { mode: 0o700 });
  try {
    await runUnpacker(execPath, template, aside);
    if (!existsSync(join(aside, 'PG_VERSION'))) throw new Error('the archive holds no database');
    if (existsSync(into) && readdirSync(into).length === 0) rmSync(into, { recursive: true });
    renameSync(aside, into);
  } catch (error) {
    rmSync(aside, { recursive: true, force: true });
    throw error;
  }
}

/** Runs {@link UNPACK_SOURCE}; rejects with what it wrote to stderr when it fails. */
function runUnpacker(execPath: string, template: string, into: string): Promise<void> {
  const tar = createRequire(import.meta.url).resolve('tar');
  return new Promise((resolve, reject) => {
    const child = spawn(execPath, [...STORE_NODE_FLAGS, '-e', UNPACK_SOURCE, tar, template, into], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...STORE_ENV },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(stderr.trim() || `the unpacking ended with ${signal ?? code}`));
    });
  });
}

/**
 * The unpacker: plain CommonJS run by `node -e <source> <tar module> <archive> <dir>` (no
 * build step, so the same code runs from the compiled package and under the test runner). It
 * extracts the gzipped archive with `tar` (npm's own), regular files and directories only,
 * no name leaving `dir` (`tar`'s default; the leading "/" `dumpDataDir` writes is dropped),
 * modes owner-only (umask 077). A damaged archive fails: any warning but that one counts. On
 * failure it writes why to stderr and exits with 1.
 *
 * `tar`'s synchronous extraction: the process has nothing else to do, and its streaming one
 * writes the archive's 40 MB in small asynchronous steps: 0.8-0.9 s and 1 s of CPU where the
 * synchronous one takes 0.25-0.35 s and 0.4 s, on every first run.
 */
const UNPACK_SOURCE = `
const [tarModule, archive, dir] = process.argv.slice(1);
process.umask(0o077);
const problems = [];
const fail = (why) => {
  process.stderr.write(why);
  process.exit(1);
};
try {
  require(tarModule).x({
    file: archive,
    cwd: dir,
    sync: true,
    noChmod: true,
    onwarn: (code, message) => {
      if (code !== 'TAR_ENTRY_INFO') problems.push(message);
    },
    filter: (_path, entry) => entry.type === 'File' || entry.type === 'Directory',
  });
} catch (error) {
  fail(String(error && error.message ? error.message : error));
}
problems.length === 0 ? process.exit(0) : fail(problems.join('; '));
`;
