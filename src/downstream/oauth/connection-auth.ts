import type { AuthProvider, FetchLike } from '@modelcontextprotocol/client';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { isHintgateError } from '../../core/errors.js';
import { loginRequired, StoredOAuthProvider } from './provider.js';
import type { ServerOAuthSettings } from './provider.js';
import type { CredentialVault } from './vault.js';
import { expiresAt } from './vault.js';

type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

/** What {@link connectionAuth} needs. */
export interface ConnectionAuthOptions {
  readonly server: string;
  readonly url: string;
  /** '' for the server's shared login. */
  readonly principal: string;
  readonly vault: CredentialVault;
  readonly settings: ServerOAuthSettings | undefined;
  /**
   * Refresh this long before the access token expires (default 60 s; at most a third of the
   * token's lifetime).
   */
  readonly refreshAheadMs?: number;
  /** Told when the server needs a new login (the stored token is refused or gone). */
  readonly onLoginRequired?: (error: Error) => void;
  readonly fetchFn?: FetchLike;
  readonly now?: () => number;
}

/** Where the authorization code would come back: unused by the gateway, which never starts one. */
const NO_REDIRECT = 'http://127.0.0.1/hintgate-gateway-never-redirects';

/**
 * The bearer token of one connection to an OAuth-protected server, as the SDK transport's
 * `AuthProvider`: the stored access token, refreshed (through the SDK's `auth()`) shortly
 * before it expires and again when the server answers 401. The gateway never starts an
 * authorization itself: without a usable login the connection fails with "run `hintgate
 * auth login <server>`", and `onLoginRequired` is told so the server is marked down.
 */
export function connectionAuth(options: ConnectionAuthOptions): AuthProvider {
  const now = options.now ?? Date.now;
  const ahead = options.refreshAheadMs ?? 60_000;
  const provider = new StoredOAuthProvider({
    server: options.server,
    principal: options.principal,
    vault: options.vault,
    settings: options.settings,
    redirectUrl: NO_REDIRECT,
    now,
  });
  let loaded: Promise<unknown> | undefined;
  let refreshing: Promise<void> | undefined;

  const required = (error: unknown): never => {
    if (error instanceof Error && isHintgateError(error)) options.onLoginRequired?.(error);
    throw error;
  };

  /** One refresh at a time; the document is read again first (another gateway may have refreshed). */
  const refresh = (resourceMetadataUrl: URL | undefined, held: string | undefined) => {
    refreshing ??= (async () => {
      try {
        const fresh = await provider.load();
        if (fresh.tokens !== undefined && fresh.tokens.access_token !== held && !expiring(fresh))
          return;
        if (fresh.tokens === undefined)
          throw loginRequired(options.server, options.principal, 'no login is stored');
        await auth(provider, {
          serverUrl: options.url,
          ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
          ...(options.fetchFn === undefined ? {} : { fetchFn: options.fetchFn }),
        });
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  };

  // Ahead by `refreshAheadMs`, or by a third of the token's life when that is shorter.
  const expiring = (document: typeof provider.document): boolean => {
    const expiry = expiresAt(document);
    const lifetime = (document.tokens?.expires_in ?? 0) * 1000;
    return expiry !== undefined && expiry - now() <= Math.min(ahead, lifetime / 3);
  };

  return {
    async token() {
      loaded ??= provider.load();
      try {
        await loaded;
      } catch {
        // No token rather than a failed request: a server that needs none still works while
        // the store cannot be read; one that needs it answers 401 and the error surfaces then.
        loaded = undefined;
        return undefined;
      }
      const document = provider.document;
      if (document.tokens === undefined) return undefined;
      if (expiring(document) && document.tokens.refresh_token !== undefined) {
        await refresh(undefined, document.tokens.access_token).catch(required);
      }
      return provider.tokens()?.access_token;
    },
    async onUnauthorized(context: UnauthorizedContext) {
      loaded ??= provider.load();
      await loaded.catch((error: unknown) => {
        loaded = undefined;
        required(error);
      });
      const held = provider.tokens();
      if (held === undefined) {
        required(loginRequired(options.server, options.principal, 'no login is stored'));
      }
      const { resourceMetadataUrl } = extractWWWAuthenticateParams(context.response);
      if (held?.refresh_token === undefined) {
        required(
          loginRequired(
            options.server,
            options.principal,
            'the server refused the stored token and no refresh token is held',
          ),
        );
      }
      await refresh(resourceMetadataUrl, held?.access_token).catch(required);
    },
  };
}
