import { describe, expect, it } from 'vitest';
import type { ToolAnnotations } from '../../../src/core/annotations/types.js';
import { inferAnnotations } from '../../../src/core/inference/infer.js';
import type { ToolDefinitionInput } from '../../../src/core/inference/types.js';

type Hints = Pick<
  ToolAnnotations,
  'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'
>;

function hints(tool: ToolDefinitionInput): Hints {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } =
    inferAnnotations(tool).annotations;
  return {
    ...(readOnlyHint === undefined ? {} : { readOnlyHint }),
    ...(destructiveHint === undefined ? {} : { destructiveHint }),
    ...(idempotentHint === undefined ? {} : { idempotentHint }),
    ...(openWorldHint === undefined ? {} : { openWorldHint }),
  };
}

function schema(properties: Record<string, unknown>): unknown {
  return { type: 'object', properties };
}

const READ: Hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
const DESTRUCTIVE = { readOnlyHint: false, destructiveHint: true };
const ADDITIVE: Hints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };
const GENTLE = { readOnlyHint: false, destructiveHint: false };

describe('inferAnnotations: names', () => {
  it.each([
    ['get_user', READ],
    ['listDeletedItems', READ],
    ['list_deleted_items', READ],
    ['search_code', READ],
    ['issue_read', READ],
    ['mcp__github__get_me', READ],
    ['delete_user_account', { ...DESTRUCTIVE, idempotentHint: true }],
    ['repo.delete', DESTRUCTIVE],
    ['getAndDelete', DESTRUCTIVE],
    ['search_and_replace', DESTRUCTIVE],
    ['get_or_create_user', { readOnlyHint: false, destructiveHint: false }],
    ['create_or_update_file', DESTRUCTIVE],
    ['comment_delete', DESTRUCTIVE],
    ['label_write', DESTRUCTIVE],
    ['create_issue', ADDITIVE],
    ['update_issue', DESTRUCTIVE],
    ['resetPagination', { ...GENTLE, idempotentHint: true }],
    ['reset_filters', GENTLE],
    ['clear_cache', GENTLE],
    ['reset_database', DESTRUCTIVE],
    ['clear_history', DESTRUCTIVE],
    ['undelete_file', GENTLE],
    ['restore_backup', GENTLE],
    ['archive_project', GENTLE],
    ['force_unlock_workspace', DESTRUCTIVE],
    ['take_screenshot', READ],
    ['start_search', READ],
    ['browser_close', DESTRUCTIVE],
    ['close_page', DESTRUCTIVE],
    ['close_issue', GENTLE],
    ['run_query', READ],
    ['rm_file', DESTRUCTIVE],
    ['API-post-search', ADDITIVE],
    ['API-delete-a-block', DESTRUCTIVE],
  ])('reads %s', (name, expected) => {
    expect(hints({ name })).toMatchObject(expected);
  });

  it.each([
    ['target_status'],
    ['budget_report'],
    ['preset_values'],
    ['settings_panel'],
    ['widget_listing'],
    ['reader_mode'],
  ])('matches whole words only: %s has no verb', (name) => {
    expect(hints({ name })).toEqual({});
  });

  it('leaves every hint unset without evidence', () => {
    expect(hints({ name: 'widget_thing', description: 'A widget.' })).toEqual({});
  });

  it.each([
    ['delete_user_account', 'Delete User Account'],
    ['getHTTPResponse', 'Get HTTP Response'],
    ['list-pull-requests', 'List Pull Requests'],
    ['fetchURLs', 'Fetch URLs'],
    ['repo.delete', 'Repo Delete'],
  ])('titles %s as %j', (name, title) => {
    expect(inferAnnotations({ name }).annotations.title).toBe(title);
  });
});

