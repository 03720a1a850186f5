import { randomBytes } from 'node:crypto';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../config/schema.js';
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

/** A server needs an (interactive) login before hintgate can call it. */
export function loginRequired(server: string, principal: string, why: string): DownstreamError {
  const whose = principal === '' ? '' : ` for principal "${principal}"`;
  return new DownstreamError(
    'DOWNSTREAM_UNAVAILABLE',
    server,
    `server "${server}" needs an OAuth login${whose} (${why}); run \`${loginCommand(server, principal)}\``,
  );
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
  readonly now?: () => number;
}

/**
 * The SDK's `OAuthClientProvider` over hintgate's sealed credential store: the SDK's `auth()`
 * does discovery (protected-resource metadata, then authorization-server metadata),
 * dynamic client registration, the authorization code flow with PKCE and refresh; this
 * class only keeps what it is given, for one server and principal. Every save writes the
 * sealed document to the store.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  #document: CredentialDocument = { version: 1 };
  #verifier: string | undefined;
  readonly #state = randomBytes(16).toString('base64url');
  #loaded = false;
  /** A login was stored when the document was read. */
  #hadLogin = false;

  constructor(private readonly options: StoredOAuthProviderOptions) {}

  /** Reads the stored document (again); call before handing the provider to the SDK. */
  async load(): Promise<CredentialDocument> {
    const { server, principal } = this.options;
    this.#document = (await this.options.vault.load(server, principal)) ?? { version: 1 };
    this.#loaded = true;
    this.#hadLogin = this.#document.tokens !== undefined;
    return this.#document;
  }

  /** The document as held now. */
  get document(): CredentialDocument {
    return this.#document;
  }

  /** Replaces the held document and stores it (a login starting over, a logout of tokens). */
  async replace(document: CredentialDocument, login = false): Promise<void> {
    this.#document = document;
    await this.#persist(login);
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
    await this.#persist(false);
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
    await this.#persist(false);
  }

  redirectToAuthorization(url: URL): void {
    const redirect = this.options.redirect;
    if (redirect === undefined) {
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
    // Discovery alone is worth no write while logging in: the tokens follow.
    if (this.options.redirect === undefined) await this.#persist(false);
  }

  async invalidateCredentials(
    scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery',
  ): Promise<void> {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return;
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
    await this.#persist(false);
  }

  async #persist(login: boolean): Promise<void> {
    if (!this.#loaded) return;
    const { server, principal, vault } = this.options;
    await vault.save(server, principal, this.#document, login);
  }
}
