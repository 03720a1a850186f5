import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/store/types.js';
import {
  callTool,
  counterServer,
  eventually,
  textOf,
  writeFastConfig,
} from '../helpers/call-path.js';
import { runCli } from '../helpers/cli.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import {
  LOOSE,
  connectHttp,
  rawListTools,
  spawnGateway,
  startHttpGateway,
} from '../helpers/gateway.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';

async function cli(config: string, ...args: string[]): Promise<string> {
  const run = await runCli([...args, '--config', config]);
  if (run.code !== 0) throw new Error(`hintgate ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

describe('a server served under its own names (prefix: false) beside one with its own prefix', () => {
  const dir = scratchDir();
  let config: string;
  let gateway: GatewayProcess & { url: string };
  const clients: Client[] = [];
  const connect = async (token: string, kind: 'v2-legacy' | 'v2-auto'): Promise<Client> => {
    const client = (await connectHttp(gateway.url, kind, {
      authorization: `Bearer ${token}`,
    })) as Client;
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    config = await writeFastConfig(
      dir,
      {
        echo: fixtureServer('echo', [], { prefix: false }),
        counter: counterServer(dir, 'counter', { prefix: 'c' }),
      },
      {
        policy: { confirm: 'never' },
        toolsets: { default: 'picked' },
        http: {
          tokens: [
            { name: 'alice', tokenEnv: 'ALICE_TOKEN' },
            { name: 'bob', tokenEnv: 'BOB_TOKEN' },
          ],
        },
        access: { rules: [{ who: ['bob'], effect: 'deny', tools: ['echo.*'] }] },
      },
    );
    // Toolsets, notes and overrides name tools by namespaced name, whatever clients see.
    await cli(
      config,
      'toolset',
      'create',
      'picked',
      '--tool',
      'echo.echo',
      '--tool',
      'echo.slow',
      '--tool',
      'counter.read_value',
    );
    await cli(config, 'note', 'add', 'picked', 'echo.echo', 'style', 'Say it politely.');
    await cli(config, 'override', 'set', 'echo.slow', 'idempotentHint=true');
    gateway = await startHttpGateway(config, [], { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it('lists tools under their own names and the custom prefix, with notes and overrides, in both eras', async () => {
    for (const kind of ['v2-legacy', 'v2-auto'] as const) {
      const tools = await rawListTools(await connect(ALICE, kind));
      expect(tools.map((tool) => tool['name'])).toEqual(['echo', 'slow', 'c_read_value']);
      expect(tools[0]?.['description']).toContain('**style**: Say it politely.');
      expect(tools[1]?.['annotations']).toMatchObject({ idempotentHint: true });
      expect(tools[0]?.['_meta']).toMatchObject({
        'dev.hintgate/tool': { server: 'echo', name: 'echo', namespacedName: 'echo.echo' },
      });
    }
  });

  it('calls tools by their own names (and by namespaced name), prompts by their own names', async () => {
    const alice = await connect(ALICE, 'v2-legacy');
    expect(textOf(await callTool(alice, 'echo', { text: 'plain' }))).toBe('plain');
    expect(textOf(await callTool(alice, 'echo.echo', { text: 'namespaced' }))).toBe('namespaced');
    expect(textOf(await callTool(alice, 'c_read_value', { key: 'k' }))).toContain('null');
    const unknown = callTool(alice, 'echo_echo', { text: 'x' });
    await expect(unknown).rejects.toThrow('Unknown tool: "echo_echo"');
    const prompts = await alice.request({ method: 'prompts/list', params: {} }, LOOSE);
    expect((prompts['prompts'] as { name: string }[]).map((prompt) => prompt.name)).toEqual([
      'greet',
    ]);
    const prompt = await alice.request(
      { method: 'prompts/get', params: { name: 'greet', arguments: { who: 'Ada' } } },
      LOOSE,
    );
    expect(JSON.stringify(prompt)).toContain('Hello, Ada!');
    const templates = await alice.request(
      { method: 'resources/templates/list', params: {} },
      LOOSE,
    );
    expect(templates['resourceTemplates']).toMatchObject([
      { name: 'item', uriTemplate: 'echo://items/{id}' },
    ]);
    const read = await alice.request(
      { method: 'resources/read', params: { uri: 'echo://items/7' } },
      LOOSE,
    );
    expect(JSON.stringify(read)).toContain('content of echo://items/7');
  });

  it('applies access rules by namespaced name to the unprefixed tools', async () => {
    const bob = await connect(BOB, 'v2-legacy');
    expect((await rawListTools(bob)).map((tool) => tool['name'])).toEqual(['c_read_value']);
    const refused = await callTool(bob, 'echo', { text: 'x' });
    // The refusal names the tool as the client called it, and the rule that refused it.
    expect(textOf(refused)).toContain(
      'Access denied: bob may not call echo through this gateway (access.rules[0])',
    );
  });

  it('records the name called and the namespaced name in the audit log', async () => {
    const records = await eventually(async () => {
      const response = await fetch(gateway.url.replace(/\/mcp$/, '/api/audit?principal=alice'), {
        headers: { authorization: `Bearer ${ALICE}` },
      });
      const body = (await response.json()) as { records: AuditRecord[] };
      return body.records.some((record) => record.tool === 'echo') ? body.records : undefined;
    });
    expect(records.find((record) => record.tool === 'echo')).toMatchObject({
      namespacedName: 'echo.echo',
      server: 'echo',
      outcome: 'ok',
    });
    expect(records.find((record) => record.tool === 'c_read_value')).toMatchObject({
      namespacedName: 'counter.read_value',
    });
  });

  it('shows the names clients see in `hintgate tools` and the dashboard, linked by refId', async () => {
    const tools = await cli(config, 'tools', '--json');
    const listed = JSON.parse(tools) as { tools: { flattenedName: string; refId: string }[] };
    const names = listed.tools.map((tool) => tool.flattenedName);
    expect(names).toEqual(expect.arrayContaining(['echo', 'add', 'slow', 'c_read_value']));
    expect(names).not.toContain('echo_echo');
    const echo = listed.tools.find((tool) => tool.flattenedName === 'echo');
    const origin = new URL(gateway.url).origin;
    const login = await fetch(`${origin}/ui/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ token: ALICE, next: '/ui' }),
      redirect: 'manual',
    });
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^hintgate_session=/);
    const page = await (await fetch(`${origin}/ui?q=echo`, { headers: { cookie } })).text();
    expect(page).toContain(`<a href="/ui/tools/${echo?.refId}">echo</a>`);
    const toolPage = await fetch(`${origin}/ui/tools/${echo?.refId}`, { headers: { cookie } });
    expect(toolPage.status).toBe(200);
    expect(await toolPage.text()).toContain('/ui/audit?tool=echo.echo');
  });
});

describe('servers whose names meet', () => {
  it('refuse to start, naming both servers and the name (serve and tools)', async () => {
    const dir = scratchDir();
    const config = await writeFastConfig(dir, {
      first: fixtureServer('echo', [], { prefix: false }),
      second: fixtureServer('echo', [], { prefix: false }),
    });
    const gateway = spawnGateway(['serve', '--config', config]);
    expect(await gateway.exited).toBe(2);
    expect(gateway.stderr()).toContain(
      'mcpServers.second.prefix: tool "add" of server "second" and tool "add" of server "first" would both be served as "add"',
    );
    const tools = await runCli(['tools', '--config', config]);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain('mcpServers.second.prefix: tool "add" of server "second"');
  });
});
