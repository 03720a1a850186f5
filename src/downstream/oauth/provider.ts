import { randomBytes } from 'node:crypto';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../config/schema.js';
import { isHintgateError } from '../../core/errors.js';
import { DownstreamError } from '../../mcp/rpc-errors.js';
import type { CredentialDocument, CredentialVault } from './vault.js';

/** The OAuth client settings of a server (`mcpServers.<name>.oauth`). */
export type ServerOAuthSettings = NonNullable<ServerConfig['oauth']>;

/**
 * True for a server hintgate may be the OAuth client of: an HTTP server not configured
 * `auth: none` whose `headers` carry no `Authorization` (that header is its credential).
 */
export function usesOAuth(config: ServerConfig): boolean {
  if (config.url === undefined || config.auth === 'none') return false;
  return !Object.keys(config.headers).some((key) => key.toLowerCase() === 'authorization');
}

/** The command that logs a principal in to a server, for messages. */
export function loginCommand(server: string, principal: string): string {
  return principal === ''
    ? `hintgate auth login ${server}`
    : `hintgate auth login ${server} --principal ${principal}`;
}

/** The errors made by {@link loginRequired}. */
const LOGIN_REQUIRED = new WeakSet<Error>();

/** A server needs an (interactive) login before hintgate can call it. */
export function loginRequired(server: string, principal: string, why: string): DownstreamError {
  const whose = principal === '' ? '' : ` for principal "${principal}"`;
  const error = new DownstreamError(
    'DOWNSTREAM_UNAVAILABLE',
    server,
    `server "${server}" needs an OAuth login${whose} (${why}); run \`${loginCommand(server, principal)}\``,
  );
  LOGIN_REQUIRED.add(error);
  return error;
}

/**
 * True when an error means only a new login helps: one made by {@link loginRequired}, or a
 * stored login that does not open (the secret key is missing or changed). A store that
 * cannot be reached, or a token endpoint that failed, is not one.
 */
export function needsLogin(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return LOGIN_REQUIRED.has(error) || (isHintgateError(error) && error.code === 'CONFIG_INVALID');
}

/** What {@link StoredOAuthProvider} needs. */
export interface StoredOAuthProviderOptions {
  readonly server: string;
  /** '' for the server's shared login. */
  readonly principal: string;
  readonly vault: CredentialVault;
  readonly settings: ServerOAuthSettings | undefined;
  /** Where the authorization server sends the browser back (the login's loopback listener). */
  readonly redirectUrl: string;
  /**
   * Sends the person to the authorization URL: set by `hintgate auth login`. Without it (the
   * gateway), an authorization the SDK would start is a "log in first" error instead.
   */
  readonly redirect?: (url: URL) => void;
  /**
   * Keep every change in memory until {@link StoredOAuthProvider.commit} (a login: the stored
   * login stays as it is until the new one has its tokens).
   */
  readonly deferSaves?: boolean;
  readonly now?: () => number;
}

