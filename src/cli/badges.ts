import type { CatalogEntry } from '../gateway/catalog-entry.js';

/** The badge of each hint when its effective value is true. */
const BADGES = [
  ['readOnlyHint', 'RO'],
  ['destructiveHint', 'DESTR'],
  ['idempotentHint', 'IDEM'],
  ['openWorldHint', 'OPEN'],
] as const;

/** Markers after a badge: where a value came from when the server did not declare it. */
const SOURCE_MARKERS: Readonly<Record<string, string>> = {
  declared: '',
  override: '=',
  dynamic: '',
  inferred: '*',
  'server-default': '^',
  'spec-default': '°',
};

/** The legend printed under a table of badges. */
export const BADGE_LEGEND =
  'RO read-only  DESTR destructive  IDEM idempotent  OPEN open world   ' +
  '* inferred  ^ server default (config)  ° MCP default  = override  ! conflict: the server declared the opposite and was overruled';

/**
 * The hints of a tool as badges, e.g. `RO* IDEM° OPEN`: one badge per hint that is true, a
 * marker for values the server did not declare, `!` for a conflict.
 */
export function hintBadges(entry: CatalogEntry): string {
  const { annotations, provenance, conflicts } = entry.effective;
  const badges: string[] = [];
  for (const [field, badge] of BADGES) {
    const conflict = conflicts.some((item) => item.field === field);
    if (annotations[field] !== true && !conflict) continue;
    const source = provenance[field]?.source ?? 'spec-default';
    const marker = conflict ? '!' : (SOURCE_MARKERS[source] ?? '');
    badges.push(annotations[field] === true ? `${badge}${marker}` : `no-${badge}${marker}`);
  }
  return badges.join(' ');
}
