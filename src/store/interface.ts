/** The store's interface and options; `store.ts` opens one (and re-exports these). */
import type { ToolAnnotations } from '../core/annotations/types.js';
import type { DynamicRule } from '../core/dynamic/rules.js';
import type { ToolNote } from '../core/notes/notes.js';
import type { DefaultToolsetWrite } from './settings.js';
import type { ImportOptions, ImportResult, ToolsetDocument } from './transfer.js';
import type {
  AddNotesResult,
  AdminEndpoint,
  AnnotationOverride,
  Approval,
  ApprovalDecision,
  ApprovalInput,
  ApprovalQuery,
  AuditQuery,
  AuditRecord,
  AuditRecordInput,
  OAuthCredential,
  OAuthCredentialInput,
  OAuthCredentialSummary,
  OverrideScope,
  PinDecision,
  PinQuery,
  PinTarget,
  PinWrite,
  StoredDefaultToolset,
  StoredNote,
  StoreKind,
  StoreListener,
  ToolPin,
  ToolRef,
  Toolset,
  ToolsetChanges,
  ToolsetInput,
  ToolsetMember,
  ToolsetSummary,
} from './types.js';
import type { HeldLock } from './lock.js';
import type { AuditJournalOptions } from './audit-journal.js';

/** Options of {@link Store.unsetOverride}: the scope, and the fields to remove (all when absent). */
export interface UnsetOverrideOptions extends OverrideScope {
  readonly fields?: readonly string[];
}

/**
 * Everything hintgate persists. Every write is one transaction. Expected outcomes are
 * results (`addNotes` says what it skipped, `getToolset` gives `undefined`); operational
 * failures are `HintgateError`s: `STORE_UNAVAILABLE` (naming where), `INPUT_INVALID` (naming
 * the field), `NOT_FOUND`, `CONFLICT`. Results are plain data, safe to cache.
 */
export interface Store {
  readonly kind: StoreKind;
  /** Where the data lives (a directory, or a URL without password), for messages. */
  readonly location: string;

  /** Every toolset with its counts, by name. */
  listToolsets(): Promise<ToolsetSummary[]>;
  /** A toolset with its members, notes and overrides, in one cheap call; undefined if none. */
  getToolset(name: string): Promise<Toolset | undefined>;
  /** Creates a toolset; CONFLICT when the name is taken. */
  createToolset(input: ToolsetInput): Promise<Toolset>;
  /** Changes a toolset's description or replaces its members. */
  updateToolset(name: string, changes: ToolsetChanges): Promise<Toolset>;
  /** Appends members, skipping those already in the toolset. */
  addMembers(name: string, members: readonly ToolsetMember[]): Promise<Toolset>;
  /** Removes members; those not in the toolset are ignored. */
  removeMembers(name: string, members: readonly ToolsetMember[]): Promise<Toolset>;
  /**
   * Replaces a toolset's dynamic-annotation rules (an empty list removes them), checked first:
   * INPUT_INVALID naming each bad rule and key.
   */
  setToolsetRules(name: string, rules: readonly DynamicRule[]): Promise<Toolset>;
  /**
   * Deletes a toolset with its notes and overrides (a default toolset chosen to be it becomes
   * none); NOT_FOUND when there is none.
   */
  deleteToolset(name: string): Promise<void>;

  /** Adds notes to a tool of a toolset; names the tool already has are skipped, with a warning. */
  addNotes(toolset: string, tool: ToolRef, notes: readonly ToolNote[]): Promise<AddNotesResult>;
  /** Replaces the text of a note; NOT_FOUND when the tool has no note of that name. */
  editNote(toolset: string, tool: ToolRef, name: string, note: string): Promise<StoredNote>;
  /** Removes a note; NOT_FOUND when the tool has no note of that name. */
  removeNote(toolset: string, tool: ToolRef, name: string): Promise<void>;
  /** A toolset's notes (all, or one tool's) in the order they were added. */
  listNotes(toolset: string, tool?: ToolRef): Promise<StoredNote[]>;

  /** Merges fields into a tool's override, globally or in a toolset. */
  setOverride(
    tool: ToolRef,
    annotations: ToolAnnotations,
    scope?: OverrideScope,
  ): Promise<AnnotationOverride>;
  /** Removes some fields (or all) of a tool's override; returns what remains. */
  unsetOverride(
    tool: ToolRef,
    options?: UnsetOverrideOptions,
  ): Promise<AnnotationOverride | undefined>;
  /** The overrides of a toolset, or the global ones when no toolset is given. */
  listOverrides(scope?: OverrideScope): Promise<AnnotationOverride[]>;
  /** The global overrides, in one cheap call. */
  getGlobalOverrides(): Promise<AnnotationOverride[]>;

