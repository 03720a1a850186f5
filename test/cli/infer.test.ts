import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratchDir } from '../helpers/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = `${root}dist/cli/main.js`;

function hintgate(args: string[], input?: string) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`);
  const run = spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('hintgate infer', () => {
  it('prints effective annotations per tool, in input order, declared over inferred', () => {
    const tools = [
      { name: 'delete_user', description: 'Delete a user account permanently' },
      { name: 'list_files', annotations: { title: 'Files', openWorldHint: false } },
    ];
    const { status, stdout } = hintgate(['infer'], JSON.stringify(tools));
    expect(status).toBe(0);
    const out = JSON.parse(stdout) as Record<string, unknown>[];
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({
      title: 'Delete User',
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(out[1]).toMatchObject({ title: 'Files', readOnlyHint: true, openWorldHint: false });
  });

  it('reads a tools/list result and explains sources, reasons and conflicts', () => {
    const result = {
      tools: [{ name: 'delete_repo', annotations: { readOnlyHint: true } }],
    };
    const { status, stdout } = hintgate(['infer', '--explain'], JSON.stringify(result));
    expect(status).toBe(0);
    const [tool] = JSON.parse(stdout) as Array<{
      readOnlyHint: boolean;
      _explain: {
        sources: Record<string, string>;
        reasons: Record<string, string>;
        conflicts: Array<{ field: string; declared: boolean }>;
      };
    }>;
    expect(tool?.readOnlyHint).toBe(false);
    expect(tool?._explain.sources['readOnlyHint']).toBe('inferred');
    expect(tool?._explain.conflicts[0]).toMatchObject({
      field: 'readOnlyHint',
      declared: true,
    });
    expect(tool?._explain.reasons['destructiveHint']).toContain('"delete"');
  });

  it('takes a trusted server at its word', () => {
    const tools = [{ name: 'delete_repo', annotations: { readOnlyHint: true } }];
    const { stdout } = hintgate(['infer', '--trusted'], JSON.stringify(tools));
    expect(JSON.parse(stdout)[0].readOnlyHint).toBe(true);
  });

  it('prints a table', () => {
    const { status, stdout } = hintgate(['infer', '--format', 'table'], '[{"name":"get_user"}]');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^tool\s+read-only\s+destructive/);
    expect(stdout).toMatch(/get_user\s+yes\*/);
  });

  it.each([
    ['not JSON', '{ "tools": [', /stdin: not valid JSON/],
    ['not an array', '{"name":"x"}', /expected an array of tools or a tools\/list result/],
    [
      'a tool without a name',
      '[{"name":"a"},{"description":"b"}]',
      /tools\[1\]\.name: expected a non-empty string/,
    ],
  ])('rejects %s with a message naming the place', (_label, input, message) => {
    const { status, stderr } = hintgate(['infer'], input);
    expect(status).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe('the hintgate entry point', () => {
  it('loads no child_process, so it is safe to import anywhere', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(`${root}dist/core/index.js`)}); console.log(JSON.stringify(process.moduleLoadList));`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain('child_process');
    expect(run.stdout).toContain('NativeModule');
  });
});

describe('hintgate infer: bad input', () => {
  it('exits 2 naming a file that does not exist', async () => {
    const run = await runCli(['infer', '/nonexistent/nope.json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('/nonexistent/nope.json: no such file');
  });

  it('exits 2 naming a declared annotation of the wrong type', async () => {
    const dir = scratchDir();
    const file = join(dir, 'tools.json');
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'ok', annotations: { readOnlyHint: true } },
        { name: 'read_it', annotations: { readOnlyHint: 'yes' } },
      ]),
    );
    const run = await runCli(['infer', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'tools[1] (read_it): annotations.readOnlyHint must be true or false',
    );
  });
});
