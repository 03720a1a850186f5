import type { ToolAnnotations } from '../core/annotations/types.js';
import type { DynamicRule } from '../core/dynamic/rules.js';
import { HintgateError, errorMessage, isHintgateError } from '../core/errors.js';
import type { ToolNote } from '../core/notes/notes.js';
import * as approvals from './approvals.js';
import * as audit from './audit.js';
import type { AuditJournal } from './audit-journal.js';
import * as nonces from './nonces.js';
import * as oauth from './oauth-credentials.js';
import * as notes from './notes.js';
import type { OverrideTarget } from './overrides.js';
import * as overrides from './overrides.js';
import * as pins from './pins.js';
import type { DefaultToolsetWrite } from './settings.js';
import * as settings from './settings.js';
import type { Emit, StoreRunner } from './runner.js';
import type { Sql } from './sql.js';
import { isRecordRefused, toStoreError } from './sql.js';
import type { Store, UnsetOverrideOptions } from './interface.js';
import * as toolsets from './toolsets.js';
import type { ImportOptions, ImportResult, ToolsetDocument } from './transfer.js';
import { importDocument, parseToolsetDocument, toDocument } from './transfer.js';
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
  StoredDefaultToolset,
  PinDecision,
  PinQuery,
  PinTarget,
  PinWrite,
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
import * as check from './validate.js';
import { LeaseLocks } from './leases.js';

/** What an implementation adds to the shared SQL store. */
export interface SqlStoreHooks {
  readonly setAdminEndpoint?: (endpoint: AdminEndpoint | undefined) => void;
  /**
   * The journal audit records are appended to instead of the database, made over the
   * store's runner (the embedded store: `audit-journal.ts`).
   */
  readonly auditJournal?: (runner: StoreRunner) => AuditJournal;
  /** {@link Store.rest}: the embedded store ends its database's process when idle. */
  readonly rest?: () => void;
  /** {@link Store.databaseUsed}: whether the embedded store's database has run. */
  readonly databaseUsed?: () => boolean;
}

/** The name of the lock of one OAuth login. */
function oauthLockKey(server: string, principal: string): string {
  return `hintgate.oauth ${JSON.stringify([server, principal])}`;
}

/** How often expired nonces are dropped. */
const NONCE_PRUNE_EVERY_MS = 60_000;

/**
 * The {@link Store} over a {@link StoreRunner}: input checks, one transaction per write, and
 * change events. Both implementations are this class with a different driver.
 */
export class SqlStore implements Store {
  readonly kind: StoreKind;
  readonly location: string;
  /** When expired nonces were last dropped (0: never, so the first claim does it). */
  #prunedAt = 0;
  /** The logins' locks of a store without cross-process ones (the embedded store). */
  readonly #locks = new LeaseLocks();
  readonly #journal: AuditJournal | undefined;

  constructor(
    private readonly runner: StoreRunner,
    private readonly hooks: SqlStoreHooks = {},
  ) {
    this.kind = runner.driver.kind;
    this.location = runner.driver.location;
    this.#journal = hooks.auditJournal?.(runner);
  }

  async listToolsets(): Promise<ToolsetSummary[]> {
    return this.runner.read((sql) => toolsets.selectToolsetSummaries(sql));
  }

  async getToolset(name: string): Promise<Toolset | undefined> {
    return this.runner.read((sql) => toolsets.selectToolset(sql, name));
  }

  async createToolset(input: ToolsetInput): Promise<Toolset> {
    check.assertValid('toolset', check.checkToolsetInput(input));
    return this.runner.write(async (sql, emit) => {
      const id = await toolsets.insertToolset(sql, input.name, input.description ?? '');
      if (id === undefined) {
        throw new HintgateError('CONFLICT', `toolset "${input.name}" already exists`, {
          toolset: input.name,
        });
      }
      await toolsets.insertMembers(sql, id, toolsets.uniqueMembers(input.members ?? []));
      emit({ kind: 'toolset', name: input.name });
      return toolsets.requireToolset(sql, input.name);
    });
  }