describe('inferAnnotations: descriptions', () => {
  it.each([
    ['status', 'Returns the status of a job, or null if it was deleted.', READ],
    ['status', 'Returns true if deleted.', READ],
    ['inspect_repo', 'Inspects the repository without making changes.', READ],
    ['audit', 'Checks the config. Does not modify anything.', READ],
    ['audit', "Checks the config. Doesn't change anything.", READ],
    ['state_tool', 'Handles state. Read-only.', READ],
    ['lookup_x', 'Never deletes anything; only lists files.', READ],
    ['probe', 'Pings the host. No side effects.', READ],
    ['tool_a', 'Deletes the branch. This cannot be undone.', DESTRUCTIVE],
    ['tool_b', 'Permanently erases the archive.', DESTRUCTIVE],
    ['tool_c', 'List, search, and fetch conversations.', READ],
    ['tool_f', 'Manage tags.', {}],
    ['tool_g', 'Autonomous web research agent.', {}],
    ['tool_h', 'Use this tool to search the docs.', READ],
    ['tool_d', 'Removes stale branches from the repository.', DESTRUCTIVE],
    ['manage_tags', 'Manage tags. Operations:\n- delete: remove a tag by id', DESTRUCTIVE],
    ['create_file', 'Creates a file. Never overwrites an existing one.', ADDITIVE],
    ['tool_e', 'A non-destructive cleanup.', { destructiveHint: false }],
  ])('reads %s: %j', (name, description, expected) => {
    expect(hints({ name, description })).toMatchObject(expected);
  });

  it('keeps a strong name verb over a scoped negation', () => {
    const tool = { name: 'append_log', description: 'Appends without modifying earlier lines.' };
    expect(hints(tool)).toMatchObject(ADDITIVE);
  });

  it('keeps a destructive name over a read-only claim, unless the name says preview', () => {
    expect(hints({ name: 'delete_repo', description: 'Read-only.' })).toMatchObject(DESTRUCTIVE);
    const preview = { name: 'delete_preview', description: 'Shows what would go. Read-only.' };
    expect(hints(preview)).toMatchObject(READ);
  });

  it('reads a generic HTTP request tool as able to do anything, unless GET only', () => {
    expect(hints({ name: 'service_api_request' })).toMatchObject(DESTRUCTIVE);
    const getOnly = { name: 'http_request', description: 'Calls the API. Only GET requests.' };
    expect(hints(getOnly)).toMatchObject(READ);
  });

  it('reads a query tool whose description shows SQL as able to write', () => {
    const tool = { name: 'query_warehouse', description: 'Example: SELECT a FROM t WHERE b' };
    expect(hints(tool)).toMatchObject(DESTRUCTIVE);
  });
});

describe('inferAnnotations: schemas', () => {
  it.each([
    [
      'the worst action value wins',
      'manage_items',
      schema({ action: { type: 'string', enum: ['read', 'append', 'replace', 'delete'] } }),
      DESTRUCTIVE,
    ],
    [
      'all-read action values are a read',
      'manage_items',
      schema({ action: { type: 'string', enum: ['list', 'get'] } }),
      READ,
    ],
    [
      'action values in a union',
      'thing_tool',
      schema({ operation: { anyOf: [{ const: 'get_thing' }, { const: 'drop_thing' }] } }),
      DESTRUCTIVE,
    ],
    [
      'HTTP method values',
      'api_proxy',
      schema({ method: { type: 'string', enum: ['GET', 'POST'] } }),
      { readOnlyHint: false, destructiveHint: false },
    ],
    [
      'an sql argument could do anything',
      'query_db',
      schema({ sql: { type: 'string' } }),
      DESTRUCTIVE,
    ],
    [
      'a command argument could do anything',
      'run_in_pod',
      schema({ command: { type: 'string' } }),
      { ...DESTRUCTIVE, openWorldHint: true },
    ],
    [
      'a query argument written in SQL could do anything',
      'lookup',
      schema({ query: { type: 'string', description: 'The SQL statement' } }),
      DESTRUCTIVE,
    ],
    [
      'a search query is only a search',
      'search_repositories',
      schema({ query: { type: 'string', description: 'Search words, e.g. language:python' } }),
      READ,
    ],
    [
      'a dry-run flag means the tool writes',
      'sync_things',
      schema({ dry_run: { type: 'boolean' } }),
      { readOnlyHint: false },
    ],
    [
      'a dryRun flag on a vague name',
      'process_items',
      schema({ dryRun: { type: 'boolean' } }),
      { readOnlyHint: false },
    ],
    [
      'a force flag makes an additive verb destructive',
      'create_file',
      schema({ path: { type: 'string' }, force: { type: 'boolean' } }),
      DESTRUCTIVE,
    ],
    [
      'a confirm flag on a silent name',
      'purge_thing',
      schema({ confirm: { type: 'boolean' } }),
      DESTRUCTIVE,
    ],
    [
      'a URL argument reaches the open world',
      'fetch_page',
      schema({ url: { type: 'string' } }),
      { ...READ, openWorldHint: true },
    ],
    [
      // Bitbucket's `path` is an API path, GitLab's `file_path` a file in a remote repository.
      'a path argument says nothing about the world',
      'read_file',
      schema({ path: { type: 'string' } }),
      READ,
    ],
    [
      'nested options are settings, not arguments',
      'scrape_page',
      schema({ options: { type: 'object', properties: { script: { type: 'string' } } } }),
      READ,
    ],
  ])('%s', (_, name, inputSchema, expected) => {
    expect(hints({ name, inputSchema })).toMatchObject(expected);
  });

  it('a read-only statement outweighs an sql argument', () => {
    const tool = {
      name: 'run_sql',
      description: 'Runs a read-only SQL query.',
      inputSchema: schema({ sql: { type: 'string' } }),
    };
    expect(hints(tool)).toMatchObject(READ);
  });

  it('ignores a schema that is not an object', () => {
    expect(hints({ name: 'get_x', inputSchema: 'nope' })).toMatchObject(READ);
    expect(hints({ name: 'get_x', inputSchema: null })).toMatchObject(READ);
  });
});

