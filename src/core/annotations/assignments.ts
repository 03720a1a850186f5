import { HintgateError } from '../errors.js';
import type { ToolAnnotations } from './types.js';
import { EXTENSION_FIELDS, MCP_ANNOTATION_FIELDS } from './types.js';

/** Every field an override may set. */
export const OVERRIDE_FIELDS: ReadonlySet<string> = new Set<string>([
  ...MCP_ANNOTATION_FIELDS,
  ...EXTENSION_FIELDS,
]);
const NUMBER_FIELDS = new Set(['estimatedDuration', 'rateLimitHint', 'costHint']);
const BOOLEAN_FIELDS = new Set([
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
  'requiresConfirmation',
  'auditRequired',
]);

/**
 * `field=value` pairs as annotation fields: booleans (`true`/`false`), numbers for the
 * numeric extensions, `tags=a,b` as a list, anything else as text. Unknown fields and
 * values of the wrong kind are INPUT_INVALID naming them (the store checks the rest).
 */
export function parseAssignments(assignments: readonly string[]): ToolAnnotations {
  if (assignments.length === 0) {
    throw new HintgateError(
      'INPUT_INVALID',
      'give at least one field=value (e.g. readOnlyHint=true destructiveHint=false)',
    );
  }
  const result: Record<string, unknown> = {};
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=');
    const field = equals < 0 ? assignment : assignment.slice(0, equals);
    const text = equals < 0 ? '' : assignment.slice(equals + 1);
    if (equals < 0 || !OVERRIDE_FIELDS.has(field)) {
      throw new HintgateError(
        'INPUT_INVALID',
        `"${assignment}": expected field=value with a field among ${[...OVERRIDE_FIELDS].join(', ')}`,
      );
    }
    result[field] = parseValue(field, text);
  }
  return result;
}

/** One field's value from its text (see {@link parseAssignments}). */
export function parseValue(field: string, text: string): unknown {
  if (BOOLEAN_FIELDS.has(field)) {
    if (text === 'true') return true;
    if (text === 'false') return false;
    throw new HintgateError('INPUT_INVALID', `${field}: expected true or false, got "${text}"`);
  }
  if (NUMBER_FIELDS.has(field)) {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) {
      throw new HintgateError('INPUT_INVALID', `${field}: expected a number, got "${text}"`);
    }
    return value;
  }
  if (field === 'tags')
    return text
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== '');
  return text;
}
