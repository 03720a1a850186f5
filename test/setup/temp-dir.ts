/**
 * Every test run gets one temporary directory of its own, removed when the run ends: tests,
 * and the gateways and servers they start, make their scratch directories (embedded stores of
 * tens of megabytes each) under `os.tmpdir()`, which reads `TMPDIR`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env['TMPDIR'];
  const dir = mkdtempSync(join(tmpdir(), 'hintgate-run-'));
  // Set before the test processes start, so that they and what they spawn inherit it.
  process.env['TMPDIR'] = dir;
  return () => {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
