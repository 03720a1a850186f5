import { provenanceCapabilities } from '../../src/mcp/provenance.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConfirmRequest } from '../../src/mcp/index.js';
import {
  TOOL_RESOLUTION_EXTENSION,
  callToolSafely,
  preflight,
  toolResolutionCapabilities,
} from '../../src/mcp/index.js';
import type { AuditRecord } from '../../src/store/types.js';
import type { ElicitAnswer } from '../helpers/call-path.js';
import {
  callTool,
  connectGatewayHttp,
  connectGatewayStdio,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { LOOSE, rawListTools, startHttpGateway } from '../helpers/gateway.js';
import {
  MANAGE_FILES_ACTIONS,
  MANAGE_FILES_EXPECTED,
  MANAGE_FILES_SERVER,
  MANAGE_FILES_WORST_CASE,
} from '../helpers/manage-files.js';
import type { Wire } from '../helpers/wire.js';

/** `set_level` of the resolver-fails fixture, as declared (its worst case). */
const SET_LEVEL_STATIC = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/** A config rule: `run_job` with `job: report` only reads (no classifier reads `job`). */
const REPORT_RULE = {
  name: 'report-reads',
  tool: 'db.run_job',
  match: [{ pointer: '/job', equals: 'report' }],
  set: { readOnlyHint: true },
};

/** One request a fixture logged. */
interface Logged {
  readonly method: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

function logged(file: string): Logged[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Logged);
}

/** `-sdk`: with `--no-fast-path`, every request through the SDK's machinery. */
type Front = 'stdio' | 'http' | 'stdio-sdk' | 'http-sdk';
type Era = 'legacy' | 'modern';

/**
 * A gateway over `front` in front of four servers: `files` (the manage_files example, its
 * classifiers off so that only its own answer can refine a call), `db` (query.mjs: SQL and
 * shell tools declared read-only, and a job tool a config rule reads), `flaky` (serves both
 * requests and fails them) and `draft` (serves only the proposal's tools/annotations and
 * fails it), the gateway speaking `era` to each; and a client of `era` that declares the
 * tool-resolution extension and answers elicitation as told (a 2026 client through
 * `input_required`, which the SDK fulfils).
 */
async function open(front: Front, era: Era) {
  const dir = scratchDir('hintgate-dynamic-');
  const files = join(dir, 'files');
  mkdirSync(files);
  const logs = { db: join(dir, 'db.jsonl'), flaky: join(dir, 'flaky.jsonl') };
  const draftLog = join(dir, 'draft.jsonl');
  const downstream = { era };
  const config = await writeFastConfig(
    dir,
    {
      files: {
        command: process.execPath,
        args: [MANAGE_FILES_SERVER, files],
        // Only the server's own answer refines a call: trusted, since an untrusted server's
        // "safer" answer counts only where hintgate's classifiers agree (and they are off).
        trust: 'trusted',
        dynamic: { classifiers: false },
        ...downstream,
      },
      db: fixtureServer('query', ['--log', logs.db], downstream),
      flaky: fixtureServer(
        'resolver-fails',
        ['--error', 'internal', '--log', logs.flaky],
        downstream,
      ),
      draft: fixtureServer(
        'resolver-fails',
        ['--error', 'internal', '--methods', 'annotations', '--log', draftLog],
        downstream,
      ),
    },
    { dynamic: { rules: [REPORT_RULE] } },
  );
  let answer: ElicitAnswer = { action: 'decline' };
  const asked: Record<string, unknown>[] = [];
  const client = new Client(
    { name: `dynamic-${era}`, version: '1.0.0' },
    {
      capabilities: {
        elicitation: { form: {} },
        ...toolResolutionCapabilities(),
        ...provenanceCapabilities(),
      },
      ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    asked.push(request.params);
    return Promise.resolve(answer as never);
  });
  const flags = front.endsWith('-sdk') ? ['--no-fast-path'] : [];
  let gateway: (GatewayProcess & { url: string }) | undefined;
  let stderr: () => string;
  if (front.startsWith('stdio')) stderr = (await connectGatewayStdio(client, config, flags)).stderr;
  else {
    const started = await startHttpGateway(config, ['--no-auth', ...flags]);
    gateway = started;
    stderr = () => started.stderr();
    await connectGatewayHttp(client, started.url);
  }
  return {
    client,
    config,
    files,
    asked,
    /** What the gateway has written to stderr so far. */
    stderr: () => stderr(),
    logs: { ...logs, draft: draftLog },
    answer: (next: ElicitAnswer) => {
      answer = next;
    },
    close: async () => {
      await client.close();
      if (gateway !== undefined) {
        gateway.child.kill('SIGTERM');
        await gateway.exited;
      }
    },
  };
}

const ask = (client: Client, method: string, name: string, args: Record<string, unknown>) =>
  client.request({ method, params: { name, arguments: args } }, LOOSE) as Promise<Wire>;

/** `hintgate audit --tool <tool> --json` against the running gateway's store, newest first. */
async function auditOf(config: string, tool: string): Promise<AuditRecord[]> {
  const run = await runCli(['audit', '--tool', tool, '--config', config, '--json']);
  if (run.code !== 0) throw new Error(`hintgate audit failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as AuditRecord[];
}

const MATRIX: [Front, Era][] = [
  ['http', 'legacy'],
  ['http', 'modern'],
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['http-sdk', 'modern'],
  ['stdio-sdk', 'legacy'],
];

describe.each(MATRIX)(
  'dynamic annotations through the gateway over %s, %s client',
  (front, era) => {
    let session: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      session = await open(front, era);
      expect(session.client.getProtocolEra()).toBe(era);
    });
    afterAll(() => session?.close());

    it('lists manage_files marked dynamic and resolvable, with its worst case', async () => {
      const tools: Wire[] = await rawListTools(session.client);
      const tool = tools.find((item) => item.name === 'files_manage_files');
      expect(tool.dynamicAnnotations).toBe(true);
      expect(tool._meta[TOOL_RESOLUTION_EXTENSION]).toEqual({ resolvable: true });
      expect(tool.annotations).toMatchObject(MANAGE_FILES_WORST_CASE);
      expect(tool._meta['dev.hintgate/tool'].dynamic).toEqual([
        { source: 'server', method: 'tools/resolve' },
      ]);
      // The query tool's server declares it read-only; listed, it is its worst case.
      const query = tools.find((item) => item.name === 'db_query');
      expect(query.dynamicAnnotations).toBe(true);
      expect(query.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    });

    it('answers tools/annotations and tools/resolve for each action, from the server, without calling it', async () => {
      writeFileSync(join(session.files, 'keep.txt'), 'kept\n');
      for (const action of MANAGE_FILES_ACTIONS) {
        const args = { path: 'keep.txt', action, content: 'x' };
        const annotations = await ask(
          session.client,
          'tools/annotations',
          'files_manage_files',
          args,
        );
        expect(annotations.annotations, action).toEqual(MANAGE_FILES_EXPECTED[action]);
        const resolved = await ask(session.client, 'tools/resolve', 'files_manage_files', args);
        expect(resolved, action).toMatchObject({
          name: 'files_manage_files',
          annotations: MANAGE_FILES_EXPECTED[action],
        });
        // The same name and arguments get the same answer.
        expect(await ask(session.client, 'tools/annotations', 'files_manage_files', args)).toEqual(
          annotations,
        );
      }
      // Asking about replace and delete changed nothing on disk.
      expect(readFileSync(join(session.files, 'keep.txt'), 'utf8')).toBe('kept\n');
      expect(session.asked).toEqual([]);
    });

    it('refines SQL through a tool declared read-only, and applies a config rule', async () => {
      const query = (sql: string) => ask(session.client, 'tools/annotations', 'db_query', { sql });
      expect((await query('SELECT id FROM users WHERE id = 1')).annotations).toEqual(
        MANAGE_FILES_EXPECTED.read,
      );
      expect((await query('DELETE FROM users WHERE id = 1')).annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
      });
      // A comment does not hide the DELETE after the SELECT.
      expect((await query('SELECT 1; /* harmless */ DELETE FROM users')).annotations).toMatchObject(
        { destructiveHint: true },
      );
      const job = (name: string) =>
        ask(session.client, 'tools/annotations', 'db_run_job', { job: name });
      expect((await job('report')).annotations).toMatchObject({ readOnlyHint: true });
      expect((await job('purge')).annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
      });
    });

    it('answers -32602 for an unknown tool and for arguments the input schema rejects', async () => {
      for (const method of ['tools/annotations', 'tools/resolve']) {
        await expect(
          ask(session.client, method, 'files_no_such_tool', { path: 'a', action: 'read' }),
        ).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('files_no_such_tool'),
        });
        await expect(
          ask(session.client, method, 'files_manage_files', { path: 'a', action: 'shred' }),
        ).rejects.toMatchObject({
          code: -32602,
          data: { errors: [expect.objectContaining({ instancePath: '/action' })] },
        });
        await expect(
          ask(session.client, method, 'files_manage_files', { action: 'read' }),
        ).rejects.toMatchObject({ code: -32602 });
        await expect(ask(session.client, method, 'db_query', { sql: 42 })).rejects.toMatchObject({
          code: -32602,
        });
      }
    });

    it('falls back to the static annotations when a server fails to resolve', async () => {
      const before = { flaky: logged(session.logs.flaky), draft: logged(session.logs.draft) };
      for (const [name, server] of [
        ['flaky_set_level', 'flaky'],
        ['draft_set_level', 'draft'],
      ] as const) {
        const annotations = await ask(session.client, 'tools/annotations', name, { level: 'low' });
        expect(annotations.annotations, name).toEqual(SET_LEVEL_STATIC);
        const resolved = await ask(session.client, 'tools/resolve', name, { level: 'high' });
        expect(resolved.annotations, name).toEqual(SET_LEVEL_STATIC);
        // The server was asked each time (and failed): the fallback is not a guess.
        const asked = logged(session.logs[server]).slice(before[server].length);
        expect(asked.map((entry) => entry.method)).toEqual(
          server === 'flaky'
            ? ['tools/resolve', 'tools/resolve']
            : ['tools/annotations', 'tools/annotations'],
        );
        expect(asked.map((entry) => entry.args)).toEqual([{ level: 'low' }, { level: 'high' }]);
      }
    });

    it('calls a read and an append unconfirmed; a delete asks, and only an accepted one runs', async () => {
      session.answer({ action: 'decline' });
      const asked = session.asked.length;
      const appended = await callTool(session.client, 'files_manage_files', {
        path: 'notes.txt',
        action: 'append',
        content: 'first line\n',
      });
      expect(appended['isError']).toBeUndefined();
      const read = await callTool(session.client, 'files_manage_files', {
        path: 'notes.txt',
        action: 'read',
      });
      expect(read['isError']).toBeUndefined();
      expect(textOf(read)).toBe('first line\n');
      expect(session.asked).toHaveLength(asked);

      const remove = { path: 'notes.txt', action: 'delete' };
      const declined = await callTool(session.client, 'files_manage_files', remove);
      expect(declined['isError']).toBe(true);
      expect(textOf(declined)).toContain('declined');
      expect(session.asked).toHaveLength(asked + 1);
      expect(String(session.asked[asked]?.['message'])).toMatch(
        /files\.manage_files[\s\S]*"action":"delete"[\s\S]*destructiveHint: true \(dynamic/,
      );
      expect(existsSync(join(session.files, 'notes.txt'))).toBe(true);

      session.answer({ action: 'accept', content: {} });
      const deleted = await callTool(session.client, 'files_manage_files', remove);
      expect(deleted['isError']).toBeUndefined();
      expect(session.asked).toHaveLength(asked + 2);
      expect(existsSync(join(session.files, 'notes.txt'))).toBe(false);
    });

    it('confirms a SQL DELETE through the query tool declared read-only, and not a SELECT', async () => {
      session.answer({ action: 'decline' });
      const asked = session.asked.length;
      const select = `SELECT name FROM users WHERE era = '${era}'`;
      const remove = `DELETE FROM users WHERE era = '${era}'`;
      const selected = await callTool(session.client, 'db_query', { sql: select });
      expect(selected['isError']).toBeUndefined();
      expect(session.asked).toHaveLength(asked);
      const declined = await callTool(session.client, 'db_query', { sql: remove });
      expect(declined['isError']).toBe(true);
      expect(session.asked).toHaveLength(asked + 1);
      expect(String(session.asked[asked]?.['message'])).toContain(
        'destructiveHint: true (dynamic: SQL',
      );
      const queries = logged(session.logs.db).filter((entry) => entry.tool === 'query');
      expect(queries.map((entry) => entry.args['sql'])).toContain(select);
      expect(queries.map((entry) => entry.args['sql'])).not.toContain(remove);
      // The rule makes one job a read: it runs unasked; the other is still confirmed.
      await callTool(session.client, 'db_run_job', { job: 'report' });
      expect(session.asked).toHaveLength(asked + 1);
      await callTool(session.client, 'db_run_job', { job: 'purge' });
      expect(session.asked).toHaveLength(asked + 2);
      expect(logged(session.logs.db).filter((entry) => entry.tool === 'run_job')).toEqual([
        { method: 'tools/call', tool: 'run_job', args: { job: 'report' } },
      ]);
    });

    it('confirms a call whose server failed to resolve it, on its static annotations', async () => {
      session.answer({ action: 'accept', content: {} });
      const asked = session.asked.length;
      const before = logged(session.logs.draft).length;
      const result = await callTool(session.client, 'draft_set_level', { level: 'high' });
      expect(result['isError']).toBeUndefined();
      expect(session.asked).toHaveLength(asked + 1);
      expect(String(session.asked[asked]?.['message'])).toContain(
        'destructiveHint: true (declared)',
      );
      // Asked first, it failed; the call then went through on the static annotations. A 2026
      // client answers the question in a second tools/call, resolved afresh (nothing is reused).
      const resolutions = era === 'modern' ? 2 : 1;
      expect(logged(session.logs.draft).slice(before)).toEqual([
        ...Array.from({ length: resolutions }, () => ({
          method: 'tools/annotations',
          tool: 'set_level',
          args: { level: 'high' },
        })),
        { method: 'tools/call', tool: 'set_level', args: { level: 'high' } },
      ]);
    });

    it("works with the library's preflight and callToolSafely against the gateway", async () => {
      session.answer({ action: 'decline' });
      writeFileSync(join(session.files, 'safe.txt'), 'safe\n');
      for (const action of MANAGE_FILES_ACTIONS) {
        const check = await preflight(session.client, 'files_manage_files', {
          path: 'safe.txt',
          action,
        });
        expect(check, action).toMatchObject({
          source: 'dynamic',
          method: 'tools/resolve',
          callable: true,
          annotations: MANAGE_FILES_EXPECTED[action],
        });
      }
      const invalid = await preflight(session.client, 'files_manage_files', { action: 'shred' });
      expect(invalid).toMatchObject({
        source: 'static',
        callable: false,
        error: { kind: 'invalid-arguments', code: -32602, surface: true },
      });

      const asked = session.asked.length;
      const confirm = vi.fn((_request: ConfirmRequest) => false);
      const read = await callToolSafely(
        session.client,
        'files_manage_files',
        { path: 'safe.txt', action: 'read' },
        { confirm },
      );
      expect(read).toMatchObject({ kind: 'called', confirmed: false });
      expect(read.kind === 'called' ? textOf(read.result) : '').toBe('safe\n');
      expect(confirm).not.toHaveBeenCalled();

      const refused = await callToolSafely(
        session.client,
        'files_manage_files',
        { path: 'safe.txt', action: 'delete' },
        { confirm },
      );
      expect(refused).toMatchObject({ kind: 'refused', reason: 'declined' });
      expect(confirm).toHaveBeenCalledTimes(1);
      expect(confirm.mock.calls[0]?.[0]).toMatchObject({
        source: 'dynamic',
        method: 'tools/resolve',
        annotations: MANAGE_FILES_EXPECTED.delete,
      });
      // Refused before the call: the gateway never had to ask, and the file is still there.
      expect(session.asked).toHaveLength(asked);
      expect(existsSync(join(session.files, 'safe.txt'))).toBe(true);
    });

    it('records the refined values with source dynamic in the audit log', async () => {
      // Records are written in batches, in the background: waited for until the ones checked
      // below are there (the approved delete is the last of them).
      const files = await eventually(
        async () => {
          const found = await auditOf(session.config, 'files.manage_files');
          return found.some(
            (record) =>
              (record.arguments as Wire)?.action === 'delete' && record.decision === 'approved',
          )
            ? found
            : undefined;
        },
        20_000,
        () => `the approved delete's audit record; the gateway said:\n${session.stderr()}`,
      );
      const read = files.find(
        (record) => (record.arguments as Wire)?.action === 'read' && record.outcome === 'ok',
      );
      expect(read).toMatchObject({
        dynamic: true,
        decision: 'allow',
        annotations: MANAGE_FILES_EXPECTED.read,
        sources: { readOnlyHint: 'dynamic', destructiveHint: 'dynamic' },
      });
      const deleted = files.filter((record) => (record.arguments as Wire)?.action === 'delete');
      expect(deleted.map((record) => record.decision)).toContain('declined');
      expect(deleted.find((record) => record.outcome === 'ok')).toMatchObject({
        dynamic: true,
        annotations: { destructiveHint: true },
        sources: { destructiveHint: 'dynamic' },
      });

      const queries = await eventually(
        async () => {
          const found = await auditOf(session.config, 'db.query');
          return found.some((record) =>
            String((record.arguments as Wire)?.sql).startsWith('DELETE'),
          )
            ? found
            : undefined;
        },
        20_000,
        () => `the SQL DELETE's audit record; the gateway said:\n${session.stderr()}`,
      );
      const sqlOf = (record: AuditRecord) => String((record.arguments as Wire)?.sql);
      expect(queries.find((record) => sqlOf(record).startsWith('DELETE'))).toMatchObject({
        dynamic: true,
        decision: 'declined',
        annotations: { readOnlyHint: false, destructiveHint: true },
        sources: { readOnlyHint: 'dynamic', destructiveHint: 'dynamic' },
      });
      expect(queries.find((record) => sqlOf(record).startsWith('SELECT'))).toMatchObject({
        dynamic: true,
        decision: 'allow',
        annotations: { readOnlyHint: true },
        sources: { readOnlyHint: 'dynamic' },
      });

      // The server that failed to resolve: its static values, none of them dynamic.
      const levels = await eventually(
        async () => {
          const found = await auditOf(session.config, 'draft.set_level');
          return found.length > 0 ? found : undefined;
        },
        20_000,
        () => `set_level's audit record; the gateway said:\n${session.stderr()}`,
      );
      expect(levels[0]).toMatchObject({
        dynamic: false,
        annotations: SET_LEVEL_STATIC,
        sources: { destructiveHint: 'declared' },
      });
    });
  },
);

