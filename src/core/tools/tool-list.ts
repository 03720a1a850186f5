import type { ToolAnnotations } from '../annotations/types.js';

/** A tool definition read from JSON input: what MCP's tools/list gives, loosely. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly annotations?: ToolAnnotations;
  readonly [key: string]: unknown;
}

/** The outcome of {@link parseToolList}. */
export type ToolListParse =
  | { readonly ok: true; readonly tools: readonly ToolDefinition[] }
  | { readonly ok: false; readonly error: string };

/**
 * Reads tool definitions from parsed JSON: an array of `{ name, description?, inputSchema?,
 * annotations? }` or a tools/list result `{ tools: [...] }`. Every problem is named by its
 * index and field (`tools[3].name: expected a non-empty string`).
 */
export function parseToolList(value: unknown): ToolListParse {
  const list = Array.isArray(value) ? value : toolsOf(value);
  if (list === undefined) {
    return {
      ok: false,
      error: `expected an array of tools or a tools/list result ({ "tools": [...] }), got ${kind(value)}`,
    };
  }
  const problems: string[] = [];
  list.forEach((tool: unknown, index) => {
    const at = `tools[${index}]`;
    if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) {
      problems.push(`${at}: expected an object, got ${kind(tool)}`);
      return;
    }
    const fields = tool as Record<string, unknown>;
    if (typeof fields['name'] !== 'string' || fields['name'] === '') {
      problems.push(`${at}.name: expected a non-empty string, got ${kind(fields['name'])}`);
    }
    if (
      fields['description'] !== undefined &&
      fields['description'] !== null &&
      typeof fields['description'] !== 'string'
    ) {
      problems.push(`${at}.description: expected a string, got ${kind(fields['description'])}`);
    }
    const annotations = fields['annotations'];
    if (
      annotations !== undefined &&
      annotations !== null &&
      (typeof annotations !== 'object' || Array.isArray(annotations))
    ) {
      problems.push(`${at}.annotations: expected an object, got ${kind(annotations)}`);
    }
  });
  if (problems.length > 0) return { ok: false, error: problems.join('\n') };
  return { ok: true, tools: (list as Record<string, unknown>[]).map(normalize) };
}

function toolsOf(value: unknown): unknown[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const tools = (value as Record<string, unknown>)['tools'];
  return Array.isArray(tools) ? tools : undefined;
}

function normalize(fields: Record<string, unknown>): ToolDefinition {
  const tool: Record<string, unknown> = { ...fields };
  if (tool['description'] === null) delete tool['description'];
  if (tool['annotations'] === null) delete tool['annotations'];
  return tool as unknown as ToolDefinition;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return typeof value === 'string'
    ? `the string ${JSON.stringify(value.slice(0, 40))}`
    : `a ${typeof value}`;
}
