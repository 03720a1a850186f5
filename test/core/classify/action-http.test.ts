import { describe, expect, it } from 'vitest';
import {
  classifyAction,
  classifyHttpRequest,
  httpMethodEffect,
} from '../../../src/core/dynamic/index.js';
import { inferFromHttpMethod } from '../../../src/core/inference/http-method.js';
import type { HintCode } from './codes.js';
import { codeOf, reasonText } from './codes.js';

describe('classifyAction', () => {
  const rows: ReadonlyArray<readonly [string, HintCode | '-', string]> = [
    // The proposal's manage_files example.
    ['read', 'R', 'action `read`: `read` is a read-only verb'],
    ['append', 'A', '`append` is an additive verb'],
    ['replace', 'DI', '`replace` is a destructive verb'],
    ['delete', 'DI', '`delete` is a destructive verb'],
    // Values from real many-action tools.
    ['list_files', 'R', '`list`'],
    ['get_workflow_run_logs_url', 'R', '`get` is a read-only verb'],
    ['download_workflow_run_artifact', 'R', '`download`'],
    ['delete_workflow_run_logs', 'DI', '`delete`'],
    ['cancel_workflow_run', 'DI', '`cancel`'],
    ['rerun_failed_jobs', 'D', 'runs code or commands'],
    ['run_workflow', 'D', 'runs code or commands'],
    ['create', 'A', '`create` is an additive verb'],
    ['update', 'DI', '`update` changes existing state in place'],
    ['add_project_item', 'A', '`add`'],
    ['submit_pending', 'A', '`submit`'],
    ['mark_answer', 'AI', '`mark` is a reversible state change'],
    ['resolve_thread', 'AI', '`resolve`'],
    ['cordon', 'AI', 'reversible'],
    ['drain', 'DI', '`drain`'],
    ['rewrite', 'D', '`rewrite` is a destructive verb'],
    ['issue_read', 'R', '`read`'],
    ['getAndDelete', 'DI', '`delete` is a destructive verb'],
    ['search_and_replace', 'DI', '`replace`'],
    ['force_push', 'D', '`force` forces the action'],
    ['LIST', 'R', '`list`'],
    ['rm', 'DI', '`rm`'],
    ['ls', 'R', '`ls`'],
    // Nouns, adjectives and modes are not verbs.
    ['labels', '-', ''],
    ['deleted_items', '-', ''],
    ['navigation', '-', ''],
    ['snapshot', '-', ''],
    ['', '-', ''],
  ];

  it.each(rows)('%s → %s', (value, code, reason) => {
    const result = classifyAction(value);
    expect(codeOf(result)).toBe(code);
    expect(reasonText(result)).toContain(reason);
  });
});

describe('classifyHttpRequest', () => {
  const rows: ReadonlyArray<readonly [string, string | undefined, HintCode, string]> = [
    ['GET', '/repos/{owner}/{repo}', 'R', 'HTTP `GET /repos/{owner}/{repo}` is a safe method'],
    ['head', undefined, 'R', 'HTTP `HEAD` is a safe method'],
    ['OPTIONS', '/', 'R', 'safe'],
    ['POST', '/repos/{owner}/{repo}/issues', 'A', 'creates or submits'],
    ['PUT', '/repos/{owner}/{repo}/contents/{path}', 'DI', 'replaces the target'],
    ['PATCH', '/user', 'D', 'changes the target in place'],
    [
      'DELETE',
      '/repos/{owner}/{repo}',
      'DI',
      'HTTP `DELETE /repos/{owner}/{repo}` removes the target',
    ],
    ['delete', '/api/dashboards/uid/abc', 'DI', 'removes the target'],
    ['PURGE', '/cache', 'D', 'uses a method hintgate does not know'],
    ['CONNECT', 'proxy:443', 'D', 'does not know'],
  ];

  it.each(rows)('%s %s → %s', (method, path, code, reason) => {
    const result = classifyHttpRequest(method, path);
    expect(codeOf(result)).toBe(code);
    expect(reasonText(result)).toContain(reason);
  });

  it('agrees with the method table of name inference', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(httpMethodEffect(method)?.hints).toEqual(inferFromHttpMethod(method).annotations);
    }
  });

  it('does not apply without a method', () => {
    expect(classifyHttpRequest('  ')).toBeUndefined();
  });

  describe('GraphQL', () => {
    const rows: ReadonlyArray<readonly [unknown, HintCode, string]> = [
      [{ query: 'query { viewer { login } }' }, 'R', 'is a query: it only reads'],
      ['{ viewer { login } }', 'R', 'is a query'],
      [
        '{"query":"{ repository(owner: \\"a\\", name: \\"b\\") { stargazerCount } }"}',
        'R',
        'is a query',
      ],
      [{ query: 'subscription { issueAdded { id } }' }, 'R', 'is a subscription'],
      [
        { query: '# mutation { deleteRepository }\nquery Q($id: ID!) { node(id: $id) { id } }' },
        'R',
        'is a query',
      ],
      [
        {
          query:
            'mutation ($id: ID!) { deleteRepository(input: { repositoryId: $id }) { clientMutationId } }',
        },
        'DI',
        'runs the mutation `deleteRepository`: `delete` is a destructive verb',
      ],
      [
        { query: 'mutation { addStar(input: { starrableId: "x" }) { clientMutationId } }' },
        'A',
        '`addStar`',
      ],
      [
        { query: 'mutation { a: addStar(input: {}) { x } b: removeStar(input: {}) { x } }' },
        'D',
        '`removeStar`',
      ],
      [{ query: 'mutation { frobnicate { ok } }' }, 'D', 'whose verb hintgate does not know'],
      [
        [{ query: '{ a }' }, { query: 'mutation { createIssue(input: {}) { issue { id } } }' }],
        'A',
        '`createIssue`',
      ],
      [{ variables: {} }, 'D', 'posts a GraphQL request hintgate cannot read'],
      [undefined, 'D', 'cannot read'],
    ];

    it.each(rows)('POST /graphql %j → %s', (body, code, reason) => {
      const result = classifyHttpRequest('POST', '/api/graphql', body);
      expect(codeOf(result)).toBe(code);
      expect(reasonText(result)).toContain(reason);
    });

    it('reads a POST to another path by its method', () => {
      expect(codeOf(classifyHttpRequest('POST', '/graphqlish', { query: '{ a }' }))).toBe('A');
    });
  });
});
