import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectArgumentClassifiers } from '../../../src/core/dynamic/index.js';

interface RecordedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
}

function recorded(server: string, tool: string): RecordedTool {
  const file = join(import.meta.dirname, '..', '..', 'fixtures', 'servers', `${server}.tools.json`);
  const { tools } = JSON.parse(readFileSync(file, 'utf8')) as { tools: RecordedTool[] };
  const found = tools.find((item) => item.name === tool);
  if (found === undefined) throw new Error(`${server}.${tool} is not recorded`);
  return found;
}

function detect(tool: RecordedTool): Array<[string, string]> {
  return detectArgumentClassifiers(tool.inputSchema, tool).map((item) => [item.kind, item.pointer]);
}

const str = (description?: string) =>
  description === undefined ? { type: 'string' } : { type: 'string', description };
const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('detectArgumentClassifiers on recorded servers', () => {
  it.each([
    ['desktop-commander', 'start_process', [['shell', '/command']]],
    ['desktop-commander', 'write_file', [['action', '/mode']]],
    ['desktop-commander', 'read_file', []],
    ['kubernetes', 'kubectl_context', [['action', '/operation']]],
    ['kubernetes', 'node_management', [['action', '/operation']]],
    // A kubectl subcommand is not a shell command; an argv array is not read.
    ['kubernetes', 'kubectl_generic', []],
    ['kubernetes', 'exec_in_pod', []],
    ['chrome-devtools', 'handle_dialog', [['action', '/action']]],
    // `navigation`/`snapshot` are modes, not verbs.
    ['chrome-devtools', 'lighthouse_audit', []],
    ['playwright', 'browser_tabs', [['action', '/action']]],
    ['filesystem', 'write_file', []],
    ['sentry', 'search_issues', []],
    ['memory', 'search_nodes', []],
  ] as const)('%s %s', (server, name, expected) => {
    expect(detect(recorded(server, name))).toEqual(expected);
  });

  it('computes the worst case over an action enum', () => {
    const [mode] = detectArgumentClassifiers(
      recorded('desktop-commander', 'write_file').inputSchema,
    );
    expect(mode?.values).toEqual(['rewrite', 'append']);
    expect(mode?.worstCase).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
  });
});

describe('detectArgumentClassifiers on typical tool schemas', () => {
  it.each([
    ['a `sql` argument', schema({ sql: str() }), {}, [['sql', '/sql']]],
    [
      'a `query` described as SQL',
      schema({ query: str('The SQL query to run') }),
      {},
      [['sql', '/query']],
    ],
    [
      'a `query` of a tool described as SQL',
      schema({ query: str() }),
      { name: 'query', description: 'Run a read-only query against PostgreSQL' },
      [['sql', '/query']],
    ],
    ['a search query', schema({ query: str('Search query, e.g. "is:open label:bug"') }), {}, []],
    ['a Cypher query', schema({ query: str('Cypher query (SQL-like) to run') }), {}, []],
    [
      'a PromQL query of a SQL-named tool',
      schema({ query: str('PromQL expression') }),
      { name: 'sql_metrics' },
      [],
    ],
    ['a `command`', schema({ command: str(), cwd: str() }), {}, [['shell', '/command']]],
    ['a `cmd`', schema({ cmd: str('Command line') }), {}, [['shell', '/cmd']]],
    [
      'a shell `script`',
      schema({ script: str('Bash script to execute') }),
      {},
      [['shell', '/script']],
    ],
    ['a JavaScript `script`', schema({ script: str('JavaScript to run in the page') }), {}, []],
    [
      'a `command` enum',
      schema({ command: { type: 'string', enum: ['start', 'stop', 'status'] } }),
      {},
      [['action', '/command']],
    ],
    [
      'an HTTP method with a path and a body',
      schema({
        method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE'] },
        path: str(),
        body: { type: 'object' },
      }),
      {},
      [['http', '/method']],
    ],
    [
      'a `method` described as HTTP next to a URL',
      schema({ method: str('HTTP method, e.g. GET or POST'), url: str() }),
      {},
      [['http', '/method']],
    ],
    [
      'a method enum of verbs',
      schema({ method: { type: 'string', enum: ['get_issue', 'list_issues', 'delete_issue'] } }),
      {},
      [['action', '/method']],
    ],
    [
      'a method enum of nouns',
      schema({ method: { type: 'string', enum: ['labels', 'assignees', 'milestones'] } }),
      {},
      [],
    ],
    ['a free `action`', schema({ action: str() }), {}, [['action', '/action']]],
    [
      'a free `method` described as the operation',
      schema({ method: str('The operation to perform: add or remove') }),
      {},
      [['action', '/method']],
    ],
    [
      'an array of actions',
      schema({ actions: { type: 'array', items: { type: 'string', enum: ['read', 'write'] } } }),
      {},
      [['action', '/actions']],
    ],
    [
      'a nested request',
      schema({ request: schema({ method: { enum: ['GET', 'DELETE'] }, endpoint: str() }) }),
      {},
      [['http', '/request/method']],
    ],
    [
      'an escaped property name',
      schema({ 'sql/raw': schema({ sql: str() }) }),
      {},
      [['sql', '/sql~1raw/sql']],
    ],
    ['not an object schema', 'nope', {}, []],
  ] as const)('%s', (_label, inputSchema, tool, expected) => {
    expect(
      detectArgumentClassifiers(inputSchema, tool).map((item) => [item.kind, item.pointer]),
    ).toEqual(expected);
  });

  it('points an HTTP classifier at its path and body', () => {
    const [http] = detectArgumentClassifiers(
      schema({
        method: { type: 'string', enum: ['GET', 'POST'] },
        endpoint: str(),
        payload: { type: 'object' },
      }),
    );
    expect(http).toMatchObject({
      kind: 'http',
      pathPointer: ['endpoint'],
      bodyPointer: ['payload'],
    });
    expect(http?.worstCase).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
  });

  it('merges an action found in several oneOf branches', () => {
    const detected = detectArgumentClassifiers({
      oneOf: [
        schema({ action: { const: 'read' }, path: str() }),
        schema({ action: { const: 'append' }, path: str(), content: str() }),
        schema({ action: { const: 'delete' }, path: str() }),
      ],
    });
    expect(detected).toHaveLength(1);
    expect(detected[0]?.values).toEqual(['read', 'append', 'delete']);
    expect(detected[0]?.worstCase).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
  });

  it('gives SQL and shell arguments the conservative worst case', () => {
    const [sql, shell] = detectArgumentClassifiers(schema({ sql: str(), command: str() }));
    expect(sql?.worstCase).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(shell?.worstCase.openWorldHint).toBe(true);
    expect(shell?.why).toBe('argument `command` takes a shell command');
  });
});