  /** A toolset as a versioned JSON document. */
  exportToolset(name: string): Promise<ToolsetDocument>;
  /**
   * Imports a document (parsed JSON), validated in full first; an existing toolset of that
   * name is replaced only with `replace: true`, else CONFLICT.
   */
  importToolset(document: unknown, options?: ImportOptions): Promise<ImportResult>;

  /**
   * The default toolset chosen at run time (`hintgate toolset equip`, the dashboard), or
   * undefined when none was chosen: then the config's `toolsets.default` holds.
   */
  getDefaultToolset(): Promise<StoredDefaultToolset | undefined>;
  /**
   * Chooses the default toolset of sessions without a choice of their own: a toolset that
   * exists (NOT_FOUND otherwise) or none; `{ kind: 'config' }` forgets the choice, so that the
   * config's `toolsets.default` holds again. Reports a `default-toolset` change; returns what
   * is stored now.
   */
  setDefaultToolset(
    choice: DefaultToolsetWrite,
    by?: string,
  ): Promise<StoredDefaultToolset | undefined>;

  /** Puts a call in the approval queue. */
  createApproval(input: ApprovalInput): Promise<Approval>;
  /** One approval (a pending one past its expiry reads as expired), or undefined. */
  getApproval(id: string): Promise<Approval | undefined>;
  /** Approvals, newest first. */
  listApprovals(query?: ApprovalQuery): Promise<Approval[]>;
  /**
   * Approves or denies a pending approval atomically; CONFLICT naming the current status
   * when it is no longer pending (decided, or expired), NOT_FOUND when there is none.
   */
  decideApproval(id: string, decision: ApprovalDecision): Promise<Approval>;
  /** Marks every overdue pending approval expired; returns them. */
  expireApprovals(): Promise<Approval[]>;

  /**
   * Records a one-time value (the nonce of a signed confirmation state) as used for `ttlMs`;
   * true the first time, false while it is still recorded, across every process sharing the
   * store. INPUT_INVALID for an empty nonce or a ttl outside 1 ms to a day.
   */
  claimNonce(nonce: string, ttlMs: number): Promise<boolean>;

  /** Tool pins matching a filter (all by default), by server then tool. */
  listPins(query?: PinQuery): Promise<ToolPin[]>;
  /**
   * Saves what a re-check of a server's listing concluded, each pin replaced whole, in one
   * write. Reports a `drift` change per server, for pages that show pins (gateways ignore
   * it: the one that checked already acts on what it found).
   */
  savePins(pins: readonly PinWrite[]): Promise<void>;
  /**
   * A person's decision on a server's waiting definitions (one tool, or all of them):
   * approving makes each the pin, rejecting keeps the pin and holds it back. NOT_FOUND when
   * nothing waits there; reports a `pins` change so running gateways apply it at once.
   */
  decidePins(target: PinTarget, decision: PinDecision): Promise<ToolPin[]>;

  /** Appends audit records in one write; meant for a background batcher, off the call path. */
  appendAudit(records: readonly AuditRecordInput[]): Promise<void>;
  /** Audit records matching a filter, newest first. */
  queryAudit(query?: AuditQuery): Promise<AuditRecord[]>;

