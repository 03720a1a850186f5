import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/client';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { HintgateError, errorMessage } from '../../core/errors.js';
import type { ServerOAuthSettings } from './provider.js';
import { StoredOAuthProvider } from './provider.js';
import type { CredentialVault } from './vault.js';
import { expiresAt } from './vault.js';

/** What {@link loginToServer} needs. */
export interface LoginOptions {
  readonly server: string;
  readonly url: string;
  /** '' for the server's shared login. */
  readonly principal: string;
  readonly vault: CredentialVault;
  readonly settings: ServerOAuthSettings | undefined;
  /** Headers the server is configured with (sent with the first, unauthorized request). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Shows the person the authorization URL (prints it, opens a browser). */
  readonly showUrl: (url: string) => void;
  /** How long to wait for the browser to come back (default 5 minutes). */
  readonly timeoutMs?: number;
  readonly fetchFn?: FetchLike;
}

/** What a completed login obtained: never the token itself. */
export interface LoginResult {
  readonly scope?: string;
  readonly expiresAt?: string;
  readonly refreshable: boolean;
}

interface Callback {
  readonly code: string;
  readonly iss?: string;
  /** Answers the browser, once the code was exchanged (or the exchange failed). */
  readonly answer: (ok: boolean, text: string) => Promise<void>;
}

/**
 * Logs in to one OAuth-protected server, as its MCP client: asks the server once without a
 * token and reads its 401 challenge (`WWW-Authenticate`: the protected-resource metadata URL
 * and scope); then the SDK's `auth()` discovers the authorization server, registers a
 * client dynamically (unless one is configured) and builds the authorization URL with PKCE;
 * the person opens it, and the redirect comes back to a listener on 127.0.0.1; the code is
 * exchanged for tokens, which are sealed into the store. Nothing is written before that: a
 * login that fails, is refused or times out leaves the stored login as it was.
 */
export async function loginToServer(options: LoginOptions): Promise<LoginResult> {
  const { server, principal } = options;
  const fetchFn = options.fetchFn ?? fetch;
  const challenge = await challengeOf(options, fetchFn);
  const listener = await listen(options.settings?.callbackPort ?? 0);
  try {
    const port = (listener.server.address() as AddressInfo).port;
    const redirectUrl = `http://127.0.0.1:${port}/callback`;
    let shown = false;
    const provider = new StoredOAuthProvider({
      server,
      principal,
      vault: options.vault,
      settings: options.settings,
      redirectUrl,
      // The stored login stays as it is (and in use) until this one has its tokens.
      deferSaves: true,
      redirect: (url) => {
        shown = true;
        options.showUrl(url.href);
      },
    });
    const held = await provider.load();
    // A login starts over: new tokens, fresh discovery; a dynamic registration is kept only
    // when it was made for this redirect URL.
    const keepClient =
      options.settings?.clientId === undefined &&
      held.client !== undefined &&
      'redirect_uris' in held.client &&
      held.client.redirect_uris.includes(redirectUrl);
    provider.reset({ version: 1, ...(keepClient ? { client: held.client } : {}) });
    const scope = options.settings?.scope ?? challenge.scope;
    const base = {
      serverUrl: options.url,
      fetchFn,
      ...(challenge.resourceMetadataUrl === undefined
        ? {}
        : { resourceMetadataUrl: challenge.resourceMetadataUrl }),
      ...(scope === undefined ? {} : { scope }),
    };
    const started = await auth(provider, base).catch((error: unknown) => {
      throw new HintgateError(
        'DOWNSTREAM_PROTOCOL',
        `OAuth login to "${server}" failed: ${errorMessage(error)}`,
        { server },
        { cause: error },
      );
    });
    if (started !== 'REDIRECT' || !shown) {
      throw new HintgateError(
        'DOWNSTREAM_PROTOCOL',
        `OAuth login to "${server}" did not reach an authorization step`,
        { server },
      );
    }
    const callback = await listener.next(provider.expectedState, options.timeoutMs ?? 300_000);
    // The browser hears "logged in" only once the tokens are stored.
    try {
      await auth(provider, {
        ...base,
        authorizationCode: callback.code,
        ...(callback.iss === undefined ? {} : { iss: callback.iss }),
      }).catch((error: unknown) => {
        throw new HintgateError(
          'DOWNSTREAM_PROTOCOL',
          `OAuth login to "${server}" failed exchanging the code: ${errorMessage(error)}`,
          { server },
          { cause: error },
        );
      });
      // Stored once, now that it is complete, marked as a login.
      await provider.commit();
    } catch (error) {
      await callback.answer(false, `The login failed: ${errorMessage(error)}`);
      throw error;
    }
    await callback.answer(true, 'Logged in. You can close this tab and return to the terminal.');
    const tokens = provider.document.tokens;
    const expiry = expiresAt(provider.document);
    return {
      refreshable: tokens?.refresh_token !== undefined,
      ...(tokens?.scope === undefined ? {} : { scope: tokens.scope }),
      ...(expiry === undefined ? {} : { expiresAt: new Date(expiry).toISOString() }),
    };
  } finally {
    await listener.close();
  }
}

