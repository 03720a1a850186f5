import { describe, expect, it } from 'vitest';
import { detectConflicts, findDisagreements } from '../../../src/core/annotations/conflicts.js';
import { inferAnnotations } from '../../../src/core/inference/infer.js';
import { resolveEffectiveAnnotations } from '../../../src/core/annotations/effective.js';
import type { InferenceResult } from '../../../src/core/inference/types.js';

const deleteRepo: InferenceResult = {
  annotations: { readOnlyHint: false, destructiveHint: true },
  reasons: {
    readOnlyHint: {
      part: 'name',
      word: 'delete',
      rule: 'destructive-verb',
      strength: 'strong',
      decisive: true,
      text: 'name word "delete" is a destructive verb',
    },
    destructiveHint: {
      part: 'name',
      word: 'delete',
      rule: 'destructive-verb',
      strength: 'strong',
      decisive: true,
      text: 'name word "delete" is a destructive verb',
    },
  },
};

describe('detectConflicts', () => {
  it('flags an untrusted server declaring a destructive tool read-only', () => {
    const conflicts = detectConflicts({
      declared: { readOnlyHint: true, destructiveHint: false },
      inference: deleteRepo,
      trust: 'untrusted',
    });
    expect(conflicts.map((c) => [c.field, c.declared, c.resolved])).toEqual([
      ['readOnlyHint', true, false],
      ['destructiveHint', false, true],
    ]);
    expect(conflicts[0]?.reason).toContain('"delete"');
  });

  it('takes a trusted server at its word', () => {
    expect(
      detectConflicts({
        declared: { readOnlyHint: true },
        inference: deleteRepo,
        trust: 'trusted',
      }),
    ).toEqual([]);
  });

  it('ignores strong evidence that is not decisive', () => {
    const strong: InferenceResult = {
      annotations: { readOnlyHint: false },
      reasons: {
        readOnlyHint: { ...deleteRepo.reasons['readOnlyHint']!, decisive: false },
      },
    };
    expect(
      detectConflicts({ declared: { readOnlyHint: true }, inference: strong, trust: 'untrusted' }),
    ).toEqual([]);
  });

  it('ignores weak evidence', () => {
    const weak: InferenceResult = {
      annotations: { readOnlyHint: false },
      reasons: {
        readOnlyHint: { ...deleteRepo.reasons['readOnlyHint']!, strength: 'weak' },
      },
    };
    expect(
      detectConflicts({ declared: { readOnlyHint: true }, inference: weak, trust: 'untrusted' }),
    ).toEqual([]);
  });
});

describe('conflicts on real tool names', () => {
  const untrusted = (name: string, declared: Record<string, boolean>, description?: string) => {
    const inference = inferAnnotations({ name, description });
    return {
      conflicts: detectConflicts({ declared, inference, trust: 'untrusted' }),
      notes: findDisagreements({ declared, inference, trust: 'untrusted' }),
    };
  };

  it.each([
    ['delete_repo'],
    ['drop_table'],
    ['compute_vm_delete'],
    ['deleteWorkspace'],
    ['purge-queue'],
  ])('changes %s declared read-only: its main verb destroys', (name) => {
    const { conflicts } = untrusted(name, { readOnlyHint: true });
    expect(conflicts.map((c) => c.field)).toEqual(['readOnlyHint']);
    expect(conflicts[0]?.resolved).toBe(false);
  });

  it('changes a tool running arbitrary SQL declared not destructive', () => {
    const inference = inferAnnotations({
      name: 'execute_sql',
      inputSchema: { type: 'object', properties: { sql: { type: 'string' } } },
    });
    const conflicts = detectConflicts({
      declared: { readOnlyHint: false, destructiveHint: false },
      inference,
      trust: 'untrusted',
    });
    expect(conflicts.map((c) => c.field)).toEqual(['destructiveHint']);
  });

  it.each([
    ['updateTeam', { readOnlyHint: false, destructiveHint: false }, 'Update a team.'],
    ['updateDocument', { readOnlyHint: false, destructiveHint: false }, 'Updates a document.'],
    ['servicebus_queue_details', { readOnlyHint: true }, 'Get details about a queue.'],
    ['deploy_iac_rules_get', { readOnlyHint: true }, 'Get IaC rules for a deployment.'],
    ['browser_start_recording', { readOnlyHint: true }, 'Start recording the session.'],
    ['trigger-long-running-operation', { readOnlyHint: true }, 'Demonstrates progress.'],
  ])('keeps the honest declaration of %s: the evidence is not decisive', (name, declared, text) => {
    expect(untrusted(name, declared, text).conflicts).toEqual([]);
  });

  it.each([
    // Taking one thing off another loses neither (Linear, SmartBear's QTM4J).
    ['linear_removeUserFromTeam', 'Remove a user from a team'],
    ['linear_removeIssueLabel', 'Remove a label from an issue in Linear'],
    ['qtm4j_unlink_test_cases_from_test_cycle', 'Unlink test cases from a QTM4J test cycle.'],
    // Restarting or cancelling may lose nothing (kubernetes-mcp-server, SmartBear).
    ['tekton_taskrun_restart', 'Restart a Tekton TaskRun by creating a new TaskRun.'],
    ['swagger_cancel_suite_execution', 'Cancels an ongoing test suite execution.'],
  ])('keeps %s declared not destructive: its verb does not destroy outright', (name, text) => {
    const { conflicts, notes } = untrusted(
      name,
      { readOnlyHint: false, destructiveHint: false },
      text,
    );
    expect(conflicts).toEqual([]);
    expect(notes.map((n) => n.field)).toEqual(['destructiveHint']);
  });

  it.each([
    // DigitalOcean: the description says what the removal takes the droplets from.
    ['firewall-remove-droplets', 'Removes one or more droplets from a firewall'],
    // DigitalOcean invokes a deployed function; Postman stores a package's script.
    ['functions-invoke-action', 'Invoke a function action in a namespace.'],
    ['spaces-cdn-flush-cache', 'Flush the cache of a CDN'],
  ])('keeps %s declared not destructive: nothing proves it destroys', (name, text) => {
    expect(
      untrusted(name, { readOnlyHint: false, destructiveHint: false }, text).conflicts,
    ).toEqual([]);
  });

  it('keeps a tool storing a script declared not destructive, and one running SQL not', () => {
    const script = { type: 'object', properties: { script: { type: 'string' } } };
    const declared = { readOnlyHint: false, destructiveHint: false };
    const stores = inferAnnotations({ name: 'createPackage', inputSchema: script });
    expect(detectConflicts({ declared, inference: stores, trust: 'untrusted' })).toEqual([]);
    const sql = { type: 'object', properties: { sql: { type: 'string' } } };
    const runs = inferAnnotations({ name: 'run_sql', inputSchema: sql });
    expect(
      detectConflicts({ declared, inference: runs, trust: 'untrusted' }).map((c) => c.field),
    ).toEqual(['destructiveHint']);
  });

  it('still changes a deletion of records from a table declared not destructive', () => {
    const { conflicts } = untrusted(
      'delete_records_from_table',
      { readOnlyHint: false, destructiveHint: false },
      'Delete records from a table',
    );
    expect(conflicts.map((c) => c.field)).toEqual(['destructiveHint']);
  });

  it('still changes a cancellation declared read-only: it is a write', () => {
    // SmartBear's reflect_cancel_suite_execution is declared read-only.
    const { conflicts } = untrusted(
      'reflect_cancel_suite_execution',
      { readOnlyHint: true, destructiveHint: false },
      'Cancel a reflect suite execution',
    );
    expect(conflicts.map((c) => c.field)).toEqual(['readOnlyHint']);
  });

  it.each([['delete_repository'], ['drop_table'], ['compute_vm_delete'], ['purge-queue']])(
    'changes %s declared not destructive: its verb destroys outright',
    (name) => {
      const { conflicts } = untrusted(name, { readOnlyHint: false, destructiveHint: false });
      expect(conflicts.map((c) => c.field)).toEqual(['destructiveHint']);
    },
  );

  it('reports weak disagreements as notes, not conflicts', () => {
    const { conflicts, notes } = untrusted(
      'updateTeam',
      { readOnlyHint: false, destructiveHint: false },
      'Update a team.',
    );
    expect(conflicts).toEqual([]);
    expect(notes.map((n) => [n.field, n.declared, n.inferred])).toEqual([
      ['destructiveHint', false, true],
    ]);
    expect(notes[0]?.reason).toContain('"update"');
  });

  it('makes no note of a conflict or of agreement', () => {
    expect(untrusted('delete_repo', { readOnlyHint: true }).notes).toEqual([]);
    expect(untrusted('list_repos', { readOnlyHint: true }).notes).toEqual([]);
  });
});

