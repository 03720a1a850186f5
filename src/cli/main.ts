#!/usr/bin/env node
/**
 * The `hintgate` executable: runs the command line from the bundle the build made of
 * `program.js`, with V8's code cache (`code-cache.ts`), or from the modules when there is no
 * bundle as new as they are. V8 optimizes its functions sooner than Node's default (`jit.ts`).
 */
import { fileURLToPath } from 'node:url';
import { bundleBeside, codeCacheDir, runBundle } from './code-cache.js';
import { tierUpSooner } from './jit.js';
import type * as Program from './program.js';

tierUpSooner(process.execArgv);

const bundle = bundleBeside(fileURLToPath(import.meta.url), process.env);
const program: typeof Program =
  bundle === undefined
    ? await import('./program.js')
    : (runBundle(bundle, { cacheDir: codeCacheDir(process.env) }) as typeof Program);
process.exitCode = await program.main(process.argv);
