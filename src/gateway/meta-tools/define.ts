import * as z from 'zod';
import { HintgateError } from '../../core/errors.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { SessionInfo } from '../../front/session.js';
import type { CatalogEntry } from '../catalog-entry.js';
import { toCatalogEntry, toToolRecord } from '../catalog-entry.js';
import type { Catalog } from '../catalog.js';
import type { CallToolResult } from '../pipeline/context.js';
import type { ToolsetService } from '../toolsets/service.js';

/** The server name meta tools are listed under (`_meta["dev.hintgate/tool"].server`). */
export const META_TOOL_SERVER = 'hintgate';

/** What a meta tool works with: the calling session, the toolsets, the catalog. */
export interface MetaToolContext {
  readonly session: SessionInfo;
  readonly toolsets: ToolsetService;
  readonly catalog: Catalog;
  readonly signal: AbortSignal;
}

/** What a meta tool answers: a sentence (or more) for the model, and the data. */
export interface MetaToolAnswer {
  readonly text: string;
  readonly data: JsonObject;
}

/** The MCP hints of a meta tool, all four stated. */
export interface MetaToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
}

/** How a meta tool is declared: one file each, hypertool's factory shape, typed by its schema. */
export interface MetaToolSpec<S extends z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The input, validated before `run`; its JSON Schema is what tools/list shows. */
  readonly input: S;
  readonly hints: MetaToolHints;
  run(input: z.output<S>, ctx: MetaToolContext): Promise<MetaToolAnswer>;
}

/** A meta tool ready to list and call. */
export interface MetaTool {
  readonly name: string;
  /** Its catalog-like entry: listed like any tool, annotations with provenance. */
  readonly entry: CatalogEntry;
  /** Validates the arguments and runs; expected failures are `isError` results. */
  call(args: unknown, ctx: MetaToolContext): Promise<CallToolResult>;
}

/** The JSON Schema of a zod input schema, as tools/list shows it (no `$schema`). */
export function inputJsonSchema(schema: z.ZodType): JsonObject {
  const { $schema: _dropped, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonObject;
  return rest;
}

/** `path: message` for each zod issue, the way the model can act on it. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path
        .map((part, index) =>
          typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
        )
        .join('');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** An `isError` result the model can read and act on. */
export function errorResult(code: string, message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: { error: { code, message } },
    isError: true,
  };
}

/**
 * Makes a meta tool from its spec: the listed definition (name, title, description, input
 * JSON Schema, annotations with openWorldHint false, since it only touches hintgate's own
 * store), and a `call` that validates the input with clear messages, runs, and turns
 * expected failures (`HintgateError`) into `isError` results.
 */
export function defineMetaTool<S extends z.ZodType>(spec: MetaToolSpec<S>): MetaTool {
  const tool: JsonObject = {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: inputJsonSchema(spec.input),
    annotations: { title: spec.title, ...spec.hints, openWorldHint: false },
  };
  const record = toToolRecord(META_TOOL_SERVER, tool, { trust: 'trusted' });
  if (record === undefined) throw new HintgateError('INTERNAL', `meta tool without a name`);
  const entry = toCatalogEntry(record, spec.name);
  return {
    name: spec.name,
    entry,
    async call(args, ctx) {
      const parsed = spec.input.safeParse(args ?? {});
      if (!parsed.success) {
        return errorResult(
          'INPUT_INVALID',
          `${spec.name}: invalid arguments: ${describeIssues(parsed.error)}`,
        );
      }
      try {
        const answer = await spec.run(parsed.data, ctx);
        return {
          content: [{ type: 'text', text: answer.text }],
          structuredContent: answer.data,
        };
      } catch (error) {
        if (error instanceof HintgateError) return errorResult(error.code, error.message);
        throw error;
      }
    },
  };
}