describe('inferAnnotations: extensions', () => {
  it('asks for confirmation exactly when destructive', () => {
    expect(inferAnnotations({ name: 'delete_x' }).annotations.requiresConfirmation).toBe(true);
    expect(inferAnnotations({ name: 'create_x' }).annotations.requiresConfirmation).toBeUndefined();
    expect(inferAnnotations({ name: 'get_x' }).annotations.requiresConfirmation).toBeUndefined();
  });

  it.each([
    [undefined, 'simple'],
    [schema({ id: { type: 'string' } }), 'simple'],
    [
      schema(Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((k) => [k, { type: 'string' }]))),
      'medium',
    ],
    [
      schema(
        Object.fromEntries(
          ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => [
            k,
            { type: 'object', properties: { x: { type: 'string' } } },
          ]),
        ),
      ),
      'complex',
    ],
  ])('rates the complexity of %j as %s', (inputSchema, complexity) => {
    expect(inferAnnotations({ name: 'get_x', inputSchema }).annotations.complexity).toBe(
      complexity,
    );
  });
});

describe('inferAnnotations: reasons', () => {
  it.each([
    ['delete_repo', undefined, 'readOnlyHint', 'name', 'delete', 'destructive-verb', 'strong'],
    ['delete_repo', undefined, 'destructiveHint', 'name', 'delete', 'destructive-verb', 'strong'],
    [
      'getAndDeleteItem',
      undefined,
      'destructiveHint',
      'name',
      'delete',
      'conjoined-verb',
      'strong',
    ],
    ['resetPagination', undefined, 'destructiveHint', 'name', 'reset', 'ephemeral-reset', 'strong'],
    ['list_items', undefined, 'readOnlyHint', 'name', 'list', 'read-verb', 'strong'],
    ['list_items', undefined, 'destructiveHint', 'name', 'list', 'implied-by-read-only', 'strong'],
    [
      'thing',
      'Deletes a thing.',
      'destructiveHint',
      'description',
      'deletes',
      'destructive-verb',
      'weak',
    ],
    [
      'thing',
      'Shows a thing. Read-only.',
      'readOnlyHint',
      'description',
      'read-only',
      'read-only-statement',
      'strong',
    ],
    [
      'thing',
      'Shows it, does not modify it.',
      'readOnlyHint',
      'description',
      'not modify',
      'negated-write',
      'strong',
    ],
    [
      'thing',
      'Gone. This cannot be undone.',
      'destructiveHint',
      'description',
      'cannot be undone',
      'destructive-statement',
      'strong',
    ],
    ['delete_x', undefined, 'requiresConfirmation', 'name', 'delete', 'destructive', 'strong'],
    ['delete_x', undefined, 'title', 'name', 'delete_x', 'name-humanized', 'weak'],
  ] as const)(
    '%s %j: %s because %s word %j (%s, %s)',
    (name, description, field, part, word, rule, strength) => {
      const reason = inferAnnotations({ name, description }).reasons[field];
      expect(reason).toMatchObject({ part, word, rule, strength });
      expect(reason?.text.length).toBeGreaterThan(0);
    },
  );

  it('explains in words', () => {
    const reason = inferAnnotations({ name: 'delete_user' }).reasons['destructiveHint'];
    expect(reason?.text).toBe('name word "delete" (the first word) is a destructive verb');
  });

  it('gives the action value and argument of an action enum', () => {
    const result = inferAnnotations({
      name: 'manage_runs',
      inputSchema: schema({ method: { enum: ['list_runs', 'cancel_run'] } }),
    });
    expect(result.reasons['destructiveHint']).toMatchObject({
      part: 'schema',
      word: 'cancel_run',
      rule: 'action-enum',
    });
    expect(result.reasons['destructiveHint']?.text).toContain('"method"');
  });

  it('has a reason for every field it sets, and none for others', () => {
    const result = inferAnnotations({ name: 'create_issue', description: 'Create an issue.' });
    expect(Object.keys(result.reasons).sort()).toEqual(Object.keys(result.annotations).sort());
  });
});

