import type { ConfigIssue } from '../config/issues.js';
import type { NameCollision, NamePrefix } from '../core/refs/names.js';
import { splitNamespacedName } from '../core/refs/names.js';
import type { Catalog } from './catalog.js';
import type { Directory } from './directory.js';

/** What {@link nameIssues} reads. */
export interface NameCheckInput {
  readonly catalog: Catalog;
  readonly directory: Directory;
  readonly prefixOf: (server: string) => NamePrefix;
  /** The gateway's own tools shown to clients (empty when configuration mode hides them). */
  readonly metaTools: readonly string[];
}

/**
 * Names two servers would serve alike because one of them has no prefix or a prefix of its
 * own (`prefix: false` or `"custom"`): each as a config issue at the `prefix` key of the
 * server that set it, naming both servers and the name. Default prefixes never meet
 * in a way the user chose (a rare `a` + `b_c` against `a_b` + `c` is given a suffixed name,
 * as before). A tool named like one of the gateway's own tools is refused too.
 */
export function nameIssues(input: NameCheckInput): ConfigIssue[] {
  const { catalog, directory, prefixOf } = input;
  const issues: ConfigIssue[] = [];
  for (const collision of catalog.collisions()) {
    const issue = collisionIssue(collision, 'tool', prefixOf);
    if (issue !== undefined) issues.push(issue);
  }
  for (const collision of directory.collisions()) {
    const issue = collisionIssue(collision, 'prompt', prefixOf);
    if (issue !== undefined) issues.push(issue);
  }
  const reserved = new Set(input.metaTools);
  for (const entry of catalog.entries()) {
    if (!reserved.has(entry.flattenedName)) continue;
    issues.push({
      path: `mcpServers.${entry.server}.prefix`,
      message: `tool "${entry.name}" of server "${entry.server}" would be served as "${entry.flattenedName}", the name of one of hintgate's own toolset tools; give the server a prefix`,
    });
  }
  return issues;
}

function collisionIssue(
  collision: NameCollision,
  kind: 'tool' | 'prompt',
  prefixOf: (server: string) => NamePrefix,
): ConfigIssue | undefined {
  const kept = splitNamespacedName(collision.kept);
  const renamed = splitNamespacedName(collision.renamed);
  if (kept === undefined || renamed === undefined) return undefined;
  const chose = (server: string): boolean => prefixOf(server) !== server;
  if (!chose(kept.server) && !chose(renamed.server)) return undefined;
  // The server whose own setting brought the names together answers for it.
  const blamed = chose(renamed.server) ? renamed.server : kept.server;
  const other = blamed === renamed.server ? kept : renamed;
  const mine = blamed === renamed.server ? renamed : kept;
  return {
    path: `mcpServers.${blamed}.prefix`,
    message: `${kind} "${mine.name}" of server "${blamed}" and ${kind} "${other.name}" of server "${other.server}" would both be served as "${collision.name}"; give one of the two servers a prefix (prefix: true, or a prefix of its own)`,
  };
}

/** One line per issue, for the gateway's log once it serves (names that meet after start). */
export function describeNameIssue(issue: ConfigIssue): string {
  return `names meet: ${issue.path}: ${issue.message}; meanwhile the second is served under a suffixed name`;
}
