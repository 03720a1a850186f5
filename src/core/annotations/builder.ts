import type { ToolAnnotations } from './types.js';

/** The input of {@link toolAnnotations}: every MCP and extension field by name, and any other. */
export type ToolAnnotationsInput = {
  [K in keyof ToolAnnotations]?: ToolAnnotations[K] | undefined;
};

/** The result of {@link toolAnnotations}: the fields given, without the `undefined` ones. */
export type BuiltAnnotations<T> = ToolAnnotations & {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/**
 * Builds a tool's annotations for an author: every MCP field (`title`, `readOnlyHint`,
 * `destructiveHint`, `idempotentHint`, `openWorldHint`) and every hintgate extension by name,
 * and any other named field kept as given. Fields given as `undefined` are left out, so the
 * result never carries an explicit `undefined` that would erase a value when merged.
 *
 * @example
 * const annotations = toolAnnotations({
 *   title: 'Draw Random Normal Numbers',
 *   readOnlyHint: true,
 *   openWorldHint: false,
 *   owner: 'stats-team', // kept as it is
 * });
 */
export function toolAnnotations<const T extends ToolAnnotationsInput>(
  fields: T,
): BuiltAnnotations<T> {
  const built: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    built[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
  }
  return built as BuiltAnnotations<T>;
}