/**
 * The SDK's `OAuthClientProvider` over hintgate's sealed credential store: the SDK's `auth()`
 * does discovery (protected-resource metadata, then authorization-server metadata),
 * dynamic client registration, the authorization code flow with PKCE and refresh; this
 * class only keeps what it is given, for one server and principal. Every save writes the
 * sealed document to the store, unless saves are deferred (a login, which writes once, when
 * it has its tokens).
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  #document: CredentialDocument = { version: 1 };
  #verifier: string | undefined;
  readonly #state = randomBytes(16).toString('base64url');
  #loaded = false;
  /** A login was stored when the document was read. */
  #hadLogin = false;
  /** Another refresh stored newer tokens than the refused ones: they were taken instead. */
  #adopted = false;
  /** Why the last refresh could not reach the authorization server (network, 5xx). */
  #unreachable: string | undefined;

  constructor(private readonly options: StoredOAuthProviderOptions) {}

  /** Reads the stored document (again); call before handing the provider to the SDK. */
  async load(): Promise<CredentialDocument> {
    const { server, principal } = this.options;
    this.#document = (await this.options.vault.load(server, principal)) ?? { version: 1 };
    this.#loaded = true;
    this.#hadLogin = this.#document.tokens !== undefined;
    this.#adopted = false;
    this.#unreachable = undefined;
    return this.#document;
  }

  /** Records that the authorization server could not be reached during a refresh. */
  noteUnreachable(why: string): void {
    this.#unreachable = why;
  }

  /** The document as held now. */
  get document(): CredentialDocument {
    return this.#document;
  }

  /** Replaces the held document, in memory only (a login starting over). */
  reset(document: CredentialDocument): void {
    this.#document = document;
  }

  /**
   * Stores the held document, marked as a completed login; under the login's lock, so that
   * a refresh running in a gateway cannot store the old grant's tokens over it.
   */
  async commit(): Promise<void> {
    const { server, principal, vault } = this.options;
    await vault.locked(server, principal, () =>
      vault.save(server, principal, this.#document, true),
    );
  }

  /** The state sent with the authorization request, to check on the redirect. */
  get expectedState(): string {
    return this.#state;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.options.settings?.scope;
    const confidential = this.options.settings?.clientSecret !== undefined;
    return {
      client_name: 'hintgate',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
      ...(scope === undefined ? {} : { scope }),
    };
  }

  state(): string {
    return this.#state;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const settings = this.options.settings;
    if (settings?.clientId !== undefined) {
      return {
        client_id: settings.clientId,
        ...(settings.clientSecret === undefined ? {} : { client_secret: settings.clientSecret }),
        ...(this.#document.client?.issuer === undefined
          ? {}
          : { issuer: this.#document.client.issuer }),
      };
    }
    return this.#document.client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    // A configured client keeps its secret in the config, never in the store.
    const kept: StoredOAuthClientInformation =
      this.options.settings?.clientId !== undefined
        ? {
            client_id: client.client_id,
            ...(client.issuer === undefined ? {} : { issuer: client.issuer }),
          }
        : client;
    this.#document = { ...this.#document, client: kept };
    await this.#persist();
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#document.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    // A refresh response may leave the refresh token out: the one held stays valid.
    const refresh = tokens.refresh_token ?? this.#document.tokens?.refresh_token;
    this.#document = {
      ...this.#document,
      tokens: { ...tokens, ...(refresh === undefined ? {} : { refresh_token: refresh }) },
      obtainedAt: (this.options.now ?? Date.now)(),
    };
    await this.#persist();
  }

  redirectToAuthorization(url: URL): void {
    const redirect = this.options.redirect;
    if (redirect === undefined) {
      // The SDK starts an authorization after a refresh that failed: newer tokens stored by
      // another refresh are used instead; an unreachable authorization server is no reason
      // to log in again.
      if (this.#adopted) return;
      if (this.#unreachable !== undefined) {
        throw new DownstreamError(
          'DOWNSTREAM_UNAVAILABLE',
          this.options.server,
          `could not refresh the OAuth token of server "${this.options.server}": ${this.#unreachable}`,
        );
      }
      throw loginRequired(
        this.options.server,
        this.options.principal,
        this.#hadLogin
          ? 'the stored login was refused and could not be refreshed: revoked or expired'
          : 'no login is stored',
      );
    }
    redirect(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no PKCE code verifier was saved');
    return this.#verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#document.discovery;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    this.#document = { ...this.#document, discovery: state };
    await this.#persist();
  }

  async invalidateCredentials(
    scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery',
  ): Promise<void> {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return;
    }
    if (scope === 'tokens' || scope === 'all') {
      // The refused tokens may be stale: another refresh (another connection, another
      // gateway) may have rotated them and stored new ones. Those are kept, not overwritten.
      const refused = this.#document.tokens?.access_token;
      const stored = this.#loaded && !this.#deferred ? await this.#reread() : undefined;
      if (stored?.tokens !== undefined && stored.tokens.access_token !== refused) {
        this.#document = stored;
        this.#adopted = true;
        return;
      }
    }
    const { tokens, obtainedAt, client, discovery } = this.#document;
    const keep = (part: 'tokens' | 'client' | 'discovery') => scope !== 'all' && scope !== part;
    this.#document = {
      version: 1,
      ...(keep('tokens') && tokens !== undefined ? { tokens } : {}),
      ...(keep('tokens') && obtainedAt !== undefined ? { obtainedAt } : {}),
      ...(keep('client') && client !== undefined ? { client } : {}),
      ...(keep('discovery') && discovery !== undefined ? { discovery } : {}),
    };
    await this.#persist();
  }

  get #deferred(): boolean {
    return this.options.deferSaves === true;
  }

  async #reread(): Promise<CredentialDocument | undefined> {
    return this.options.vault.load(this.options.server, this.options.principal);
  }

  async #persist(): Promise<void> {
    if (!this.#loaded || this.#deferred) return;
    const { server, principal, vault } = this.options;
    await vault.save(server, principal, this.#document);
  }
}
