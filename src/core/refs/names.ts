import { sha256Hex } from '../util/hash.js';

/** The longest tool name clients accept (several clients reject longer names). */
export const MAX_FLATTENED_NAME_LENGTH = 64;

const UNSAFE_CHARACTERS = /[^A-Za-z0-9_-]/g;
const HASH_SUFFIX_LENGTH = 8;

/** A tool's name as hintgate refers to it across servers: `server.name`. */
export function namespacedName(server: string, name: string): string {
  return `${server}.${name}`;
}

/**
 * Splits a namespaced name at its first dot into server and tool name (server names never
 * contain dots; tool names may). Undefined when there is no dot.
 */
export function splitNamespacedName(value: string): { server: string; name: string } | undefined {
  const dot = value.indexOf('.');
  if (dot <= 0 || dot === value.length - 1) return undefined;
  return { server: value.slice(0, dot), name: value.slice(dot + 1) };
}

/**
 * The client-safe name of one tool on its own: `server_name`, with every character outside
 * `[A-Za-z0-9_-]` replaced by `_`. When that loses information (a character was replaced)
 * or the result is longer than 64 characters, it is shortened and given a suffix hashed from
 * the namespaced name, so distinct tools keep distinct names. Collisions between tools are
 * resolved by {@link flattenToolNames}.
 *
 * @example flattenToolName('github', 'create_issue') // 'github_create_issue'
 */
export function flattenToolName(server: string, name: string): string {
  const joined = `${server}_${name}`;
  const safe = joined.replace(UNSAFE_CHARACTERS, '_');
  if (safe === joined && safe.length <= MAX_FLATTENED_NAME_LENGTH) return safe;
  return withHashSuffix(safe, namespacedName(server, name));
}

/**
 * Flattened names for a set of tools, unique and deterministic for a given set whatever its
 * order: each tool gets {@link flattenToolName}; when several tools get the same name
 * (`a` + `b_c` and `a_b` + `c`), the one whose namespaced name sorts first keeps it and the
 * others get a hashed suffix.
 *
 * @returns a map from namespaced name to flattened name
 */
export function flattenToolNames(
  tools: Iterable<{ readonly server: string; readonly name: string }>,
): Map<string, string> {
  const byFlat = new Map<string, string[]>();
  for (const tool of tools) {
    const flat = flattenToolName(tool.server, tool.name);
    const group = byFlat.get(flat);
    const id = namespacedName(tool.server, tool.name);
    if (group === undefined) byFlat.set(flat, [id]);
    else if (!group.includes(id)) group.push(id);
  }
  const result = new Map<string, string>();
  const taken = new Set(byFlat.keys());
  for (const [flat, group] of byFlat) {
    group.sort();
    result.set(group[0] as string, flat);
    for (const id of group.slice(1)) {
      let candidate = withHashSuffix(flat, id);
      for (let salt = 1; taken.has(candidate); salt++) {
        candidate = withHashSuffix(flat, `${id}#${salt}`);
      }
      taken.add(candidate);
      result.set(id, candidate);
    }
  }
  return result;
}

function withHashSuffix(base: string, identity: string): string {
  const suffix = sha256Hex(identity).slice(0, HASH_SUFFIX_LENGTH);
  const room = MAX_FLATTENED_NAME_LENGTH - HASH_SUFFIX_LENGTH - 1;
  return `${base.slice(0, room)}_${suffix}`;
}
