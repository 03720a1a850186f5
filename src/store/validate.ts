import { EXTENSION_FIELDS, MCP_ANNOTATION_FIELDS } from '../core/annotations/types.js';
import { validateAnnotations } from '../core/annotations/validate.js';
import { compileRules } from '../core/dynamic/rules.js';
import { HintgateError } from '../core/errors.js';
import { validateNote } from '../core/notes/notes.js';
import { REF_ID_LENGTH } from '../core/refs/ref-id.js';
import { splitNamespacedName } from '../core/refs/names.js';
import type { ToolRef, ToolsetMember } from './types.js';

/** One bad field of an input, by its path (`notes[1].name`). */
export interface InputIssue {
  readonly path: string;
  readonly message: string;
}

/** Toolset names: lowercase letters, digits, `-` and `_`, starting with a letter or digit. */
export const TOOLSET_NAME = /^[a-z0-9][a-z0-9_-]*$/;
/** Limits on what a toolset holds. */
export const TOOLSET_LIMITS = {
  nameLength: 64,
  descriptionLength: 2000,
  members: 10_000,
} as const;

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
const REF_ID = new RegExp(`^[0-9a-f]{${REF_ID_LENGTH}}$`);
const KNOWN_FIELDS = new Set<string>([...MCP_ANNOTATION_FIELDS, ...EXTENSION_FIELDS]);