  async updateToolset(name: string, changes: ToolsetChanges): Promise<Toolset> {
    check.assertValid('toolset changes', check.checkToolsetInput(changes));
    return this.#changeToolset(name, async (sql, id) => {
      if (changes.description !== undefined) {
        await toolsets.updateDescription(sql, id, changes.description);
      }
      if (changes.members !== undefined) {
        await toolsets.deleteMembers(sql, id, 'all');
        await toolsets.insertMembers(sql, id, toolsets.uniqueMembers(changes.members));
      }
      return changes.description !== undefined || changes.members !== undefined;
    });
  }

  async addMembers(name: string, members: readonly ToolsetMember[]): Promise<Toolset> {
    check.assertValid('members', check.checkMembers(members));
    return this.#changeToolset(
      name,
      async (sql, id) =>
        (await toolsets.insertMembers(sql, id, toolsets.uniqueMembers(members))) > 0,
    );
  }

  async removeMembers(name: string, members: readonly ToolsetMember[]): Promise<Toolset> {
    check.assertValid('members', check.checkMembers(members));
    return this.#changeToolset(
      name,
      async (sql, id) => (await toolsets.deleteMembers(sql, id, members)) > 0,
    );
  }

  async setToolsetRules(name: string, rules: readonly DynamicRule[]): Promise<Toolset> {
    check.assertValid('rules', check.checkRules(rules));
    return this.#changeToolset(name, (sql, id) => toolsets.updateRules(sql, id, rules));
  }

  async deleteToolset(name: string): Promise<void> {
    return this.runner.write(async (sql, emit) => {
      if (!(await toolsets.deleteToolsetRow(sql, name))) throw toolsets.toolsetNotFound(name);
      emit({ kind: 'toolset', name });
      if (await settings.forgetDeletedDefault(sql, name)) emit({ kind: 'default-toolset' });
    });
  }

  async addNotes(
    toolset: string,
    tool: ToolRef,
    list: readonly ToolNote[],
  ): Promise<AddNotesResult> {
    check.assertValid('notes', check.checkNotesInput(tool, list));
    return this.runner.write(async (sql, emit) => {
      const id = await toolsets.lockToolset(sql, toolset);
      const result = await notes.insertNotes(sql, id, toolset, tool, list);
      if (result.added.length > 0) await touched(sql, id, toolset, emit);
      return result;
    });
  }

  async editNote(toolset: string, tool: ToolRef, name: string, text: string): Promise<StoredNote> {
    check.assertValid('note', [
      ...check.checkToolRef(tool),
      ...check.checkNote({ name, note: text }, ''),
    ]);
    return this.runner.write(async (sql, emit) => {
      const id = await toolsets.lockToolset(sql, toolset);
      const edited = await notes.updateNote(sql, id, toolset, tool, name, text);
      await touched(sql, id, toolset, emit);
      return edited;
    });
  }

  async removeNote(toolset: string, tool: ToolRef, name: string): Promise<void> {
    check.assertValid('note', check.checkToolRef(tool));
    await this.#changeToolset(toolset, async (sql, id) => {
      await notes.deleteNote(sql, id, toolset, tool, name);
      return true;
    });
  }

  async listNotes(toolset: string, tool?: ToolRef): Promise<StoredNote[]> {
    if (tool !== undefined) check.assertValid('tool', check.checkToolRef(tool));
    return this.runner.read(async (sql) =>
      notes.selectNotes(sql, await toolsets.toolsetId(sql, toolset), tool),
    );
  }

  async setOverride(
    tool: ToolRef,
    annotations: ToolAnnotations,
    scope: OverrideScope = {},
  ): Promise<AnnotationOverride> {
    const issues = [...check.checkToolRef(tool), ...check.checkOverride(annotations)];
    if (issues.length === 0 && Object.keys(annotations).length === 0) {
      issues.push({ path: 'annotations', message: 'must set at least one field' });
    }
    check.assertValid('override', issues);
    return this.#inScope(scope, (sql, target) =>
      overrides.mergeOverride(sql, target, tool, annotations),
    );
  }

  async unsetOverride(
    tool: ToolRef,
    options: UnsetOverrideOptions = {},
  ): Promise<AnnotationOverride | undefined> {
    check.assertValid('override', check.checkToolRef(tool));
    return this.#inScope(options, (sql, target) =>
      overrides.removeOverrideFields(sql, target, tool, options.fields),
    );
  }

  async listOverrides(scope: OverrideScope = {}): Promise<AnnotationOverride[]> {
    const name = scope.toolset;
    return this.runner.read(async (sql) =>
      overrides.selectOverrides(
        sql,
        name === undefined ? undefined : { id: await toolsets.toolsetId(sql, name), name },
      ),
    );
  }

  async getGlobalOverrides(): Promise<AnnotationOverride[]> {
    return this.runner.read((sql) => overrides.selectOverrides(sql, undefined));
  }

  async exportToolset(name: string): Promise<ToolsetDocument> {
    return toDocument(await this.runner.read((sql) => toolsets.requireToolset(sql, name)));
  }

  async importToolset(document: unknown, options: ImportOptions = {}): Promise<ImportResult> {
    const parsed = parseToolsetDocument(document);
    const name = options.name ?? parsed.name;
    check.assertValid('import', check.checkToolsetName(name));
    return this.runner.write(async (sql, emit) => {
      const replaced = await importDocument(sql, parsed, name, options.replace === true);
      emit({ kind: 'toolset', name });
      return { toolset: await toolsets.requireToolset(sql, name), replaced };
    });
  }

  async getDefaultToolset(): Promise<StoredDefaultToolset | undefined> {
    return this.runner.read((sql) => settings.selectDefaultToolset(sql));
  }

  async setDefaultToolset(
    choice: DefaultToolsetWrite,
    by?: string,
  ): Promise<StoredDefaultToolset | undefined> {
    check.assertValid('default toolset', settings.checkDefaultToolsetWrite(choice, by));
    return this.runner.write(async (sql, emit) => {
      await settings.writeDefaultToolset(sql, choice, by);
      emit({ kind: 'default-toolset' });
      return settings.selectDefaultToolset(sql);
    });
  }

  async createApproval(input: ApprovalInput): Promise<Approval> {
    check.assertValid('approval', approvals.checkApprovalInput(input));
    return this.runner.write(async (sql, emit) => {
      const approval = await approvals.insertApproval(sql, input);
      emit({ kind: 'approval', id: approval.id, status: approval.status });
      return approval;
    });
  }

  async getApproval(id: string): Promise<Approval | undefined> {
    return this.runner.read((sql) => approvals.selectApproval(sql, id));
  }

  async listApprovals(query: ApprovalQuery = {}): Promise<Approval[]> {
    return this.runner.read((sql) => approvals.selectApprovals(sql, query));
  }

  async decideApproval(id: string, decision: ApprovalDecision): Promise<Approval> {
    check.assertValid('decision', approvals.checkDecision(decision));
    // A value, not a throw, comes out of the transaction so that marking an overdue
    // approval expired on the way still commits.
    const outcome = await this.runner.write(async (sql, emit) => {
      const result = await approvals.decide(sql, id, decision);
      if (result.kind !== 'missing' && result.approval.status !== 'pending') {
        emit({ kind: 'approval', id, status: result.approval.status });
      }
      return result;
    });
    if (outcome.kind === 'decided') return outcome.approval;
    if (outcome.kind === 'missing') {
      throw new HintgateError('NOT_FOUND', `approval ${id} does not exist`, { id });
    }
    throw approvals.notPendingError(outcome.approval, decision.status);
  }

  async expireApprovals(): Promise<Approval[]> {
    return this.runner.write(async (sql, emit) => {
      const expired = await approvals.expireOverdue(sql);
      for (const approval of expired)
        emit({ kind: 'approval', id: approval.id, status: 'expired' });
      return expired;
    });
  }

  async claimNonce(nonce: string, ttlMs: number): Promise<boolean> {
    check.assertValid('nonce', nonces.checkNonce(nonce, ttlMs));
    const claimed = await this.runner.write((sql) => nonces.claimNonce(sql, nonce, ttlMs));
    // Expired nonces are dropped at most once a minute, after a claim, never in its way.
    const now = Date.now();
    if (now - this.#prunedAt >= NONCE_PRUNE_EVERY_MS) {
      this.#prunedAt = now;
      await this.runner.write((sql) => nonces.pruneNonces(sql)).catch(() => undefined);
    }
    return claimed;
  }

  async listPins(query: PinQuery = {}): Promise<ToolPin[]> {
    return this.runner.read((sql) => pins.selectPins(sql, query));
  }

  async savePins(list: readonly PinWrite[]): Promise<void> {
    check.assertValid('pins', pins.checkPinWrites(list));
    if (list.length === 0) return;
    await this.runner.write(async (sql, emit) => {
      await pins.upsertPins(sql, list);
      for (const server of new Set(list.map((pin) => pin.server))) emit({ kind: 'drift', server });
    });
  }

  async decidePins(target: PinTarget, decision: PinDecision): Promise<ToolPin[]> {
    check.assertValid('pin decision', pins.checkPinDecision(target, decision));
    const decided = await this.runner.write(async (sql, emit) => {
      const result = await pins.decidePins(sql, target, decision);
      if (result.length > 0) emit({ kind: 'pins', server: target.server });
      return result;
    });
    if (decided.length === 0) {
      const what =
        target.tool === undefined ? `server "${target.server}"` : `${target.server}.${target.tool}`;
      throw new HintgateError(
        'NOT_FOUND',
        `no tool definition of ${what} waits for ${decision.action === 'approve' ? 'approval' : 'a decision'}`,
        { ...target },
      );
    }
    return decided;
  }

  /**
   * Appends records in one write: to the audit journal when the store has one (copied into
   * the database later; a batch the journal cannot take goes to the database), else in one
   * statement. When the batch is refused for what is in it (not for a lost database), each
   * record is written on its own, and one still refused is written in a degraded form
   * ({@link audit.degradedRecord}): one bad record never costs the others.
   */
  async appendAudit(records: readonly AuditRecordInput[]): Promise<void> {
    check.assertValid('audit records', audit.checkAuditRecords(records));
    if (records.length === 0) return;
    if (this.#journal !== undefined) {
      try {
        this.runner.assertOpen();
      } catch (error) {
        throw toStoreError(error, this.location);
      }
      try {
        await this.#journal.append(audit.auditLines(records));
        return;
      } catch {
        // Said by the journal; the batch goes to the database instead.
      }
    }
    try {
      await this.runner.write((sql) => audit.insertAuditRecords(sql, records));
    } catch (error) {
      if (isHintgateError(error, 'STORE_UNAVAILABLE')) throw error;
      await this.appendOneByOne(records);
    }
  }

  /**
   * A batch the database refused, record by record: one still refused is written in a
   * degraded form, and one refused even so for what is in it ({@link isRecordRefused}) is
   * lost. A degraded form failing for the database's own reasons (out of disk, a privilege
   * missing) would fail every record alike: it stops there, as a store that cannot take
   * records now (`STORE_UNAVAILABLE`, so the writer keeps the rest and tries again later).
   * The error thrown says in `details` how many of the batch's first records were dealt with
   * (`written`: written, or lost) and how many of those were lost (`lost`, with the
   * database's reason as `refusal`): the writer keeps only the rest, and counts only those.
   */
  private async appendOneByOne(records: readonly AuditRecordInput[]): Promise<void> {
    let refusal: Error | undefined;
    let lost = 0;
    const stop = (error: unknown, written: number, failing = false): HintgateError => {
      const failure = toStoreError(error, this.location);
      const details = { ...failure.details, written, lost, refusal: refusal?.message };
      const code = failing ? 'STORE_UNAVAILABLE' : failure.code;
      return new HintgateError(code, failure.message, details, { cause: failure });
    };
    for (const [index, record] of records.entries()) {
      try {
        await this.runner.write((sql) => audit.insertAuditRecords(sql, [record]));
      } catch (error) {
        if (isHintgateError(error, 'STORE_UNAVAILABLE')) throw stop(error, index);
        try {
          const degraded = audit.degradedRecord(record, errorMessage(error));
          await this.runner.write((sql) => audit.insertAuditRecords(sql, [degraded]));
        } catch (last) {
          if (!isRecordRefused(last)) throw stop(last, index, true);
          refusal = last instanceof Error ? last : new Error(String(last));
          lost += 1;
        }
      }
    }
    if (refusal !== undefined) throw stop(refusal, records.length);
  }

  async queryAudit(query: AuditQuery = {}): Promise<AuditRecord[]> {
    check.assertValid('audit query', audit.checkAuditQuery(query));
    // What the journal holds is copied first: a read never misses a record the store took.
    if (this.#journal !== undefined) {
      try {
        this.runner.assertOpen();
        await this.#journal.ingest();
      } catch (error) {
        throw toStoreError(error, this.location);
      }
    }
    return this.runner.read((sql) => audit.selectAuditRecords(sql, query));
  }

  async getOAuthCredential(
    server: string,
    principal: string,
  ): Promise<OAuthCredential | undefined> {
    check.assertValid('OAuth credential', oauth.checkCredentialKey(server, principal));
    return this.runner.read((sql) => oauth.selectCredential(sql, server, principal));
  }

  async listOAuthCredentials(server?: string): Promise<OAuthCredentialSummary[]> {
    if (server !== undefined)
      check.assertValid('OAuth credentials', oauth.checkCredentialKey(server, ''));
    return this.runner.read((sql) => oauth.selectCredentialSummaries(sql, server));
  }

  async saveOAuthCredential(input: OAuthCredentialInput): Promise<void> {
    check.assertValid('OAuth credential', oauth.checkCredentialInput(input));
    await this.runner.write(async (sql, emit) => {
      await oauth.upsertCredential(sql, input);
      emit({ kind: 'oauth', server: input.server });
    });
  }

  async deleteOAuthCredentials(server: string, principal?: string): Promise<number> {
    check.assertValid('OAuth credentials', oauth.checkCredentialKey(server, principal ?? ''));
    return this.runner.write(async (sql, emit) => {
      const removed = await oauth.deleteCredentials(sql, server, principal);
      if (removed > 0) emit({ kind: 'oauth', server });
      return removed;
    });
  }

  async withOAuthLock<T>(server: string, principal: string, fn: () => Promise<T>): Promise<T> {
    check.assertValid('OAuth credential', oauth.checkCredentialKey(server, principal));
    const key = oauthLockKey(server, principal);
    const { driver } = this.runner;
    if (driver.exclusive !== undefined) return driver.exclusive(key, fn);
    return this.#locks.with(key, fn);
  }

  async acquireOAuthLock(server: string, principal: string): Promise<string> {
    check.assertValid('OAuth credential', oauth.checkCredentialKey(server, principal));
    if (this.runner.driver.exclusive !== undefined) {
      // Only the embedded store is reached through the admin endpoint.
      throw new HintgateError(
        'INPUT_INVALID',
        'a lease of an OAuth login is held only in the process holding an embedded store',
      );
    }
    return this.#locks.acquire(oauthLockKey(server, principal));
  }

  releaseOAuthLock(lease: string): Promise<void> {
    if (typeof lease !== 'string' || lease === '' || lease.length > 64)
      return Promise.reject(new HintgateError('INPUT_INVALID', 'lease: expected a lease id'));
    this.#locks.release(lease);
    return Promise.resolve();
  }

  watch(listener: StoreListener): () => void {
    return this.runner.watch(listener);
  }

  async setAdminEndpoint(endpoint: AdminEndpoint | undefined): Promise<void> {
    try {
      this.runner.assertOpen();
      this.hooks.setAdminEndpoint?.(endpoint);
    } catch (error) {
      throw toStoreError(error, this.location);
    }
    return Promise.resolve();
  }

  rest(): void {
    this.hooks.rest?.();
  }

  databaseUsed(): boolean {
    return this.hooks.databaseUsed?.() ?? true;
  }

  async close(): Promise<void> {
    // The journal's records are copied into the database before it closes, unless the
    // database has not run in this process (opened deferred, nothing needed it): it is not
    // started only for that, and the records wait on disk for whoever opens it next.
    if (!this.runner.closed) await this.#journal?.close({ copy: this.databaseUsed() });
    await this.runner.close();
  }

  /** Locks a toolset, runs `fn`, and records a new revision when `fn` changed something. */
  async #changeToolset(
    name: string,
    fn: (sql: Sql, id: number) => Promise<boolean>,
  ): Promise<Toolset> {
    return this.runner.write(async (sql, emit) => {
      const id = await toolsets.lockToolset(sql, name);
      if (await fn(sql, id)) await touched(sql, id, name, emit);
      return toolsets.requireToolset(sql, name);
    });
  }

  /** Runs an override change globally or inside a (locked) toolset, and reports it. */
  async #inScope<T>(
    scope: OverrideScope,
    fn: (sql: Sql, target: OverrideTarget) => Promise<T>,
  ): Promise<T> {
    const name = scope.toolset;
    return this.runner.write(async (sql, emit) => {
      if (name === undefined) {
        const result = await fn(sql, undefined);
        emit({ kind: 'overrides' });
        return result;
      }
      const id = await toolsets.lockToolset(sql, name);
      const result = await fn(sql, { id, name });
      await touched(sql, id, name, emit);
      return result;
    });
  }
}

async function touched(sql: Sql, id: number, name: string, emit: Emit): Promise<void> {
  await toolsets.bumpToolset(sql, id);
  emit({ kind: 'toolset', name });
}
