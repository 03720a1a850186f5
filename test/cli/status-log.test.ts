import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStatusLog } from '../../src/cli/status-log.js';
import { scratchDir } from '../helpers/config.js';

describe('openStatusLog', () => {
  it('appends timed lines to <dataDir>/logs/gateway.log, private to its owner', () => {
    const dataDir = join(scratchDir(), 'data');
    const log = openStatusLog(dataDir);
    log.write('server "memory" is down: stderr: Error: Cannot find module \'x\'');
    log.write('two\nlines');
    expect(log.path).toBe(join(dataDir, 'logs', 'gateway.log'));
    expect(statSync(log.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'logs')).mode & 0o777).toBe(0o700);
    const lines = readFileSync(log.path, 'utf8').split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT\\S+Z \\[${process.pid}\\] server "memory" is down: stderr: Error: Cannot find module 'x'$`,
      ),
    );
    expect(lines.slice(1, 3)).toEqual([expect.stringMatching(/ two$/), '  lines']);
    // Opened again (a restart): appended to, not replaced.
    openStatusLog(dataDir).write('again');
    expect(readFileSync(log.path, 'utf8')).toContain('Cannot find module');
  });

  it('stays bounded: past the limit the file becomes gateway.log.1 and a new one starts', () => {
    const dataDir = scratchDir();
    const log = openStatusLog(dataDir, { maxBytes: 1000 });
    for (let index = 0; index < 100; index++) log.write(`line ${index} ${'x'.repeat(40)}`);
    const current = readFileSync(log.path, 'utf8');
    const previous = readFileSync(`${log.path}.1`, 'utf8');
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(1000);
    expect(Buffer.byteLength(previous)).toBeLessThanOrEqual(1000);
    expect(current).toContain('line 99 ');
    expect(previous).not.toContain('line 99 ');
    expect(existsSync(`${log.path}.2`)).toBe(false);
  });

  it('reports once that it cannot write, and never throws', () => {
    const problems: string[] = [];
    // A data directory that is a file: the logs folder cannot be made.
    const file = join(scratchDir(), 'not-a-directory');
    writeFileSync(file, '');
    const log = openStatusLog(file, { onError: (message) => problems.push(message) });
    log.write('one');
    log.write('two');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^cannot write .*not-a-directory\/logs\/gateway\.log: /);
  });
});
