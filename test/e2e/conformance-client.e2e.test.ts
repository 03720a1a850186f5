import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { preparedDataDir } from '../store/helpers/harness.js';
import type { SuiteRelease } from '../helpers/conformance.js';
import { checksWith, passedCount, runSuite, suiteCli } from '../helpers/conformance.js';
import { scratchDir } from '../helpers/config.js';
import { ROOT, requireBuiltCli } from '../helpers/paths.js';

/**
 * The official MCP conformance suite's client scenarios (all but authorization), with
 * hintgate as the client of the suite's test server: the suite runs
 * `test/fixtures/conformance-client.mjs <url>`, which starts the built hintgate with that URL
 * as its downstream server and drives it with an SDK client the way each scenario expects;
 * the suite judges every request hintgate made. Each scenario passes: no check fails.
 */

interface ClientScenario {
  readonly release: SuiteRelease;
  readonly scenario: string;
  readonly args: readonly string[];
}

const STABLE = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];
const MODERN = [
  'tools_call',
  'request-metadata',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
];

const SCENARIOS: readonly ClientScenario[] = [
  ...STABLE.map((scenario) => ({ release: 'stable' as const, scenario, args: [] })),
  ...MODERN.map((scenario) => ({
    release: 'alpha' as const,
    scenario,
    args: ['--spec-version', '2026-07-28'],
  })),
];

const DRIVER = join(ROOT, 'test', 'fixtures', 'conformance-client.mjs');
const dir = scratchDir('hintgate-conformance-client-');

beforeAll(() => {
  for (const release of ['stable', 'alpha'] as const) suiteCli(release);
  requireBuiltCli();
});

describe('hintgate as the client of the conformance suite', () => {
  it.each(SCENARIOS)(
    '$scenario ($release): every check passes',
    async ({ release, scenario, args }) => {
      const run = await runSuite(
        suiteCli(release),
        [
          'client',
          '--command',
          `${process.execPath} ${DRIVER}`,
          '--scenario',
          scenario,
          '--timeout',
          '60000',
          ...args,
        ],
        join(dir, `${release}-${scenario}`),
        // A data directory holding an initialized store: the gateway starts in a second.
        { HINTGATE_CONFORMANCE_DATA_DIR: await preparedDataDir() },
      );
      const checks = run.results.get(scenario);
      expect(checks, `no results for ${scenario}:\n${run.output}`).toBeDefined();
      expect(checksWith(run.results, 'FAILURE')).toEqual([]);
      expect(passedCount(run.results)).toBeGreaterThan(0);
    },
    120_000,
  );
});
