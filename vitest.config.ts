import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test files spend their time waiting on the processes they start (gateways, servers,
    // stores, Chromium): three files at a time even on two cores (vitest's default there is
    // one). On two cores, two at a time left them 16% idle; three took the suite from 440 s
    // to 390 s, with the same CPU time.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    globalSetup: ['test/setup/temp-dir.ts'],
  },
});