describe('resolveEffectiveAnnotations', () => {
  it('passes declared values through over inferred ones', () => {
    const effective = resolveEffectiveAnnotations({
      inference: { annotations: { readOnlyHint: true, title: 'Inferred' }, reasons: {} },
      declared: { title: 'Declared', openWorldHint: false },
    });
    expect(effective.annotations.title).toBe('Declared');
    expect(effective.provenance['openWorldHint']?.source).toBe('declared');
    expect(effective.provenance['readOnlyHint']?.source).toBe('inferred');
  });

  it('acts on the conservative value when an untrusted declaration conflicts', () => {
    const effective = resolveEffectiveAnnotations({
      inference: deleteRepo,
      declared: { readOnlyHint: true, destructiveHint: false, title: 'Delete repo' },
    });
    expect(effective.annotations.readOnlyHint).toBe(false);
    expect(effective.annotations.destructiveHint).toBe(true);
    expect(effective.annotations.title).toBe('Delete repo');
    expect(effective.conflicts).toHaveLength(2);
  });

  it('lets a user override settle a conflict', () => {
    const effective = resolveEffectiveAnnotations({
      inference: deleteRepo,
      declared: { readOnlyHint: true },
      overrides: { readOnlyHint: true },
    });
    expect(effective.annotations.readOnlyHint).toBe(true);
    expect(effective.provenance['readOnlyHint']?.source).toBe('override');
  });

  it('ranks server defaults between inferred and declared values', () => {
    const effective = resolveEffectiveAnnotations({
      inference: { annotations: { openWorldHint: true, idempotentHint: true }, reasons: {} },
      serverDefaults: { openWorldHint: false, idempotentHint: false },
      declared: { idempotentHint: true },
    });
    expect(effective.annotations.openWorldHint).toBe(false);
    expect(effective.provenance['openWorldHint']?.source).toBe('server-default');
    expect(effective.provenance['idempotentHint']?.source).toBe('declared');
  });

  it('completes every hint, with the MCP defaults where nothing is known', () => {
    const effective = resolveEffectiveAnnotations({});
    expect(effective.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(effective.provenance['destructiveHint']?.source).toBe('spec-default');
  });

  it('completes a read-only tool as non-destructive and idempotent', () => {
    const effective = resolveEffectiveAnnotations({ declared: { readOnlyHint: true } });
    expect(effective.annotations.destructiveHint).toBe(false);
    expect(effective.annotations.idempotentHint).toBe(true);
    expect(effective.provenance['destructiveHint']?.reason).toBe('implied by readOnlyHint: true');
  });
});
