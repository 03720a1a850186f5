import type { CallToolResult } from './pipeline/context.js';

/** The `_meta` key of what hintgate says about a call it answered itself. */
export const CALL_META_KEY = 'dev.hintgate/call';

/** Why hintgate answered a call itself, for clients that read `_meta`. */
export interface RefusalMeta {
  /** `deny`, `declined`, `cancelled`, `denied`, `expired`, `needs-approval`, `rate-limited`, … */
  readonly decision: string;
  readonly approvalId?: string;
  readonly retryAfterMs?: number;
}

/**
 * A tool result hintgate gives instead of the server's: `isError: true` with one sentence the
 * model can relay (what happened and what to do), and the same facts under `_meta`.
 */
export function refusal(text: string, meta: RefusalMeta): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { [CALL_META_KEY]: meta },
  };
}

/**
 * A configured message with its placeholders filled: `{tool}` (the tool's name as the client
 * sees and calls it, e.g. `memory_delete_entities`) and `{id}` (the approval, when there is
 * one).
 */
export function fillMessage(message: string, tool: string, id?: string): string {
  return message.replaceAll('{tool}', tool).replaceAll('{id}', id ?? '');
}
