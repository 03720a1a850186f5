#!/usr/bin/env node
/**
 * The `hintgate` executable: runs the command line from the bundle the build made of
 * `program.js`, with V8's code cache (`code-cache.ts`), or from the modules when there is no
 * bundle as new as they are. V8 optimizes the functions of a gateway's calls sooner than
 * Node's default has it (`jit.ts`).
 */
import { fileURLToPath } from 'node:url';
import { bundleBeside, codeCacheDir, runBundle } from './code-cache.js';
import { budgetForStart, tierUpSooner } from './jit.js';
import type * as Program from './program.js';

// The bundle is compiled under the budget of calls, which its code cache is made under; it
// runs under Node's own until a gateway has started.
tierUpSooner(process.execArgv);
const bundle = bundleBeside(fileURLToPath(import.meta.url), process.env);
let program: typeof Program;
if (bundle === undefined) {
  budgetForStart();
  program = await import('./program.js');
} else {
  program = runBundle(bundle, {
    cacheDir: codeCacheDir(process.env),
    compiled: budgetForStart,
  }) as typeof Program;
}
process.exitCode = await program.main(process.argv);
