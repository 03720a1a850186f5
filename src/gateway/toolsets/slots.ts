import type { FrontKind, SessionInfo } from '../../front/session.js';

/**
 * Who holds an equipped toolset. A 2025 session (stdio connection, or HTTP session with its
 * `Mcp-Session-Id`) holds its own. 2026 HTTP clients are stateless (no session outlives a
 * request), so what one of them equips is held by its principal (the authenticated token's
 * name; `anonymous` without auth) and every 2026 request of that principal sees it. A 2026
 * client over stdio has the connection to itself and holds it like a session.
 */
export function slotKeyOf(session: SessionInfo): string {
  if (session.era === 'modern' && session.front === 'http') {
    return principalSlot(session.principal);
  }
  return sessionSlot(session.id);
}

/** The slot of a 2025 session or a stdio connection. */
export function sessionSlot(id: string): string {
  return `session:${id}`;
}

/** The slot of a 2026 HTTP principal. */
export function principalSlot(principal: string | undefined): string {
  return `principal:${principal ?? 'anonymous'}`;
}

/** True for the slots of 2026 HTTP principals. */
export function isPrincipalSlot(key: string): boolean {
  return key.startsWith('principal:');
}

/** A connected client as change notifications see it (see `FrontHub`). */
export interface NotifyTarget {
  readonly era: 'legacy' | 'modern';
  readonly front: FrontKind;
  /** The session or connection id; undefined for the 2026 HTTP clients as a whole. */
  readonly sessionId: string | undefined;
}
