import type { AuthProvider, FetchLike } from '@modelcontextprotocol/client';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { errorMessage } from '../../core/errors.js';
import { loginRequired, needsLogin, StoredOAuthProvider } from './provider.js';
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

/** A connection's `AuthProvider`, and what tells it the stored login changed. */
export interface ConnectionAuth extends AuthProvider {
  /**
   * Reads the stored login again (the store reported a change: a login, a logout, another
   * process's refresh); a login that is gone is reported through `onLoginRequired` at once,
   * so the connection stops using the token it held.
   */
  revalidate(): Promise<void>;
}

/** Where the authorization code would come back: unused by the gateway, which never starts one. */
const NO_REDIRECT = 'http://127.0.0.1/hintgate-gateway-never-redirects';

/** The login of one server and principal, shared by every connection of this process. */
interface SharedLogin {
  readonly provider: StoredOAuthProvider;
  refreshing: Promise<void> | undefined;
}

/**
 * One provider, and one refresh at a time, per (vault, server, principal): reconnections
 * and replicas refreshing the same login at once would each spend the refresh token, and
 * with rotation the second would be refused (and, at some authorization servers, revoke the
 * whole grant).
 */
const shared = new WeakMap<CredentialVault, Map<string, SharedLogin>>();

function sharedLogin(options: ConnectionAuthOptions, now: () => number): SharedLogin {
  let logins = shared.get(options.vault);
  if (logins === undefined) {
    logins = new Map();
    shared.set(options.vault, logins);
  }
  // The settings belong to the key: a reloaded config with another client gets a new provider.
  const key = JSON.stringify([options.server, options.principal, options.settings ?? null]);
  let login = logins.get(key);
  if (login === undefined) {
    login = {
      provider: new StoredOAuthProvider({
        server: options.server,
        principal: options.principal,
        vault: options.vault,
        settings: options.settings,
        redirectUrl: NO_REDIRECT,
        now,
      }),
      refreshing: undefined,
    };
    logins.set(key, login);
  }
  return login;
}

/**
 * The fetch of a refresh, noting on the provider when the authorization server cannot be
 * reached or fails (5xx): the SDK then goes on to an authorization, which is then reported
 * as that failure rather than as a refused login.
 */
function watchedFetch(provider: StoredOAuthProvider, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const where = new URL(String(url));
    const place = `${where.origin}${where.pathname}`;
    let response: Response;
    try {
      response = await base(url, init);
    } catch (error) {
      provider.noteUnreachable(`${place} cannot be reached: ${errorMessage(error)}`);
      throw error;
    }
    if (response.status >= 500)
      provider.noteUnreachable(`${place} answered HTTP ${response.status}`);
    return response;
  };
}

/**
 * The bearer token of one connection to an OAuth-protected server, as the SDK transport's
 * `AuthProvider`: the stored access token, refreshed (through the SDK's `auth()`) shortly
 * before it expires and again when the server answers 401. The gateway never starts an
 * authorization itself: without a usable login the connection fails with "run `hintgate
 * auth login <server>`", and `onLoginRequired` is told so the server is marked down.
 */
export function connectionAuth(options: ConnectionAuthOptions): ConnectionAuth {
  const now = options.now ?? Date.now;
  const ahead = options.refreshAheadMs ?? 60_000;
  const login = sharedLogin(options, now);
  const provider = login.provider;
  const fetchFn = watchedFetch(provider, options.fetchFn);
  let loaded: Promise<unknown> | undefined;

  // Only a login that is gone (or no longer opens) takes the server down; a store or token
  // endpoint that failed fails the request, and the connection stays.
  const required = (error: unknown): never => {
    if (error instanceof Error && needsLogin(error)) options.onLoginRequired?.(error);
    throw error;
  };

  /**
   * One refresh at a time in this process, and under the login's lock against every other
   * process sharing the store; the document is read again inside the lock, and a refresh
   * another process made meanwhile is taken instead of refreshing again (with rotating
   * refresh tokens, the second would spend a spent one and lose the login).
   */
  const refresh = (resourceMetadataUrl: URL | undefined, held: string | undefined) => {
    login.refreshing ??= (async () => {
      try {
        await options.vault.locked(options.server, options.principal, async () => {
          const fresh = await provider.load();
          if (fresh.tokens !== undefined && fresh.tokens.access_token !== held && !expiring(fresh))
            return;
          if (fresh.tokens === undefined)
            throw loginRequired(options.server, options.principal, 'no login is stored');
          await auth(provider, {
            serverUrl: options.url,
            ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
            fetchFn,
          });
        });
      } finally {
        login.refreshing = undefined;
      }
    })();
    return login.refreshing;
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
      // Judged against the login stored now, not the one this connection loaded: a newer
      // login or another process's refresh is used as it is, a removed one needs a login.
      const sent = provider.tokens()?.access_token;
      await login.refreshing?.catch(() => undefined);
      const stored = await provider.load().catch((error: unknown) => required(error));
      loaded = Promise.resolve(stored);
      const held = stored.tokens;
      if (held === undefined) {
        required(loginRequired(options.server, options.principal, 'no login is stored'));
      }
      if (held?.access_token !== sent && !expiring(stored)) return;
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
    async revalidate() {
      await login.refreshing?.catch(() => undefined);
      let document: typeof provider.document;
      try {
        document = await provider.load();
      } catch {
        // A store that cannot be read now says nothing about the login: the next request tells.
        return;
      }
      loaded = Promise.resolve(document);
      if (document.tokens === undefined) {
        options.onLoginRequired?.(
          loginRequired(
            options.server,
            options.principal,
            'the stored login was removed (hintgate auth logout)',
          ),
        );
      }
    },
  };
}