describe('the front declares dynamic annotations on the wire', () => {
  let gateway: GatewayProcess & { url: string };
  beforeAll(async () => {
    const dir = scratchDir('hintgate-dynamic-');
    mkdirSync(join(dir, 'files'));
    const config = await writeFastConfig(dir, {
      files: { command: process.execPath, args: [MANAGE_FILES_SERVER, join(dir, 'files')] },
    });
    gateway = await startHttpGateway(config);
  });
  afterAll(async () => {
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  /** One JSON-RPC request to the gateway's /mcp, its result or error as sent. */
  async function post(body: Wire, headers: Record<string, string> = {}): Promise<Wire> {
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }),
    });
    const text = await response.text();
    // The first event of a 2025 stream primes resumption (an id, no data).
    const data = /^data: (.+)$/m.exec(text)?.[1] ?? text;
    return { status: response.status, ...JSON.parse(data) };
  }

  const VERSION = '2026-07-28';
  const envelope = (capabilities: Wire) => ({
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  });
  const modern = (method: string, params: Wire, name?: string) =>
    post(
      { method, params },
      {
        'mcp-protocol-version': VERSION,
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
      },
    );

  it('in the 2025 initialize result: capabilities.tools.dynamicAnnotations and the extension', async () => {
    const reply = await post({
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1.0.0' },
      },
    });
    expect(reply.result.capabilities.tools).toMatchObject({ dynamicAnnotations: true });
    expect(reply.result.capabilities.extensions).toEqual({ [TOOL_RESOLUTION_EXTENSION]: {} });
  });

  it('in the 2026 server/discover result, and tools/resolve answers a complete result', async () => {
    const discovered = await modern('server/discover', { _meta: envelope({}) });
    expect(discovered.result.capabilities.tools).toMatchObject({ dynamicAnnotations: true });
    const args = { path: 'a.txt', action: 'read' };
    const resolved = await modern(
      'tools/resolve',
      {
        name: 'files_manage_files',
        arguments: args,
        _meta: envelope(toolResolutionCapabilities()),
      },
      'files_manage_files',
    );
    expect(resolved.result).toMatchObject({
      resultType: 'complete',
      name: 'files_manage_files',
      annotations: MANAGE_FILES_EXPECTED.read,
    });
    // Without the extension negotiated, tools/resolve is refused; tools/annotations is not.
    const refused = await modern(
      'tools/resolve',
      { name: 'files_manage_files', arguments: args, _meta: envelope({}) },
      'files_manage_files',
    );
    // With HTTP 400, as the SDK answers in-band capability errors.
    expect(refused).toMatchObject({ status: 400, error: { code: -32021 } });
    const annotations = await modern(
      'tools/annotations',
      { name: 'files_manage_files', arguments: args, _meta: envelope({}) },
      'files_manage_files',
    );
    expect(annotations.result.annotations).toEqual(MANAGE_FILES_EXPECTED.read);
  });
});
