import { vi } from 'vitest';
import type { ConfigInput } from '../../../src/config/schema.js';
import { policySchema } from '../../../src/config/policy-schema.js';
import type { Next } from '../../../src/gateway/pipeline/compose.js';
import type { CallContext, CallToolResult } from '../../../src/gateway/pipeline/context.js';
import { createCallContext } from '../../../src/gateway/pipeline/context.js';
import { ToolSettingsTable } from '../../../src/gateway/tool-settings.js';
import type { ServerRequestRelay } from '../../../src/mcp/relay.js';
import type { SessionInfo } from '../../../src/front/session.js';
import { emptySession } from '../../../src/front/session.js';
import { catalogWith } from './helpers.js';

/** A plain successful result. */
export const OK: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };

/** A fake `next` answering `result` (a fresh copy each time), counting its calls. */
export function fakeNext(result: CallToolResult = OK) {
  return vi.fn<Next>(() => Promise.resolve(structuredClone(result)));
}

/** The settings table of a `policy` section written as in a config file. */
export function settingsOf(policy: NonNullable<ConfigInput['policy']> = {}): ToolSettingsTable {
  return new ToolSettingsTable(policySchema.parse(policy));
}

/** Options of {@link toolContext}. */
export interface ToolContextOptions {
  readonly args?: Record<string, unknown>;
  readonly extra?: Record<string, unknown>;
  readonly session?: Partial<SessionInfo>;
  readonly relay?: ServerRequestRelay;
  readonly signal?: AbortSignal;
  /** The client's keep-alive channel (it sent a progress token). */
  readonly keepAlive?: (message: string) => void;
}

/**
 * A context for calling a tool of server `s`, as `resolve` and `annotate` leave it: the
 * catalog entry and its effective annotations set.
 */
export function toolContext(
  tool: Record<string, unknown>,
  { args = {}, extra = {}, session = {}, relay, signal, keepAlive }: ToolContextOptions = {},
): CallContext {
  const catalog = catalogWith(tool);
  const entry = catalog.resolve(`s_${String(tool['name'])}`);
  if (entry === undefined) throw new Error(`no entry for ${String(tool['name'])}`);
  const ctx = createCallContext(
    {
      params: { name: entry.flattenedName, arguments: args, ...extra },
      session: { ...emptySession('session-1', 'stdio'), ...session },
      signal: signal ?? new AbortController().signal,
      progress: undefined,
      relay,
      keepAlive,
    },
    Date.now(),
  );
  ctx.entry = entry;
  ctx.annotations = entry.effective;
  return ctx;
}

/** Tools with declared annotations, one of each kind. */
export const TOOLS = {
  read: { name: 'get_item', annotations: { readOnlyHint: true } },
  destructive: {
    name: 'delete_item',
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
  idempotent: {
    name: 'tag_item',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  },
  write: {
    name: 'add_item',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
  unannotated: { name: 'frobnicate' },
} as const;
