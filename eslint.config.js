// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

/**
 * Dependencies point down: cli, http -> gateway -> front, downstream, mcp, store -> config,
 * core. front and downstream are siblings that meet only in the gateway; mcp (the public
 * library and the wire pieces) sits under both. Each layer may not import the layers above
 * it or beside it (src/core has its own, stricter fence below).
 */
function layerFences() {
  const above = {
    config: ['mcp', 'downstream', 'front', 'store', 'gateway', 'http', 'cli'],
    mcp: ['config', 'downstream', 'front', 'store', 'gateway', 'http', 'cli'],
    downstream: ['front', 'store', 'gateway', 'http', 'cli'],
    front: ['downstream', 'store', 'gateway', 'http', 'cli'],
    store: ['mcp', 'downstream', 'front', 'gateway', 'http', 'cli'],
    gateway: ['http', 'cli'],
    http: ['cli'],
  };
  return Object.entries(above).map(([layer, banned]) => ({
    files: [`src/${layer}/**/*.ts`, `src/${layer}/**/*.tsx`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: banned.map((name) => ({
            group: [`**/${name}/**`, `../${name}/*`, `../../${name}/*`],
            message: `src/${layer} may not import src/${name}: dependencies point down (cli, http -> gateway -> front, downstream, mcp, store -> config, core).`,
          })),
        },
      ],
    },
  }));
}

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', 'eslint.config.js', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The core is pure: no Node built-ins, no I/O, nothing from the layers above it.
    files: ['src/core/**/*.ts', 'src/core/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'src/core is pure: no Node built-ins.' },
            {
              group: [
                '**/mcp/**',
                '**/downstream/**',
                '**/front/**',
                '**/gateway/**',
                '**/store/**',
                '**/http/**',
                '**/cli/**',
                '**/config/**',
              ],
              message: 'src/core imports nothing from the layers above it.',
            },
            {
              group: [
                '@modelcontextprotocol/*/stdio',
                '@modelcontextprotocol/sdk/*/stdio.js',
                '@modelcontextprotocol/sdk/*/streamableHttp.js',
              ],
              message: 'No SDK transports in src/core.',
            },
          ],
        },
      ],
    },
  },
  ...layerFences(),
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Plain JavaScript (scripts, fixture servers): checked without type information.
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node },
    },
  },
  {
    // The dashboard's script runs in the browser.
    files: ['src/web/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  prettier,
);