describe('inferAnnotations: determinism and purity', () => {
  const tool: ToolDefinitionInput = Object.freeze({
    name: 'actions_run_trigger',
    description: 'Trigger, re-run or cancel workflow runs; deletes logs on request.',
    inputSchema: Object.freeze(
      schema({ method: Object.freeze({ enum: Object.freeze(['run_workflow', 'delete_logs']) }) }),
    ),
  });

  it('gives the same result for the same input', () => {
    const first = inferAnnotations(tool);
    for (let i = 0; i < 5; i++) expect(inferAnnotations(tool)).toEqual(first);
  });

  it('does not mutate its input', () => {
    const copy = structuredClone(tool);
    inferAnnotations(tool);
    expect(tool).toEqual(copy);
  });

  it.each([
    [{ name: '' }],
    [{ name: '🙂🙂', description: '🙂 deletes 🙂 — “quoted” … ’' }],
    [{ name: 'x'.repeat(5000), description: 'not '.repeat(5000) }],
    [{ name: 'İstanbul_DELETE', description: 'İİİ ÇÖ delete' }],
    [{ name: 'a', description: '```\nunclosed fence delete' }],
    [{ name: 'a', inputSchema: { properties: { x: null, y: [], z: { enum: [1, null, 'rm'] } } } }],
    [{ name: 'a', inputSchema: { type: 'object', properties: { __proto__: { type: 'string' } } } }],
  ])('never throws on odd input %#', (odd: ToolDefinitionInput) => {
    expect(() => inferAnnotations(odd)).not.toThrow();
  });

  it('returns results that do not share state between calls', () => {
    const a = inferAnnotations({ name: 'list_a', description: 'Lists, fetches a.' });
    const b = inferAnnotations({ name: 'list_b', description: 'Lists, fetches b.' });
    expect(a.annotations.title).toBe('List A');
    expect(b.annotations.title).toBe('List B');
  });
});

describe('inferAnnotations: objects that change what a verb does', () => {
  it.each([
    ['select_page', READ],
    ['switch_project', READ],
    ['connect', READ],
    ['disconnect', READ],
    ['connect_database', READ],
  ])('%s only changes which resource later calls use', (name, expected) => {
    expect(hints({ name })).toMatchObject(expected);
    expect(inferAnnotations({ name }).reasons['readOnlyHint']?.rule).toBe('context-switch');
  });

  it.each(['select_option', 'connect_github_account', 'use_coupon'])(
    '%s acts on something that is not a context, so it is not read-only',
    (name) => {
      expect(hints({ name }).readOnlyHint).not.toBe(true);
    },
  );

  it.each(['interact_with_process', 'send_to_terminal', 'write_to_repl'])(
    '%s feeds input to a live process, which runs it',
    (name) => {
      expect(hints({ name })).toMatchObject(DESTRUCTIVE);
      expect(inferAnnotations({ name }).reasons['destructiveHint']?.rule).toBe('feeds-process');
    },
  );

  it('reads a bare-verb action value as acting on what the tool name names', () => {
    const tool = {
      name: 'browser_tabs',
      inputSchema: schema({ action: { type: 'string', enum: ['list', 'new', 'select', 'close'] } }),
    };
    expect(hints(tool)).toMatchObject(DESTRUCTIVE);
    expect(inferAnnotations(tool).reasons['destructiveHint']?.text).toBe(
      'argument "action" allows "close", a destructive verb',
    );
  });
});

