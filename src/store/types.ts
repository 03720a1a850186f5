/**
 * The data the store keeps: toolsets with their members, notes and overrides, global
 * overrides, the approval queue and the audit log. Every value here is plain data (strings,
 * numbers, booleans, arrays, objects), safe to cache, compare and serialize; times are ISO
 * 8601 strings in UTC.
 */
import type { ToolAnnotations } from '../core/annotations/types.js';
import type { DynamicRule } from '../core/dynamic/rules.js';
import type { ToolNote } from '../core/notes/notes.js';
import type { Drift, ToolDefinition } from '../core/pins/index.js';

/** Which implementation holds the data. */
export type StoreKind = 'pglite' | 'postgres';

/**
 * A reference to one tool, by its namespaced name (`server.tool`), its refId (16 hex
 * characters hashed from server, name and schema), or both. At least one is present; a
 * note or an override applies to a tool matching either.
 */
export interface ToolRef {
  readonly namespacedName?: string;
  readonly refId?: string;
}

/** One entry of a toolset: a tool by namespaced name, a tool by refId, or a whole server. */
export type ToolsetMember =
  | { readonly kind: 'tool'; readonly namespacedName: string }
  | { readonly kind: 'ref'; readonly refId: string }
  | { readonly kind: 'server'; readonly server: string };