/** The server's challenge to a request without a token (none when it let the request through). */
async function challengeOf(
  options: LoginOptions,
  fetchFn: FetchLike,
): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  let response: Response;
  try {
    response = await fetchFn(options.url, {
      method: 'POST',
      headers: {
        ...options.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'hintgate', version: 'login' },
        },
      }),
    });
  } catch (error) {
    throw new HintgateError(
      'DOWNSTREAM_UNAVAILABLE',
      `server "${options.server}" (${options.url}) cannot be reached: ${errorMessage(error)}`,
      { server: options.server },
    );
  }
  await response.body?.cancel().catch(() => undefined);
  // Some servers let `initialize` through and ask for a token only later: discovery then
  // goes by the well-known metadata URLs, and fails clearly when there is none.
  if (response.status !== 401) return {};
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return {
    ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    ...(scope === undefined ? {} : { scope }),
  };
}

interface Listener {
  readonly server: Server;
  next(state: string, timeoutMs: number): Promise<Callback>;
  close(): Promise<void>;
}

const PAGE = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>hintgate</title><p>${escapeHtml(text)}</p>`;

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe inside an HTML element (an error may carry the authorization server's words). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** The loopback listener the authorization server redirects the browser to. */
async function listen(port: number): Promise<Listener> {
  let waiting:
    | { state: string; resolve: (value: Callback) => void; reject: (error: Error) => void }
    | undefined;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback' || waiting === undefined) {
      response.writeHead(404, { 'content-type': 'text/html' }).end(PAGE('Not found.'));
      return;
    }
    const params = url.searchParams;
    if (params.get('state') !== waiting.state) {
      response
        .writeHead(400, { 'content-type': 'text/html' })
        .end(PAGE('This login answer is not for the login in progress (state mismatch).'));
      return;
    }
    const current = waiting;
    waiting = undefined;
    const error = params.get('error');
    const code = params.get('code');
    if (error !== null || code === null) {
      const description = params.get('error_description');
      response
        .writeHead(400, { 'content-type': 'text/html' })
        .end(PAGE('The login was not completed; see the terminal.'));
      current.reject(
        new HintgateError(
          'FORBIDDEN',
          `the authorization server refused the login: ${error ?? 'no code'}${description === null ? '' : ` (${description})`}`,
        ),
      );
      return;
    }
    // Answered once the code is exchanged: the page says how the login ended.
    const iss = params.get('iss');
    current.resolve({
      code,
      ...(iss === null ? {} : { iss }),
      answer: (ok, text) =>
        new Promise<void>((resolve) => {
          // Sent whole before the listener closes (a browser gone: nothing to wait for).
          if (response.writableEnded || response.destroyed) return resolve();
          response.once('close', () => resolve());
          response
            .writeHead(ok ? 200 : 502, { 'content-type': 'text/html' })
            .end(PAGE(ok ? text : `${text} See the terminal.`), () => resolve());
        }),
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new HintgateError(
          'CONFIG_INVALID',
          `cannot listen for the login's redirect on 127.0.0.1:${port}: ${error.code ?? error.message}`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    server,
    next: (state, timeoutMs) =>
      new Promise<Callback>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting = undefined;
          reject(
            new HintgateError(
              'DOWNSTREAM_TIMEOUT',
              `no answer from the browser within ${Math.round(timeoutMs / 1000)} s; run the login again`,
            ),
          );
        }, timeoutMs);
        waiting = {
          state,
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
