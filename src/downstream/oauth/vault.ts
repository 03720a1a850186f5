import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { HintgateError } from '../../core/errors.js';
import type { Sealer } from './seal.js';
import { secretKeyMissing } from './seal.js';

/**
 * What the vault needs of the store (the `Store` has these): sealed documents in, sealed
 * documents out. Declared here so that `downstream` does not depend on `store`.
 */
export interface CredentialStore {
  getOAuthCredential(
    server: string,
    principal: string,
  ): Promise<{ readonly sealed: string } | undefined>;
  saveOAuthCredential(input: {
    readonly server: string;
    readonly principal?: string;
    readonly sealed: string;
    readonly expiresAt?: string;
    readonly scope?: string;
    readonly refreshable?: boolean;
    readonly loggedInAt?: string;
  }): Promise<void>;
  deleteOAuthCredentials(server: string, principal?: string): Promise<number>;
  /** Runs `fn` holding the lock of one login against every process sharing the store. */
  withOAuthLock<T>(server: string, principal: string, fn: () => Promise<T>): Promise<T>;
}

/** Everything hintgate keeps about its OAuth client to one server, for one principal. */
export interface CredentialDocument {
  readonly version: 1;
  readonly tokens?: StoredOAuthTokens;
  /** When the tokens were obtained (epoch ms): `expires_in` counts from here. */
  readonly obtainedAt?: number;
  /** The client registration (dynamic), absent for a client configured beforehand. */
  readonly client?: StoredOAuthClientInformation;
  /** Protected-resource and authorization-server metadata, as discovered. */
  readonly discovery?: OAuthDiscoveryState;
}

/** When a document's access token expires (epoch ms), when the server said. */
export function expiresAt(document: CredentialDocument): number | undefined {
  const seconds = document.tokens?.expires_in;
  if (seconds === undefined || document.obtainedAt === undefined) return undefined;
  return document.obtainedAt + seconds * 1000;
}

/** Where a credential lives, bound into its seal. */
function placeOf(server: string, principal: string): string {
  return `server=${server};principal=${principal}`;
}

/**
 * Reads and writes credential documents through the store, sealed: the store only ever sees
 * ciphertext and the summary (expiry, scope, whether a refresh token is held).
 */
export class CredentialVault {
  constructor(
    private readonly store: CredentialStore,
    private readonly sealer: Sealer | undefined,
  ) {}

  /** True when a secret key is set (tokens can be stored and read). */
  get canSeal(): boolean {
    return this.sealer !== undefined;
  }

  /** The stored document, or undefined when there is none. */
  async load(server: string, principal: string): Promise<CredentialDocument | undefined> {
    const row = await this.store.getOAuthCredential(server, principal);
    if (row === undefined) return undefined;
    if (this.sealer === undefined) throw secretKeyMissing(`read the OAuth login of "${server}"`);
    const text = this.sealer.open(row.sealed, placeOf(server, principal));
    const parsed = JSON.parse(text) as unknown;
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      (parsed as { version?: unknown }).version !== 1
    ) {
      throw new HintgateError(
        'CONFIG_INVALID',
        `the stored OAuth login of "${server}" is not one this hintgate reads`,
      );
    }
    return parsed as CredentialDocument;
  }

  /** Seals and stores a document; `login` marks an interactive login's completion. */
  async save(
    server: string,
    principal: string,
    document: CredentialDocument,
    login = false,
  ): Promise<void> {
    if (this.sealer === undefined) throw secretKeyMissing(`store the OAuth login of "${server}"`);
    const sealed = this.sealer.seal(JSON.stringify(document), placeOf(server, principal));
    const expiry = expiresAt(document);
    const scope = document.tokens?.scope;
    await this.store.saveOAuthCredential({
      server,
      principal,
      sealed,
      refreshable: document.tokens?.refresh_token !== undefined,
      ...(expiry === undefined ? {} : { expiresAt: new Date(expiry).toISOString() }),
      ...(scope === undefined ? {} : { scope }),
      ...(login ? { loggedInAt: new Date().toISOString() } : {}),
    });
  }

  /**
   * Runs `fn` holding the login's lock against every process sharing the store: a refresh
   * (or a new login's save) reads the stored document again under it.
   */
  locked<T>(server: string, principal: string, fn: () => Promise<T>): Promise<T> {
    return this.store.withOAuthLock(server, principal, fn);
  }

  /** Removes a principal's document (or every one of the server's); returns how many. */
  remove(server: string, principal?: string): Promise<number> {
    return this.store.deleteOAuthCredentials(server, principal);
  }
}