  /**
   * One downstream server's stored OAuth credential (its sealed document and summary) for a
   * principal ('' for the server's shared login), or undefined.
   */
  getOAuthCredential(server: string, principal: string): Promise<OAuthCredential | undefined>;
  /** The summaries of the stored OAuth credentials (all, or one server's): never a token. */
  listOAuthCredentials(server?: string): Promise<OAuthCredentialSummary[]>;
  /**
   * Saves (inserts or replaces) a sealed OAuth credential; INPUT_INVALID naming the field.
   * Reports an `oauth` change for the server.
   */
  saveOAuthCredential(input: OAuthCredentialInput): Promise<void>;
  /**
   * Removes a principal's credential, or every credential of the server when no principal
   * is given; returns how many were removed. Reports an `oauth` change when any was.
   */
  deleteOAuthCredentials(server: string, principal?: string): Promise<number>;
  /**
   * Runs `fn` while holding the lock of one login (server and principal) against every other
   * process and caller sharing the store: PostgreSQL's `pg_advisory_xact_lock` on a
   * connection of its own; the embedded store's lease in the process holding it (reached by
   * the CLI through the admin endpoint). A refresh runs under it, so that two processes never
   * spend the same rotating refresh token.
   */
  withOAuthLock<T>(server: string, principal: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Holds the lock of one login until {@link releaseOAuthLock} (or a minute); resolves with
   * the lease. What {@link withOAuthLock} uses over the admin endpoint.
   */
  acquireOAuthLock(server: string, principal: string): Promise<string>;
  /** Releases a lease of {@link acquireOAuthLock}. */
  releaseOAuthLock(lease: string): Promise<void>;

  /**
   * Calls `listener` after each committed change through this store and, for PostgreSQL,
   * through any other process sharing the database. Returns the unsubscribe function. Each
   * call is a watch of its own: a listener watched twice is called twice per change, and
   * each unsubscribe ends only its own watch (calling it again does nothing).
   */
  watch(listener: StoreListener): () => void;
  /**
   * Records where the CLI can reach the gateway holding this store (PGlite: in the data
   * directory's lock file; PostgreSQL: nothing to do, every process opens the database).
   */
  setAdminEndpoint(endpoint: AdminEndpoint | undefined): Promise<void>;
  /**
   * Nothing is expected to need the database for a while: the embedded store ends its
   * process now if no statement is in progress (the next statement starts another), as it
   * does by itself after 30 s idle. Optional; PostgreSQL has nothing to do.
   */
  rest?(): void;
  /**
   * Whether the embedded store's database has run in this process: false for one opened with
   * `deferDatabase` that nothing has needed yet (its journal took every audit record).
   * Optional; PostgreSQL's is always in use.
   */
  databaseUsed?(): boolean;
  /** Closes connections and releases the data directory; further calls fail. */
  close(): Promise<void>;
}

/** Options shared by both implementations. */
export interface CommonStoreOptions {
  /** Told about things worth a log line (a stale lock taken over, a lost listener). */
  readonly onWarning?: (message: string) => void;
}

/** Embedded PGlite in hintgate's data directory (the database in `<dataDir>/store`). */
export interface PgliteStoreOptions extends CommonStoreOptions {
  readonly kind: 'pglite';
  readonly dataDir: string;
  /**
   * How long the database stays open with nothing to do before its process is ended (and
   * its memory returned); the next statement opens it again. Default 30 s; `Infinity`: never.
   */
  readonly idleCloseMs?: number;
  /**
   * Audit records go to a journal file first and are copied into the database when the
   * gateway is quiet, when enough wait, when the log is read and at close
   * (`audit-journal.ts`); `false` writes each batch to the database at once. Default: on.
   */
  readonly auditJournal?: AuditJournalOptions | false;
  /**
   * The archive of an empty database that a first run unpacks instead of creating one
   * (`pglite-template.ts`). Default: the one built with the package; a missing or unreadable
   * file: the database is created as without one.
   */
  readonly template?: string;
  /**
   * The data directory's lock, taken by the caller before the open (a gateway that holds the
   * directory while it starts without its store); the store releases it when it closes, or
   * when the open fails. Default: taken by the open.
   */
  readonly lock?: HeldLock;
  /**
   * Start the database's process with the first statement that needs it, not during the open
   * (which then only takes the lock and sets up the audit journal); migrations run with that
   * first statement. For a database known to be as this version of hintgate left it after a
   * clean close (the start snapshot's stamp says so): opening it costs a process about half a
   * second of CPU, which a gateway whose first listing comes from the snapshot need not spend
   * while its client's first calls arrive. Default false: a database that cannot be opened
   * fails the open.
   */
  readonly deferDatabase?: boolean;
}

/** A PostgreSQL database, optionally in a schema of its own. */
export interface PostgresStoreOptions extends CommonStoreOptions {
  readonly kind: 'postgres';
  readonly url: string;
  /** A schema to keep hintgate's tables in (created when missing); default `public`. */
  readonly schema?: string;
  /** Connections in the pool (default 10), besides the one listening for changes. */
  readonly poolSize?: number;
  /** How long to wait for a connection (default 5 s). */
  readonly connectTimeoutMs?: number;
  /** The connections' `application_name` (default `hintgate`; the listener adds ` listener`). */
  readonly applicationName?: string;
}

/** Which store to open. */
export type StoreOptions = PgliteStoreOptions | PostgresStoreOptions;
