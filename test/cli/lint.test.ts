import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lintTool } from '../../src/cli/run-lint.js';
import { toCatalogEntry, toToolRecord } from '../../src/gateway/catalog-entry.js';
import { META_TOOLS } from '../../src/gateway/meta-tools/index.js';
import type { JsonObject } from '../../src/mcp/json-rpc.js';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { CLI, fixture } from '../helpers/paths.js';
import { preparedDataDir } from '../store/helpers/harness.js';

const node = JSON.stringify(process.execPath);

describe('lintTool', () => {
  it('reports declared, inferred, missing hints, errors and conflicts of one tool', () => {
    const result = lintTool(
      {
        name: 'delete_repo',
        description: 'Deletes a repository.',
        annotations: { readOnlyHint: true, destructiveHint: true },
      },
      'untrusted',
    );
    expect(result.declared).toEqual({ readOnlyHint: true, destructiveHint: true });
    expect(result.inferred['destructiveHint']).toBe(true);
    expect(result.missing).toEqual(['openWorldHint']);
    expect(result.errors.map((error) => error.code)).toEqual(['read-only-and-destructive']);
    expect(result.conflicts).toEqual([
      expect.objectContaining({ field: 'readOnlyHint', declared: true }),
    ]);
  });

  it('does not ask a read-only tool for hints that have no meaning for it, and trusts a trusted server', () => {
    const result = lintTool(
      { name: 'delete_repo', annotations: { readOnlyHint: true, openWorldHint: false } },
      'trusted',
    );
    expect(result.missing).toEqual([]);
    expect(result.conflicts).toEqual([]);
  });
});

describe('lintTool notes', () => {
  it('reports a weak disagreement as a note, not a conflict', () => {
    const result = lintTool(
      {
        name: 'updateTeam',
        description: 'Update a team.',
        annotations: { readOnlyHint: false, destructiveHint: false },
      },
      'untrusted',
    );
    expect(result.conflicts).toEqual([]);
    expect(result.notes).toEqual([
      expect.objectContaining({ field: 'destructiveHint', declared: false, inferred: true }),
    ]);
  });
});

/** A tool as a hintgate gateway lists it (the catalog's own listed form). */
function throughGateway(server: string, tool: JsonObject): JsonObject {
  const record = toToolRecord(server, tool, { trust: 'untrusted' });
  if (record === undefined) throw new Error('no record');
  return toCatalogEntry(record, `${server}_${String(tool['name'])}`).listed;
}

describe('lintTool of a tool listed by a hintgate gateway', () => {
  it('checks what the server declared, not the values hintgate filled in', () => {
    const result = lintTool(
      throughGateway('fs', {
        name: 'echo_text',
        description: 'Returns the text.',
        annotations: { readOnlyHint: true },
      }),
      'untrusted',
    );
    expect(result.name).toBe('fs_echo_text');
    expect(result.declared).toEqual({ readOnlyHint: true });
    expect(result.warnings).toEqual([]);
    expect(result.missing).toEqual([]);
    expect(result.through).toMatchObject({
      server: 'fs',
      namespacedName: 'fs.echo_text',
      own: false,
      filled: {
        title: { value: 'Echo Text', source: 'inferred' },
        destructiveHint: { source: expect.any(String) },
        idempotentHint: { source: expect.any(String) },
      },
    });
    // Inference reads the tool's own name: "fs" is no word of it.
    expect(result.notes).toEqual([]);
  });

  it('still finds the conflict of a declaration hintgate overruled', () => {
    const result = lintTool(
      throughGateway('db', {
        name: 'delete_table',
        description: 'Deletes a table.',
        annotations: { readOnlyHint: true },
      }),
      'untrusted',
    );
    expect(result.declared).toEqual({ readOnlyHint: true });
    expect(result.through?.filled['readOnlyHint']).toEqual({ value: false, source: 'inferred' });
    expect(result.conflicts).toEqual([
      expect.objectContaining({ field: 'readOnlyHint', declared: true }),
    ]);
  });

  it("reports nothing about hintgate's own meta tools", () => {
    for (const meta of META_TOOLS) {
      const result = lintTool(meta.entry.listed, 'untrusted');
      expect(result.through?.own).toBe(true);
      expect([...result.warnings, ...result.errors, ...result.conflicts, ...result.notes]).toEqual(
        [],
      );
    }
  });
});

