/**
 * The store: one interface over two implementations sharing one set of SQL migrations.
 * Embedded PGlite in the data directory is the default; PostgreSQL (`--store
 * postgres://…`) lets several gateway replicas share toolsets, approvals and the audit log.
 */
import { HintgateError } from '../core/errors.js';

export type {
  AddNotesResult,
  AdminEndpoint,
  AnnotationOverride,
  Approval,
  ApprovalDecision,
  ApprovalInput,
  ApprovalQuery,
  ApprovalStatus,
  AuditQuery,
  AuditRecord,
  AuditRecordInput,
  DefaultToolsetChoice,
  OAuthCredential,
  OAuthCredentialInput,
  OAuthCredentialSummary,
  OverrideScope,
  PinDecision,
  PinQuery,
  PinStatus,
  PinTarget,
  PinWrite,
  StoredDefaultToolset,
  StoredNote,
  StoreEvent,
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
export type {
  DocumentNote,
  DocumentOverride,
  ImportOptions,
  ImportResult,
  ToolsetDocument,
} from './transfer.js';
export { TOOLSET_DOCUMENT_VERSION, parseToolsetDocument } from './transfer.js';
export type { DefaultToolsetWrite } from './settings.js';
export type { LockInfo } from './lock.js';
export { readLock } from './lock.js';
export type { AuditWriter, AuditWriterOptions } from './audit-writer.js';
export { createAuditWriter } from './audit-writer.js';
export { SCHEMA_VERSION } from './migrate.js';

export type {
  CommonStoreOptions,
  PgliteStoreOptions,
  PostgresStoreOptions,
  Store,
  StoreOptions,
  UnsetOverrideOptions,
} from './interface.js';
import type { Store, StoreOptions } from './interface.js';

/**
 * Opens a store: takes the data directory's lock (PGlite), connects (PostgreSQL), and
 * brings the schema up to date. Fails with STORE_LOCKED, STORE_VERSION or STORE_UNAVAILABLE.
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  // Loaded on demand: PGlite's WebAssembly or pg is only loaded for the store in use.
  switch (options.kind) {
    case 'pglite': {
      const { openPgliteStore } = await import('./pglite.js');
      return openPgliteStore(options);
    }
    case 'postgres': {
      const { openPostgresStore } = await import('./postgres.js');
      return openPostgresStore(options);
    }
  }
}

/**
 * The store options for a `--store` value (or the config's `store`): a `postgres://` or
 * `postgresql://` URL (a `schema` query parameter keeps hintgate's tables in that schema:
 * `postgres://db/app?schema=hintgate`), else the embedded store in `dataDir`.
 */
export function storeOptionsFrom(spec: string | undefined, dataDir: string): StoreOptions {
  if (spec === undefined || spec === '' || spec === 'pglite') return { kind: 'pglite', dataDir };
  if (/^postgres(ql)?:\/\//.test(spec)) {
    const schema = /[?&]schema=([^&#]*)/.exec(spec)?.[1];
    if (schema === undefined) return { kind: 'postgres', url: spec };
    const url = spec.replace(/([?&])schema=[^&#]*&?/, '$1').replace(/[?&]$/, '');
    return { kind: 'postgres', url, schema: decodeURIComponent(schema) };
  }
  throw new HintgateError(
    'CONFIG_INVALID',
    `store: expected "pglite" or a postgres:// URL, got "${spec.slice(0, 40)}"`,
  );
}
