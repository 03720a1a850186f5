/**
 * Drift: how a tool's definition differs from its pin, field by field, each change graded
 * by its direction for safety. A hint that says "safer" than the pin is a relaxation; one
 * that says "more dangerous" an escalation; new text that speaks to the model is suspicious.
 */
import { HINT_FIELDS, SECURITY_LEVELS } from '../annotations/types.js';
import { SAFE, staticHint } from '../dynamic/resolve.js';
import type { ToolDefinition } from './definition.js';
import type { ScanContext, TextFinding } from './scan.js';
import { scanDefinition } from './scan.js';

/** How a change is graded. */
export type DriftGrade =
  | 'suspicious-text'
  | 'relaxation'
  | 'new-tool'
  | 'renamed'
  | 'removed-tool'
  | 'schema-change'
  | 'escalation'
  | 'wording-change';

/** The grades, most serious first (the order lists and diffs use). */
export const DRIFT_GRADES: readonly DriftGrade[] = [
  'suspicious-text',
  'relaxation',
  'new-tool',
  'renamed',
  'removed-tool',
  'schema-change',
  'escalation',
  'wording-change',
];

/** One changed value: where, before and after (undefined: absent), and its grade. */
export interface FieldChange {
  /** `description`, `annotations.readOnlyHint`, `inputSchema.properties.id.type`, … */
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly grade: DriftGrade;
}

/** How one tool differs from what was pinned. */
export interface Drift {
  /** The tool's name as listed now (for a removed tool, as pinned). */
  readonly tool: string;
  readonly kind: 'changed' | 'new' | 'removed';
  /** A new name for a pinned tool, recognised by its schema: graded against that pin. */
  readonly renamedFrom?: string;
  /** Every grade present, most serious first. */
  readonly grades: readonly DriftGrade[];
  readonly changes: readonly FieldChange[];
  /** Suspicious text the current definition carries that the pin did not. */
  readonly findings: readonly TextFinding[];
}

/** Extension fields whose `true` asks for more care: losing it is a relaxation. */
const CARE_FLAGS = ['requiresConfirmation', 'auditRequired'] as const;

const MAX_CHANGES = 200;

/** Leaf differences between two JSON values, as paths. */
function diffValues(
  before: unknown,
  after: unknown,
  path: string,
  out: { path: string; before: unknown; after: unknown }[],
): void {
  if (out.length >= MAX_CHANGES) return;
  const objects =
    typeof before === 'object' &&
    before !== null &&
    typeof after === 'object' &&
    after !== null &&
    Array.isArray(before) === Array.isArray(after);
  if (!objects) {
    if (!sameJson(before, after)) out.push({ path, before, after });
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    // Arrays compared as wholes: an inserted item would otherwise change every index after it.
    if (!sameJson(before, after)) out.push({ path, before, after });
    return;
  }
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of [...keys].sort()) diffValues(a[key], b[key], `${path}.${key}`, out);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return stableJson(a) === stableJson(b);
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    typeof member === 'object' && member !== null && !Array.isArray(member)
      ? Object.fromEntries(
          Object.entries(member as Record<string, unknown>).sort(([x], [y]) =>
            x < y ? -1 : x > y ? 1 : 0,
          ),
        )
      : member,
  );
}

function securityRank(value: unknown): number {
  return typeof value === 'string' ? SECURITY_LEVELS.indexOf(value as never) : -1;
}

/** The annotation changes, each hint read as MCP means it (defaults, read-only implies). */
function annotationChanges(before: ToolDefinition, after: ToolDefinition): FieldChange[] {
  const a = before.annotations;
  const b = after.annotations;
  const changes: FieldChange[] = [];
  for (const field of HINT_FIELDS) {
    const was = staticHint(a, field);
    const now = staticHint(b, field);
    if (was === now) {
      if (!sameJson(a?.[field], b?.[field]))
        changes.push({
          path: `annotations.${field}`,
          before: a?.[field],
          after: b?.[field],
          grade: 'wording-change',
        });
      continue;
    }
    changes.push({
      path: `annotations.${field}`,
      before: a?.[field] ?? was,
      after: b?.[field] ?? now,
      grade: now === SAFE[field] ? 'relaxation' : 'escalation',
    });
  }
  for (const field of CARE_FLAGS) {
    const was = a?.[field] === true;
    const now = b?.[field] === true;
    if (was !== now)
      changes.push({
        path: `annotations.${field}`,
        before: a?.[field],
        after: b?.[field],
        grade: was ? 'relaxation' : 'escalation',
      });
  }
  const wasLevel = securityRank(a?.['securityLevel']);
  const nowLevel = securityRank(b?.['securityLevel']);
  if (wasLevel !== nowLevel)
    changes.push({
      path: 'annotations.securityLevel',
      before: a?.['securityLevel'],
      after: b?.['securityLevel'],
      grade: nowLevel < wasLevel ? 'relaxation' : 'escalation',
    });
  const graded = new Set<string>([...HINT_FIELDS, ...CARE_FLAGS, 'securityLevel']);
  const rest: { path: string; before: unknown; after: unknown }[] = [];
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  for (const key of [...keys].sort()) {
    if (!graded.has(key)) diffValues(a?.[key], b?.[key], `annotations.${key}`, rest);
  }
  for (const item of rest) changes.push({ ...item, grade: 'wording-change' });
  return changes;
}