/** The `INPUT_INVALID` error for a list of issues, each named by its path. */
export function invalidInput(what: string, issues: readonly InputIssue[]): HintgateError {
  const listed = issues
    .slice(0, 10)
    .map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`));
  const more = issues.length > 10 ? `; and ${issues.length - 10} more` : '';
  return new HintgateError('INPUT_INVALID', `invalid ${what}: ${listed.join('; ')}${more}`, {
    issues,
  });
}

/** Throws {@link invalidInput} when there are issues. */
export function assertValid(what: string, issues: readonly InputIssue[]): void {
  if (issues.length > 0) throw invalidInput(what, issues);
}

/** Joins a path and a key the way messages show them. */
export function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** Problems with a toolset name. */
export function checkToolsetName(name: unknown, path = 'name'): InputIssue[] {
  if (typeof name !== 'string' || name === '') {
    return [{ path, message: 'toolset name must be a non-empty string' }];
  }
  if (name.length > TOOLSET_LIMITS.nameLength) {
    return [{ path, message: `toolset name is longer than ${TOOLSET_LIMITS.nameLength}` }];
  }
  if (!TOOLSET_NAME.test(name)) {
    return [
      {
        path,
        message: `toolset name "${name}" must match ${TOOLSET_NAME.source} (lowercase letters, digits, "-" and "_")`,
      },
    ];
  }
  return [];
}

/** Problems with a toolset description. */
export function checkDescription(description: unknown, path = 'description'): InputIssue[] {
  if (typeof description !== 'string') return [{ path, message: 'must be a string' }];
  if (description.length > TOOLSET_LIMITS.descriptionLength) {
    return [{ path, message: `is longer than ${TOOLSET_LIMITS.descriptionLength} characters` }];
  }
  return [];
}

function checkNamespacedName(value: unknown, path: string): InputIssue[] {
  if (typeof value !== 'string' || splitNamespacedName(value) === undefined) {
    return [{ path, message: 'must be a namespaced tool name, "server.tool"' }];
  }
  return [];
}

function checkRefId(value: unknown, path: string): InputIssue[] {
  if (typeof value !== 'string' || !REF_ID.test(value)) {
    return [{ path, message: `must be a refId: ${REF_ID_LENGTH} lowercase hex characters` }];
  }
  return [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keys of `value` outside `allowed`, as issues. */
export function checkKeys(
  value: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
): InputIssue[] {
  return Object.keys(value)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({ path: joinPath(path, key), message: 'unknown key' }));
}

/** Problems with a tool reference: an object with a namespacedName, a refId, or both. */
export function checkToolRef(ref: unknown, path = 'tool'): InputIssue[] {
  if (!isObject(ref)) return [{ path, message: 'must be { namespacedName } or { refId }' }];
  const issues = checkKeys(ref, ['namespacedName', 'refId'], path);
  const { namespacedName, refId } = ref;
  if (namespacedName === undefined && refId === undefined) {
    issues.push({ path, message: 'needs a namespacedName or a refId' });
  }
  if (namespacedName !== undefined) {
    issues.push(...checkNamespacedName(namespacedName, joinPath(path, 'namespacedName')));
  }
  if (refId !== undefined) issues.push(...checkRefId(refId, joinPath(path, 'refId')));
  return issues;
}

/** Problems with one toolset member. */
export function checkMember(member: unknown, path: string): InputIssue[] {
  if (!isObject(member)) return [{ path, message: 'must be an object with a "kind"' }];
  switch (member['kind']) {
    case 'tool':
      return [
        ...checkKeys(member, ['kind', 'namespacedName'], path),
        ...checkNamespacedName(member['namespacedName'], joinPath(path, 'namespacedName')),
      ];
    case 'ref':
      return [
        ...checkKeys(member, ['kind', 'refId'], path),
        ...checkRefId(member['refId'], joinPath(path, 'refId')),
      ];
    case 'server': {
      const server = member['server'];
      const issues = checkKeys(member, ['kind', 'server'], path);
      if (typeof server !== 'string' || !SERVER_NAME.test(server)) {
        issues.push({
          path: joinPath(path, 'server'),
          message: 'must be a server name (letters, digits, "_" and "-")',
        });
      }
      return issues;
    }
    default:
      return [{ path: joinPath(path, 'kind'), message: 'must be one of tool, ref, server' }];
  }
}

/** Problems with a list of members. */
export function checkMembers(members: unknown, path = 'members'): InputIssue[] {
  if (!Array.isArray(members)) return [{ path, message: 'must be an array' }];
  if (members.length > TOOLSET_LIMITS.members) {
    return [{ path, message: `holds more than ${TOOLSET_LIMITS.members} members` }];
  }
  return members.flatMap((member, index) => checkMember(member, joinPath(path, index)));
}

/** Problems with one note (name and text), from the core's rules. */
export function checkNote(note: unknown, path: string): InputIssue[] {
  if (!isObject(note)) return [{ path, message: 'must be { name, note }' }];
  const problem = validateNote({ name: note['name'], note: note['note'] });
  return problem === undefined ? [] : [{ path, message: problem }];
}

/**
 * Problems with an override: an object of known annotation fields, each valid on its own
 * and together (`validateAnnotations`' errors).
 */
export function checkOverride(annotations: unknown, path = 'annotations'): InputIssue[] {
  if (!isObject(annotations)) return [{ path, message: 'must be an object of annotation fields' }];
  const issues = Object.keys(annotations)
    .filter((key) => !KNOWN_FIELDS.has(key))
    .map((key) => ({
      path: joinPath(path, key),
      message: `is not an annotation field (known: ${[...KNOWN_FIELDS].join(', ')})`,
    }));
  for (const finding of validateAnnotations(annotations).errors) {
    issues.push({ path: joinPath(path, finding.field), message: finding.message });
  }
  return issues;
}

/** The value a member is stored under. */
export function memberValue(member: ToolsetMember): string {
  switch (member.kind) {
    case 'tool':
      return member.namespacedName;
    case 'ref':
      return member.refId;
    case 'server':
      return member.server;
  }
}

/** A member from its stored kind and value. */
export function memberFrom(kind: string, value: string): ToolsetMember {
  if (kind === 'tool') return { kind, namespacedName: value };
  if (kind === 'ref') return { kind, refId: value };
  return { kind: 'server', server: value };
}

/** A tool reference in the stored form, where '' means "not given". */
export function refColumns(ref: ToolRef): [namespacedName: string, refId: string] {
  return [ref.namespacedName ?? '', ref.refId ?? ''];
}

/** A tool reference from its stored form. */
export function refFrom(namespacedName: string, refId: string): ToolRef {
  return {
    ...(namespacedName === '' ? {} : { namespacedName }),
    ...(refId === '' ? {} : { refId }),
  };
}

/** A tool reference as people read it: `github.create_issue` or `ref 0123456789abcdef`. */
export function describeRef(ref: ToolRef): string {
  if (ref.namespacedName !== undefined && ref.refId !== undefined) {
    return `${ref.namespacedName} (ref ${ref.refId})`;
  }
  return ref.namespacedName ?? `ref ${ref.refId ?? '?'}`;
}

/** Problems with notes to add to a tool: a valid reference and at least one valid note. */
export function checkNotesInput(tool: ToolRef, notes: unknown): InputIssue[] {
  const issues = checkToolRef(tool);
  if (!Array.isArray(notes) || notes.length === 0) {
    issues.push({ path: 'notes', message: 'must hold at least one note' });
  } else {
    notes.forEach((note, index) => issues.push(...checkNote(note, joinPath('notes', index))));
  }
  return issues;
}

/** Problems with a new toolset or changes to one. */
export function checkToolsetInput(input: {
  readonly name?: string;
  readonly description?: string;
  readonly members?: readonly ToolsetMember[];
}): InputIssue[] {
  return [
    ...('name' in input ? checkToolsetName(input.name) : []),
    ...(input.description === undefined ? [] : checkDescription(input.description)),
    ...(input.members === undefined ? [] : checkMembers(input.members)),
  ];
}

/** The most dynamic-annotation rules one toolset holds. */
export const MAX_TOOLSET_RULES = 1_000;

/**
 * Problems with a toolset's dynamic-annotation rules, each naming its rule (`rules[1]: rule
 * 2 ("reads"): match[0].regex: invalid regular expression: …`).
 */
export function checkRules(rules: unknown, path = 'rules'): InputIssue[] {
  if (!Array.isArray(rules)) return [{ path, message: 'must be an array of rules' }];
  if (rules.length > MAX_TOOLSET_RULES) {
    return [{ path, message: `holds more than ${MAX_TOOLSET_RULES} rules` }];
  }
  const compiled = compileRules(rules);
  if (compiled.ok) return [];
  return compiled.errors.map((error) => ({
    path: error.rule < 0 ? path : joinPath(path, error.rule),
    message: error.message,
  }));
}