/** A note as stored: the note, the tool it belongs to, and when it was written. */
export interface StoredNote extends ToolNote {
  readonly tool: ToolRef;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Annotation fields overridden for one tool, globally (no `toolset`) or inside a toolset. */
export interface AnnotationOverride {
  readonly toolset?: string;
  readonly tool: ToolRef;
  readonly annotations: ToolAnnotations;
  readonly updatedAt: string;
}

/** A toolset with everything the gateway needs to list its tools, in one piece. */
export interface Toolset {
  readonly name: string;
  readonly description: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Grows by one with every change to the toolset, its members, notes or overrides. */
  readonly revision: number;
  /** In the order they were added. */
  readonly members: readonly ToolsetMember[];
  /** In the order they were added. */
  readonly notes: readonly StoredNote[];
  readonly overrides: readonly AnnotationOverride[];
  /**
   * Dynamic-annotation rules for the toolset's tools, as written (checked when stored); the
   * first that matches a call wins, before the config's rules.
   */
  readonly rules: readonly DynamicRule[];
}

/** A toolset in a listing: its counts instead of its contents. */
export interface ToolsetSummary {
  readonly name: string;
  readonly description: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly revision: number;
  readonly memberCount: number;
  readonly noteCount: number;
  readonly overrideCount: number;
  readonly ruleCount: number;
}

/** What a new toolset starts with. */
export interface ToolsetInput {
  readonly name: string;
  readonly description?: string;
  readonly members?: readonly ToolsetMember[];
}

/** Changes to a toolset; `members`, when given, replaces the whole list. */
export interface ToolsetChanges {
  readonly description?: string;
  readonly members?: readonly ToolsetMember[];
}

/** The outcome of adding notes: what was added and what was skipped, and why. */
export interface AddNotesResult {
  readonly added: readonly StoredNote[];
  readonly skipped: readonly { readonly name: string; readonly warning: string }[];
}

/** Where an override lives: a toolset, or everywhere when `toolset` is absent. */
export interface OverrideScope {
  readonly toolset?: string;
}

/**
 * The state of a call waiting for a person: `withdrawn` when the client gave up on the call
 * (cancelled it, timed out or went away) before anyone decided.
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'withdrawn';

/** A call to put in the approval queue. Arguments are redacted by the caller. */
export interface ApprovalInput {
  readonly server: string;
  /** The tool's namespaced name. */
  readonly tool: string;
  readonly sessionId?: string;
  readonly client?: string;
  /** The principal that made the call (it may not decide the approval). */
  readonly requestedBy?: string;
  readonly arguments?: unknown;
  /** The effective annotations that made the call need approval. */
  readonly annotations?: ToolAnnotations;
  /** Why the call needs a person, in words. */
  readonly reason: string;
  /** How long the call may wait before it is expired (and so denied). */
  readonly timeoutMs: number;
}

/** A call in the approval queue. A pending approval past its expiry reads as `expired`. */
export interface Approval {
  readonly id: string;
  readonly status: ApprovalStatus;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly server: string;
  readonly tool: string;
  readonly sessionId?: string;
  readonly client?: string;
  /** The principal that made the call ("asked by"). */
  readonly requestedBy?: string;
  readonly arguments: unknown;
  readonly annotations: ToolAnnotations;
  readonly reason: string;
  readonly decidedBy?: string;
  readonly decidedAt?: string;
  readonly note?: string;
}

/** A person's answer to a pending approval. */
export interface ApprovalDecision {
  /** A person's decision, or `withdrawn` by the gateway when the call's client gave up. */
  readonly status: 'approved' | 'denied' | 'withdrawn';
  /** Who decided (a user name, `cli:alice`, `api:token-name`; `client` for a withdrawal). */
  readonly by: string;
  readonly note?: string;
}

/** A filter on the approval queue, newest first. */
export interface ApprovalQuery {
  readonly status?: ApprovalStatus;
  readonly limit?: number;
}

/** One recorded call, as the audit step writes it. Arguments are redacted by the caller. */
export interface AuditRecordInput {
  /** When the call started; when absent, the time the record is written (this process's clock). */
  readonly time?: Date | string;
  readonly sessionId?: string;
  readonly client?: string;
  /** Who made the call: the principal of the HTTP front (absent over stdio without auth). */
  readonly principal?: string;
  /** The flattened name the client called. */
  readonly tool: string;
  readonly namespacedName?: string;
  readonly server?: string;
  readonly replica?: string;
  /** The effective annotations of the call. */
  readonly annotations?: ToolAnnotations;
  /** Where each effective value came from, by field. */
  readonly sources?: Readonly<Record<string, string>>;
  /** The annotations were refined for this call's arguments. */
  readonly dynamic?: boolean;
  /** What policy decided: `allow`, `confirm`, `deny`, … */
  readonly decision: string;
  readonly approver?: string;
  readonly durationMs?: number;
  /** How the call ended: `ok`, `error`, `denied`, `timeout`, `cancelled`, … */
  readonly outcome: string;
  readonly error?: string;
  readonly retries?: number;
  readonly cacheHit?: boolean;
  readonly arguments?: unknown;
}

/** A stored audit record: its input plus an id and a definite time. */
export interface AuditRecord extends Omit<AuditRecordInput, 'time'> {
  readonly id: string;
  readonly time: string;
  readonly dynamic: boolean;
  readonly retries: number;
  readonly cacheHit: boolean;
}

/** A filter on the audit log; results come newest first. */
export interface AuditQuery {
  /** Matches the flattened or the namespaced name. */
  readonly tool?: string;
  readonly server?: string;
  readonly sessionId?: string;
  readonly principal?: string;
  readonly decision?: string;
  readonly outcome?: string;
  readonly since?: Date | string;
  readonly until?: Date | string;
  /** At most this many records (default 100, at most 10,000). */
  readonly limit?: number;
}

/**
 * A change, from this store or (PostgreSQL) from another process sharing the database.
 * `pins` is a person's decision on a server's pins (gateways apply it); `drift` says a
 * gateway's re-check saved what it found about a server's tools (first pins, drift, tools
 * gone), for whoever shows them. `default-toolset`: the default toolset chosen at run time
 * changed. `oauth`: a server's OAuth credentials were saved or removed (a login, a refresh, a
 * logout). `resync` says events may have been missed (the listening connection was lost and
 * came back): reload whatever is cached.
 */
export type StoreEvent =
  | { readonly kind: 'toolset'; readonly name: string }
  | { readonly kind: 'overrides' }
  | { readonly kind: 'approval'; readonly id: string; readonly status: ApprovalStatus }
  | { readonly kind: 'pins'; readonly server: string }
  | { readonly kind: 'drift'; readonly server: string }
  | { readonly kind: 'default-toolset' }
  | { readonly kind: 'oauth'; readonly server: string }
  | { readonly kind: 'resync' };

/**
 * The default toolset chosen at run time (`hintgate toolset equip`, the dashboard's "Equip as
 * default"): a toolset by name, or none at all.
 */
export type DefaultToolsetChoice =
  { readonly kind: 'toolset'; readonly name: string } | { readonly kind: 'none' };

/** What {@link DefaultToolsetChoice} a store holds, since when and by whom. */
export type StoredDefaultToolset = DefaultToolsetChoice & {
  readonly updatedAt: string;
  /** Who chose it (`cli:alice`, `dashboard:bearer`). */
  readonly by?: string;
};

/** Receives store events; it must not throw (a throwing listener is ignored). */
export type StoreListener = (event: StoreEvent) => void;

/** Where the CLI can reach the gateway that holds an embedded store. */
export interface AdminEndpoint {
  readonly url: string;
  readonly token?: string;
}

/**
 * Where a pinned tool stands: `pinned` (served as pinned), `pending` (a drifted or new
 * definition waits for a person), `rejected` (a person refused it: the pin stands and the
 * definition stays held back), `removed` (the server no longer lists it; its pin is kept, so
 * the tool coming back is compared with it).
 */
export type PinStatus = 'pinned' | 'pending' | 'rejected' | 'removed';

/** One server's tool as pinned, and what drifted from it. */
export interface ToolPin {
  readonly server: string;
  /** The tool's name on its server. */
  readonly tool: string;
  readonly status: PinStatus;
  /** The canonical hash of the accepted definition; absent for a new tool not yet approved. */
  readonly hash?: string;
  readonly definition?: ToolDefinition;
  /** The drifted (or new) definition waiting for a person, with its hash and grading. */
  readonly pendingHash?: string;
  readonly pending?: ToolDefinition;
  readonly drift?: Drift;
  readonly firstSeen: string;
  readonly updatedAt: string;
  readonly decidedBy?: string;
  readonly decidedAt?: string;
  readonly note?: string;
}

/** A pin as a re-check writes it (the whole row but its times and last decision). */
export interface PinWrite {
  readonly server: string;
  readonly tool: string;
  readonly status: PinStatus;
  readonly hash?: string | undefined;
  readonly definition?: ToolDefinition | undefined;
  readonly pendingHash?: string | undefined;
  readonly pending?: ToolDefinition | undefined;
  readonly drift?: Drift | undefined;
}

/** A filter on pins. */
export interface PinQuery {
  readonly server?: string;
  readonly tool?: string;
  readonly status?: PinStatus;
  /** False: the rows without their definitions (`definition`, `pending`), for a listing. */
  readonly definitions?: boolean;
}

/** Which pins a decision is about: one tool of a server, or all its waiting ones. */
export interface PinTarget {
  readonly server: string;
  readonly tool?: string;
}

/** A person's decision on drifted or new tool definitions. */
export interface PinDecision {
  readonly action: 'approve' | 'reject';
  /** Who decided (`cli:alice`, `api:token-name`). */
  readonly by: string;
  readonly note?: string;
}

/**
 * What is shown of a downstream server's stored OAuth credential: never a token. `principal`
 * is '' for the server's shared login, else the principal of an `auth: per-user` server.
 */
export interface OAuthCredentialSummary {
  readonly server: string;
  readonly principal: string;
  /** When the access token expires, when the server said. */
  readonly expiresAt?: string;
  /** The scopes granted, space-separated. */
  readonly scope?: string;
  /** True when a refresh token is held. */
  readonly refreshable: boolean;
  /** When the last interactive login completed. */
  readonly loggedInAt?: string;
  readonly updatedAt: string;
}

/** A stored credential: its summary and the sealed (encrypted) credential document. */
export interface OAuthCredential extends OAuthCredentialSummary {
  readonly sealed: string;
}

/** A credential to store: the sealed document and what its summary shows. */
export interface OAuthCredentialInput {
  readonly server: string;
  /** Default '' (the server's shared login). */
  readonly principal?: string;
  readonly sealed: string;
  readonly expiresAt?: string;
  readonly scope?: string;
  readonly refreshable?: boolean;
  /** Set by an interactive login (kept as it was by a refresh). */
  readonly loggedInAt?: string;
}
