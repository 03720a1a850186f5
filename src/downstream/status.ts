import type { HintgateErrorCode } from '../core/errors.js';
import type { Era } from '../mcp/era.js';

/** Where a server stands. */
export type DownstreamStatus =
  | { readonly state: 'starting'; readonly since: number; readonly attempt: number }
  | {
      readonly state: 'up';
      readonly since: number;
      readonly era: Era;
      readonly protocolVersion: string;
    }
  | {
      readonly state: 'down';
      readonly since: number;
      readonly reason: string;
      readonly code: HintgateErrorCode;
      readonly attempt: number;
      /** When the next attempt starts (epoch ms), unless retries are off. */
      readonly retryAt?: number;
    }
  | { readonly state: 'closed'; readonly since: number };

/** A server up at least this long has its retry backoff reset when it next fails. */
export const STABLE_AFTER_MS = 10_000;

/** Why a call to a server that is not up fails, in words for the client. */
export function unavailableMessage(server: string, status: DownstreamStatus, now: number): string {
  switch (status.state) {
    case 'down': {
      const retry =
        status.retryAt === undefined
          ? ''
          : `; retrying in ${Math.max(0, Math.ceil((status.retryAt - now) / 1000))} s`;
      return `server "${server}" is down: ${status.reason}${retry}`;
    }
    case 'starting':
      return `server "${server}" is still starting; call again once it is up (clients are told with tools/list_changed)`;
    case 'closed':
      return `server "${server}" is shut down`;
    case 'up':
      return `server "${server}" is not connected`;
  }
}

/** The delay before reconnect attempt `attempt`: exponential, capped, with ±20 % jitter. */
export function backoffDelay(
  reconnect: { readonly initialDelayMs: number; readonly maxDelayMs: number },
  attempt: number,
  random: () => number,
): number {
  const { initialDelayMs, maxDelayMs } = reconnect;
  const base = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** A failure's message without the server's own name in front (the status names it). */
export function stripServerPrefix(message: string, server: string): string {
  return message.replace(`server "${server}" `, '').replace(/^failed the MCP handshake: /, '');
}