describe('hintgate lint', () => {
  it("lints a gateway's own endpoint: its servers' declarations, not what it filled in", async () => {
    const config = writeConfig(scratchDir(), { echo: fixtureServer('echo') });
    const run = await runCli([
      'lint',
      '--stdio',
      `${node} ${JSON.stringify(CLI)} serve --config ${JSON.stringify(config)}`,
    ]);
    expect(run.stdout).toMatch(
      /^echo_echo \(echo\.echo, through hintgate\)\n {2}declared: {2}title="Echo text" readOnlyHint=true openWorldHint=false \(by server "echo"\)\n {2}filled: {4}destructiveHint=\S+ \(\S+\) idempotentHint=/m,
    );
    expect(run.stdout).toMatch(/^echo_delete_all_records .*\n {2}declared: {2}readOnlyHint=true /m);
    expect(run.stdout).toMatch(
      /^10 tool\(s\): 10 fully annotated, 0 missing hints, 0 error\(s\), 0 warning\(s\), 1 conflict\(s\), 0 note\(s\), 0 suspicious text\(s\)$/m,
    );
    expect(run.stdout).toMatch(
      /^10 tool\(s\) listed by a hintgate gateway: checked as their servers declared them; \d+ value\(s\) filled in by hintgate/m,
    );
    expect(run.code).toBe(1);
  }, 120_000);

  it('says so when a gateway lists no tool of its servers, after waiting for them within --timeout', async () => {
    const config = writeConfig(
      scratchDir(),
      {
        slow: fixtureServer('hang', ['--mode', 'silent'], {
          timeouts: { connectMs: 60_000, closeGraceMs: 300 },
        }),
      },
      // An initialized store: a new one takes seconds to create on a loaded machine.
      { gateway: { startupWaitMs: 0 }, dataDir: await preparedDataDir() },
    );
    // The whole timeout is waited for: long enough for the gateway to start on a loaded machine.
    const run = await runCli([
      'lint',
      '--timeout',
      '6000',
      '--stdio',
      `${node} ${JSON.stringify(CLI)} serve --config ${JSON.stringify(config)}`,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'the gateway lists no tool of its servers: they are still starting or down (its log, <dataDir>/logs/gateway.log, says why); lint one with --config <file> --server <name>',
    );
  }, 120_000);

  it('lints a stdio server: a block per tool, a summary, exit 1 for a conflict', async () => {
    const run = await runCli(['lint', '--stdio', `${node} ${fixture('echo')}`]);
    expect(run.stdout).toMatch(/^delete_all_records\n {2}declared: {2}readOnlyHint=true\n/m);
    expect(run.stdout).toMatch(/ {2}conflict: {2}declared read-only, but .*"delete"/);
    expect(run.stdout).toMatch(
      /^add\n {2}declared: {2}\(none\)\n {2}inferred: .*\n {2}missing: {3}readOnlyHint, destructiveHint, idempotentHint, openWorldHint$/m,
    );
    expect(run.stdout).toMatch(
      /^10 tool\(s\): 1 fully annotated, 9 missing hints, 0 error\(s\), 0 warning\(s\), 1 conflict\(s\), 0 note\(s\), 0 suspicious text\(s\)$/m,
    );
    expect(run.code).toBe(1);
  });

  it('reports suspicious text in a poisoned description, exit 1', async () => {
    const dir = scratchDir();
    const version = `${dir}/version.txt`;
    writeFileSync(version, '2');
    const run = await runCli([
      'lint',
      '--json',
      '--stdio',
      `${node} ${fixture('rugpull')} --version-file ${version}`,
    ]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    const getNote = report.tools.find((tool: { name: string }) => tool.name === 'get_note');
    expect(getNote.suspicious.map((finding: { kind: string }) => finding.kind).sort()).toEqual([
      'hidden-instructions',
      'secrecy',
      'sensitive-file',
    ]);
    expect(report.summary.suspicious).toBe(3);
  });

  it('prints JSON and exits 0 for a server without errors or conflicts', async () => {
    const run = await runCli(['lint', '--json', '--stdio', `${node} ${fixture('modern')}`]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.summary).toEqual({
      tools: 3,
      complete: 1,
      missingHints: 2,
      errors: 0,
      warnings: 0,
      conflicts: 0,
      notes: 0,
      suspicious: 0,
    });
    expect(report.tools[0]).toMatchObject({
      name: 'lookup',
      declared: { readOnlyHint: true, openWorldHint: false, futureHint: 'kept' },
      missing: [],
    });
  });

  it('lints a server from a config, and one over HTTP', async () => {
    const config = writeConfig(scratchDir(), { gen: fixtureServer('generator', ['--tools', '4']) });
    const fromConfig = await runCli(['lint', '--config', config, '--server', 'gen', '--json']);
    expect(JSON.parse(fromConfig.stdout).summary.tools).toBe(4);
    const { spawn } = await import('node:child_process');
    const server = spawn(process.execPath, [fixture('echo'), '--http', '0'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const port = await new Promise<number>((resolve) =>
        server.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).port)),
      );
      const overHttp = await runCli(['lint', '--json', '--url', `http://127.0.0.1:${port}/mcp`]);
      expect(JSON.parse(overHttp.stdout).summary.tools).toBe(10);
    } finally {
      server.kill();
    }
  });

  it.each([
    [
      'a server that never answers',
      `${node} ${fixture('hang')}`,
      /did not complete the MCP handshake within 1500 ms/,
    ],
    [
      'a server that prints garbage',
      `${node} ${fixture('garbage')} --mode flood`,
      /does not speak JSON-RPC on stdout/,
    ],
    ['a missing binary', '/no/such/server --stdio', /command not found: "\/no\/such\/server"/],
    [
      'a server that exits at once',
      `${node} -e "process.stderr.write('boom\\n'); process.exit(4)"`,
      /the process exited \(code 4\); stderr: boom/,
    ],
  ])('fails clearly and in time on %s', async (_label, command, message) => {
    const run = await runCli(['lint', '--timeout', '1500', '--stdio', command]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(message);
    expect(run.ms).toBeLessThan(10_000);
  });

  it.each([
    [[], /give exactly one of/],
    [['--stdio', 'x', '--url', 'http://127.0.0.1:1/mcp'], /give exactly one of/],
    [['--config', 'nope.json'], /--config needs --server/],
    [['--stdio', 'x', '--timeout', 'soon'], /--timeout: expected a positive number/],
    [['--stdio', '"unterminated'], /unterminated " quote/],
  ])('rejects usage %j with exit 2', async (args, message) => {
    const run = await runCli(['lint', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