describe('inferAnnotations: reading descriptions as sentences', () => {
  it('reads a word after an article or determiner as a noun', () => {
    // pinecone's rerank-documents: "set" here is a noun, not an update.
    const rerank = { name: 'documents', description: 'Rerank a set of provided documents.' };
    expect(hints(rerank).readOnlyHint).not.toBe(false);
    // git's git_init: "new" is not the action; "initialize" is.
    const init = { name: 'repository', description: 'Initialize a new Git repository.' };
    expect(inferAnnotations(init).reasons['readOnlyHint']?.word).toBe('initialize');
    // gitlab's unapprove_merge_request: "merge" is part of "a merge request".
    expect(hints({ name: 'request_tool', description: 'Approve a merge request.' })).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
  });

  it('reads "new" as a verb only in a name', () => {
    // Todoist's reschedule-tasks; Chrome DevTools' new_page.
    const prose = { name: 'tasks_tool', description: 'Reschedule tasks to new dates.' };
    expect(inferAnnotations(prose).reasons['readOnlyHint']?.word).not.toBe('new');
    expect(hints({ name: 'new_page' })).toMatchObject(ADDITIVE);
  });

  it('takes the first of a read-only and a destructive statement as the one about the tool', () => {
    // Azure's mysql_database_query: it rejects destructive keywords, it does not run them.
    const mysql = {
      name: 'mysql_database_query',
      description:
        'Executes a safe, read-only SQL SELECT query against a database. Rejects ' +
        'non-SELECT statements, multi-statements and other destructive keywords.',
    };
    expect(hints(mysql)).toMatchObject(READ);
    const purge = {
      name: 'cleanup',
      description: 'Permanently deletes old snapshots. Not available in read-only mode.',
    };
    expect(hints(purge)).toMatchObject(DESTRUCTIVE);
  });

  it('reads the opening verb with its objects', () => {
    // Azure's kusto_query, smartbear's swagger_scan_api_standardization, reflect_run_test.
    const kusto = { name: 'kusto', description: 'Executes a query against a Kusto cluster.' };
    expect(hints(kusto)).toMatchObject(READ);
    const scan = { name: 'standardization', description: 'Run a standardization scan.' };
    expect(hints(scan)).toMatchObject(READ);
    const test = { name: 'reflect_test', description: 'Run a reflect test.' };
    expect(hints(test)).toMatchObject(ADDITIVE);
    const code = { name: 'snippet', description: 'Runs a Playwright code snippet.' };
    expect(hints(code)).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('reads an output folder argument as writing files, even inside a params object', () => {
    // CircleCI's download_usage_api_data wraps its arguments in `params`.
    const tool = {
      name: 'download_usage_api_data',
      description: 'Downloads usage data and saves the CSV file.',
      inputSchema: schema({
        params: {
          type: 'object',
          properties: { orgId: { type: 'string' }, outputDir: { type: 'string' } },
        },
      }),
    };
    const { annotations, reasons } = inferAnnotations(tool);
    expect(annotations.readOnlyHint).toBe(false);
    expect(reasons['readOnlyHint']?.rule).toBe('output-argument');
  });
});

describe('inferAnnotations: arguments read with the name', () => {
  const httpMethod = schema({
    method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
  });

  it('reads HTTP methods as data of a request the tool stores, and as actions otherwise', () => {
    // Postman's createCollectionRequest stores a request with a method; qase_api calls one.
    expect(hints({ name: 'createCollectionRequest', inputSchema: httpMethod })).toMatchObject(
      ADDITIVE,
    );
    expect(hints({ name: 'qase_api', inputSchema: httpMethod })).toMatchObject(DESTRUCTIVE);
  });

  it('reads an action argument of a reading tool as a filter', () => {
    // GitLab's list_todos filters to-dos by the action that created them.
    const filter = schema({
      action: { type: 'string', enum: ['assigned', 'mentioned', 'merge_train_removed'] },
    });
    expect(hints({ name: 'list_todos', inputSchema: filter })).toMatchObject(READ);
    const selector = schema({ action: { type: 'string', enum: ['list', 'delete'] } });
    expect(hints({ name: 'n8n_executions', inputSchema: selector })).toMatchObject(DESTRUCTIVE);
  });

  it('reads a code argument as code only when its description says so', () => {
    // Qase's `code` is a project code; Firecrawl's interact runs the code it is given.
    const project = schema({ code: { type: 'string', description: 'Project code, e.g. DEMO.' } });
    expect(hints({ name: 'qase_project_context', inputSchema: project })).toEqual({});
    const script = schema({ code: { type: 'string', description: 'JavaScript code to run.' } });
    expect(hints({ name: 'page_interact', inputSchema: script }).readOnlyHint).toBe(false);
  });

  it('reads "permanent" as a statement only when the description says something is permanent', () => {
    // Paddle's create_product sells ebooks "with permanent rights".
    const product = {
      name: 'create_product',
      description: 'Creates a product. Ebooks are sold with permanent rights for use.',
    };
    expect(hints(product)).toMatchObject(ADDITIVE);
    const purge = {
      name: 'purge_snapshots',
      description: 'Removes snapshots. Deletion is permanent.',
    };
    expect(inferAnnotations(purge).reasons['destructiveHint']?.word).toBe('purge');
    const statement = { name: 'snapshots_tool', description: 'Deletion is permanent.' };
    expect(hints(statement)).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });
});
