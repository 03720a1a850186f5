import { describe, expect, it } from 'vitest';
import type { ToolAnnotations } from '../../../src/core/annotations/types.js';
import type { ConfirmMode } from '../../../src/core/policy/decide.js';
import {
  DEFAULT_CONFIRM_POLICY,
  decide,
  layerConfirmPolicy,
} from '../../../src/core/policy/decide.js';

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false };
const ADD: ToolAnnotations = { readOnlyHint: false, destructiveHint: false };
const DESTROY: ToolAnnotations = { readOnlyHint: false, destructiveHint: true };
const NONE: ToolAnnotations = {};

describe('decide', () => {
  it.each<[ConfirmMode, boolean, ToolAnnotations, string]>([
    ['destructive', true, READ, 'allow'],
    ['destructive', true, ADD, 'allow'],
    ['destructive', true, DESTROY, 'confirm'],
    ['destructive', true, NONE, 'confirm'],
    ['writes', true, READ, 'allow'],
    ['writes', true, ADD, 'confirm'],
    ['writes', true, DESTROY, 'confirm'],
    ['always', true, READ, 'allow'],
    ['always', false, READ, 'confirm'],
    ['always', true, ADD, 'confirm'],
    ['never', true, DESTROY, 'allow'],
    ['never', false, READ, 'allow'],
    ['writes', false, READ, 'allow'],
  ])(
    'confirm: %s, auto-approve read-only %s: %j → %s',
    (confirm, autoApproveReadOnly, annotations, kind) => {
      const policy = layerConfirmPolicy({ confirm, autoApproveReadOnly });
      expect(decide(annotations, {}, policy).kind).toBe(kind);
    },
  );

  it('says which hint decided and where it came from', () => {
    const decision = decide(
      DESTROY,
      {
        destructiveHint: {
          value: true,
          source: 'inferred',
          reason: 'name word "delete" is a destructive verb',
        },
      },
      DEFAULT_CONFIRM_POLICY,
    );
    expect(decision).toMatchObject({
      kind: 'confirm',
      channel: 'any',
      reason: 'destructiveHint: true (inferred: name word "delete" is a destructive verb)',
    });
  });

  it('honours an explicit requiresConfirmation either way', () => {
    expect(decide({ ...READ, requiresConfirmation: true }, {}, DEFAULT_CONFIRM_POLICY).kind).toBe(
      'confirm',
    );
    expect(
      decide({ ...DESTROY, requiresConfirmation: false }, {}, DEFAULT_CONFIRM_POLICY).kind,
    ).toBe('allow');
  });

  it('routes confirmation to the queue when a person must answer out of band', () => {
    const policy = layerConfirmPolicy(
      { confirm: 'writes' },
      { requireApprovalQueue: true, message: 'ask ops' },
    );
    expect(decide(ADD, {}, policy)).toMatchObject({
      kind: 'confirm',
      channel: 'queue',
      message: 'ask ops',
    });
  });

  it('denies when policy says so, whatever the hints', () => {
    expect(decide(READ, {}, layerConfirmPolicy({ deny: true })).kind).toBe('deny');
  });

  it('layers settings field by field, ignoring undefined', () => {
    expect(
      layerConfirmPolicy({ confirm: 'writes' }, { confirm: undefined, autoApproveReadOnly: false }),
    ).toEqual({ ...DEFAULT_CONFIRM_POLICY, confirm: 'writes', autoApproveReadOnly: false });
  });
});
