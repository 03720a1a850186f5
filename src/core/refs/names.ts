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
 * How one server's tools, prompts and resources are named for clients: under a prefix (the
 * server's name by default, or a custom one) joined with `_`, or under their own names
 * (`false`).
 */
export type NamePrefix = string | false;

/** A name MCP allows for a tool: 1 to 128 letters, digits, `_`, `-` and `.`. */
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The client-safe name of one tool on its own: `server_name` (or `prefix_name`), with every
 * character outside `[A-Za-z0-9_-]` replaced by `_`. When that loses information (a
 * character was replaced) or the result is longer than 64 characters, it is shortened and
 * given a suffix hashed from the namespaced name, so distinct tools keep distinct names.
 * Without a prefix (`false`) the tool keeps the name its server gave it when MCP allows that
 * name, and is otherwise made safe the same way. Collisions between tools are resolved by
 * {@link flattenToolNames}.
 *
 * @example flattenToolName('github', 'create_issue') // 'github_create_issue'
 * @example flattenToolName('github', 'create_issue', 'gh') // 'gh_create_issue'
 * @example flattenToolName('github', 'create_issue', false) // 'create_issue'
 */
export function flattenToolName(server: string, name: string, prefix: NamePrefix = server): string {
  if (prefix === false && MCP_TOOL_NAME.test(name)) return name;
  const joined = prefix === false ? name : `${prefix}_${name}`;
  const safe = joined.replace(UNSAFE_CHARACTERS, '_');
  if (safe === joined && safe.length <= MAX_FLATTENED_NAME_LENGTH) return safe;
  return withHashSuffix(safe, namespacedName(server, name));
}

/** Two tools of different servers that would have had the same name. */
export interface NameCollision {
  /** The name both would have had. */
  readonly name: string;
  /** The namespaced name of the tool that keeps it. */
  readonly kept: string;
  /** The namespaced name of the other tool, */
  readonly renamed: string;
  /** and the name it gets instead. */
  readonly renamedTo: string;
}

/** Names for a set of tools, and the collisions met on the way. */
export interface FlattenedNames {
  /** Namespaced name → the name clients see. */
  readonly names: Map<string, string>;
  /** Tools of different servers that wanted one name, in a stable order. */
  readonly collisions: readonly NameCollision[];
}

/**
 * Names for a set of tools, unique and deterministic for a given set whatever its order:
 * each tool gets {@link flattenToolName} under its server's prefix (`prefixOf`, default the
 * server's name); when several tools get the same name (`a` + `b_c` and `a_b` + `c`, or two
 * servers without a prefix listing one name), the one whose namespaced name sorts first
 * keeps it and the others get a hashed suffix. Each such loss between two servers is
 * reported as a {@link NameCollision}.
 */
export function flattenNames(
  tools: Iterable<{ readonly server: string; readonly name: string }>,
  prefixOf: (server: string) => NamePrefix = (server) => server,
): FlattenedNames {
  const byFlat = new Map<string, string[]>();
  for (const tool of tools) {
    const flat = flattenToolName(tool.server, tool.name, prefixOf(tool.server));
    const group = byFlat.get(flat);
    const id = namespacedName(tool.server, tool.name);
    if (group === undefined) byFlat.set(flat, [id]);
    else if (!group.includes(id)) group.push(id);
  }
  const names = new Map<string, string>();
  const collisions: NameCollision[] = [];
  const taken = new Set(byFlat.keys());
  for (const [flat, group] of byFlat) {
    group.sort();
    const kept = group[0] as string;
    names.set(kept, flat);
    for (const id of group.slice(1)) {
      let candidate = withHashSuffix(flat, id);
      for (let salt = 1; taken.has(candidate); salt++) {
        candidate = withHashSuffix(flat, `${id}#${salt}`);
      }
      taken.add(candidate);
      names.set(id, candidate);
      if (serverOf(id) !== serverOf(kept))
        collisions.push({ name: flat, kept, renamed: id, renamedTo: candidate });
    }
  }
  collisions.sort((a, b) => (a.renamed < b.renamed ? -1 : a.renamed > b.renamed ? 1 : 0));
  return { names, collisions };
}

/**
 * Flattened names for a set of tools ({@link flattenNames} without the collisions).
 *
 * @returns a map from namespaced name to flattened name
 */
export function flattenToolNames(
  tools: Iterable<{ readonly server: string; readonly name: string }>,
  prefixOf?: (server: string) => NamePrefix,
): Map<string, string> {
  return flattenNames(tools, prefixOf).names;
}

function serverOf(id: string): string {
  return id.slice(0, id.indexOf('.'));
}

function withHashSuffix(base: string, identity: string): string {
  const suffix = sha256Hex(identity).slice(0, HASH_SUFFIX_LENGTH);
  const room = MAX_FLATTENED_NAME_LENGTH - HASH_SUFFIX_LENGTH - 1;
  return `${base.slice(0, room)}_${suffix}`;
}
