import type { ToolAnnotations } from './types.js';
import { COMPLEXITY_LEVELS, HINT_FIELDS, SECURITY_LEVELS } from './types.js';

/** One problem found in a set of annotations. */
export interface Finding {
  /** The field at fault (`readOnlyHint`, `tags[2]`). */
  readonly field: string;
  /** A stable identifier of the kind of problem. */
  readonly code: string;
  /** A readable sentence naming the field and what is wrong. */
  readonly message: string;
}

/** The outcome of {@link validateAnnotations}: errors make annotations unusable, warnings do not. */
export interface ValidationResult {
  readonly errors: readonly Finding[];
  readonly warnings: readonly Finding[];
}

const NUMERIC_FIELDS = ['estimatedDuration', 'rateLimitHint', 'costHint'] as const;
const BOOLEAN_EXTENSIONS = ['requiresConfirmation', 'auditRequired'] as const;

/**
 * Checks a set of annotations and returns readable errors and warnings: read-only and
 * destructive both true; destructive or idempotent set on a read-only tool (meaningless);
 * hints that are not booleans; negative or non-finite numbers; empty or duplicate tags;
 * enum values outside their sets.
 *
 * @example
 * validateAnnotations({ readOnlyHint: true, destructiveHint: true }).errors[0].message
 * // 'readOnlyHint and destructiveHint are both true: a read-only tool cannot destroy anything'
 */
export function validateAnnotations(annotations: ToolAnnotations): ValidationResult {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const error = (field: string, code: string, message: string): void => {
    errors.push({ field, code, message });
  };
  const warn = (field: string, code: string, message: string): void => {
    warnings.push({ field, code, message });
  };

  for (const field of [...HINT_FIELDS, ...BOOLEAN_EXTENSIONS]) {
    const value = annotations[field];
    if (value !== undefined && typeof value !== 'boolean') {
      error(field, 'not-boolean', `${field} must be true or false, not ${describe(value)}`);
    }
  }
  if (annotations.title !== undefined && typeof annotations.title !== 'string') {
    error('title', 'not-string', `title must be a string, not ${describe(annotations.title)}`);
  }

  if (annotations.readOnlyHint === true) {
    if (annotations.destructiveHint === true) {
      error(
        'destructiveHint',
        'read-only-and-destructive',
        'readOnlyHint and destructiveHint are both true: a read-only tool cannot destroy anything',
      );
    } else if (annotations.destructiveHint !== undefined) {
      warn(
        'destructiveHint',
        'meaningless-when-read-only',
        'destructiveHint is set on a read-only tool, where it has no meaning',
      );
    }
    if (annotations.idempotentHint !== undefined) {
      warn(
        'idempotentHint',
        'meaningless-when-read-only',
        'idempotentHint is set on a read-only tool, where it has no meaning',
      );
    }
  }

  for (const field of NUMERIC_FIELDS) {
    const value: unknown = annotations[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      error(field, 'not-finite', `${field} must be a finite number, not ${describe(value)}`);
    } else if (value < 0) {
      error(field, 'negative', `${field} must not be negative (got ${value})`);
    }
  }

  const tags: unknown = annotations.tags;
  if (tags !== undefined) {
    if (!Array.isArray(tags)) {
      error('tags', 'not-array', `tags must be an array of strings, not ${describe(tags)}`);
    } else {
      const seen = new Set<string>();
      tags.forEach((tag: unknown, index) => {
        if (typeof tag !== 'string' || tag.trim() === '') {
          error(`tags[${index}]`, 'empty-tag', `tags[${index}] must be a non-empty string`);
        } else if (seen.has(tag)) {
          warn(`tags[${index}]`, 'duplicate-tag', `tags[${index}] repeats the tag "${tag}"`);
        } else {
          seen.add(tag);
        }
      });
    }
  }

  checkEnum(annotations.complexity, 'complexity', COMPLEXITY_LEVELS, error);
  checkEnum(annotations.securityLevel, 'securityLevel', SECURITY_LEVELS, error);
  return { errors, warnings };
}

function checkEnum(
  value: unknown,
  field: string,
  allowed: readonly string[],
  error: (field: string, code: string, message: string) => void,
): void {
  if (value === undefined || (typeof value === 'string' && allowed.includes(value))) return;
  error(field, 'bad-enum', `${field} must be one of ${allowed.join(', ')}, not ${describe(value)}`);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return String(value);
  }
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