/** Every change from `before` to `after`, graded (without the text scan). */
export function diffDefinitions(before: ToolDefinition, after: ToolDefinition): FieldChange[] {
  const changes: FieldChange[] = [];
  if (before.name !== after.name)
    changes.push({ path: 'name', before: before.name, after: after.name, grade: 'renamed' });
  for (const field of ['title', 'description'] as const) {
    if (before[field] !== after[field])
      changes.push({
        path: field,
        before: before[field],
        after: after[field],
        grade: 'wording-change',
      });
  }
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    const found: { path: string; before: unknown; after: unknown }[] = [];
    diffValues(before[field], after[field], field, found);
    for (const item of found) {
      // A schema's own words (descriptions, titles) change the wording, not the contract.
      const wording = /\.(description|title|examples)$/.test(item.path);
      changes.push({ ...item, grade: wording ? 'wording-change' : 'schema-change' });
    }
  }
  changes.push(...annotationChanges(before, after));
  const meta: { path: string; before: unknown; after: unknown }[] = [];
  diffValues(before._meta, after._meta, '_meta', meta);
  for (const item of meta) changes.push({ ...item, grade: 'wording-change' });
  return changes;
}

function findingKey(finding: TextFinding): string {
  return `${finding.kind} ${finding.field}`;
}

function sortedGrades(grades: Iterable<DriftGrade>): DriftGrade[] {
  const set = new Set(grades);
  return DRIFT_GRADES.filter((grade) => set.has(grade));
}

/**
 * How `current` differs from `pinned` (undefined: a tool never seen). Findings are the
 * suspicious text of `current` that `pinned` did not carry in the same place (a tool
 * approved with some text is not flagged again for it); a new tool is scanned whole.
 */
export function compareTool(
  pinned: ToolDefinition | undefined,
  current: ToolDefinition,
  context: ScanContext = {},
  renamedFrom?: string,
): Drift {
  const known =
    pinned === undefined
      ? new Set<string>()
      : new Set(scanDefinition(pinned, context).map(findingKey));
  const findings = scanDefinition(current, context).filter(
    (finding) => !known.has(findingKey(finding)),
  );
  const changes = pinned === undefined ? [] : diffDefinitions(pinned, current);
  const grades = changes.map((change) => change.grade);
  if (findings.length > 0) grades.push('suspicious-text');
  if (pinned === undefined || renamedFrom !== undefined) grades.push('new-tool');
  return {
    tool: current.name,
    kind: pinned === undefined || renamedFrom !== undefined ? 'new' : 'changed',
    ...(renamedFrom === undefined ? {} : { renamedFrom }),
    grades: sortedGrades(grades),
    changes,
    findings,
  };
}

/** A pinned tool the server no longer lists. */
export function removedTool(pinned: ToolDefinition): Drift {
  return {
    tool: pinned.name,
    kind: 'removed',
    grades: ['removed-tool'],
    changes: [],
    findings: [],
  };
}

/** What a schema offers: its top-level properties with their types. */
function schemaSignature(schema: unknown): Set<string> {
  const signature = new Set<string>();
  if (typeof schema !== 'object' || schema === null) return signature;
  const properties = (schema as Record<string, unknown>)['properties'];
  if (typeof properties !== 'object' || properties === null) return signature;
  for (const [name, value] of Object.entries(properties)) {
    const type =
      typeof value === 'object' && value !== null
        ? JSON.stringify((value as Record<string, unknown>)['type'] ?? null)
        : 'null';
    signature.add(`${name}:${type}`);
  }
  return signature;
}

function similarity(a: ToolDefinition, b: ToolDefinition): number {
  const x = schemaSignature(a.inputSchema);
  const y = schemaSignature(b.inputSchema);
  if (x.size === 0 && y.size === 0) {
    return a.description !== undefined && a.description !== '' && a.description === b.description
      ? 1
      : 0;
  }
  let shared = 0;
  for (const item of x) if (y.has(item)) shared++;
  return shared / (x.size + y.size - shared);
}

/** How alike two schemas must be (Jaccard over properties and types) to read as a rename. */
export const RENAME_SIMILARITY = 0.8;

/**
 * Renames: each new tool matched to the gone pinned tool whose input schema it most
 * resembles (at least {@link RENAME_SIMILARITY}; two schemas without properties match only
 * by an identical description), each gone tool used once. New name → old name.
 */
export function findRenames(
  added: readonly ToolDefinition[],
  gone: readonly ToolDefinition[],
): Map<string, string> {
  const renames = new Map<string, string>();
  if (added.length === 0 || gone.length === 0) return renames;
  const used = new Set<string>();
  for (const tool of added) {
    let best: ToolDefinition | undefined;
    let bestScore = RENAME_SIMILARITY;
    for (const old of gone) {
      if (used.has(old.name)) continue;
      const score = similarity(old, tool);
      if (score >= bestScore) {
        best = old;
        bestScore = score;
      }
    }
    if (best !== undefined) {
      used.add(best.name);
      renames.set(tool.name, best.name);
    }
  }
  return renames;
}
