// Bundles the command line (dist/cli/program.js and every module it loads, dependencies
// included) into one CommonJS file, dist/cli/hintgate.cjs, which dist/cli/main.js runs with
// V8's code cache (see src/cli/code-cache.ts). Its first line is a stamp: the SHA-256 of the
// rest, which names the cache made for it.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'cli', 'hintgate.cjs');

/**
 * `import.meta.url` has no CommonJS counterpart: each module's becomes the URL of the file
 * it was bundled from, so that what it finds beside itself (the dashboard's files, the
 * store's template, package.json) is found from the bundle too.
 */
const moduleUrls = {
  name: 'module-urls',
  setup(build) {
    build.onLoad({ filter: /\.(c|m)?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const path = JSON.stringify(relative(dirname(outfile), args.path));
      return {
        contents: text.replaceAll('import.meta.url', `__hintgateModuleUrl(${path})`),
        loader: 'js',
      };
    });
  },
};

const result = await build({
  entryPoints: [join(root, 'dist', 'cli', 'program.js')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // What stays outside (Node's own modules, PGlite, an optional package) is required, not
  // imported: a script compiled from V8's code cache has no dynamic import in Node 20.
  supported: { 'dynamic-import': false },
  minifyWhitespace: true,
  minifySyntax: true,
  // PGlite runs in its own process from its package's files; pg's native binding is optional.
  external: ['@electric-sql/pglite', 'pg-native'],
  // Strict, as the modules were; then what each module's import.meta.url becomes (a module
  // may name its own `require`).
  banner: {
    js: "'use strict';\nconst __hintgateModuleUrl = (path) => require('node:url').pathToFileURL(require('node:path').join(__dirname, path)).href;",
  },
  plugins: [moduleUrls],
  logLevel: 'warning',
  write: false,
});
const code = result.outputFiles[0].text;
const stamp = createHash('sha256').update(code).digest('hex');
writeFileSync(outfile, `// hintgate bundle ${stamp}\n${code}`);
