import type { FC } from 'hono/jsx';
import { assetUrl } from '../assets.js';
import { Notice, UI } from '../layout.js';

/**
 * The login page: a token of the gateway (a bearer token of `/mcp`, a named token, or the
 * dashboard's own `http.uiToken`), exchanged for a session cookie. `optional`: auth is off,
 * and signing in only makes the browser act as the token's principal (an approver).
 */
export const LoginPageView: FC<{
  error?: string | undefined;
  next: string;
  optional?: boolean;
}> = ({ error, next, optional = false }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>Sign in · hintgate</title>
      <link rel="stylesheet" href={assetUrl('dashboard.css')} />
      <link rel="icon" href={assetUrl('favicon.svg')} type="image/svg+xml" />
    </head>
    <body class="login">
      <main id="main">
        <form method="post" action={`${UI}/login`} class="card login-card">
          <p class="brand">
            hint<b>gate</b>
          </p>
          <h1>Sign in</h1>
          {error === undefined ? null : <Notice kind="error">{error}</Notice>}
          <input type="hidden" name="next" value={next} />
          {optional ? (
            <p class="muted small">
              Auth is off on this loopback gateway: you can look without signing in. Sign in to act
              as a token's principal, to approve for instance.{' '}
              <a href={next}>Go on without signing in</a>
            </p>
          ) : null}
          <label>
            Token
            <input
              type="password"
              name="token"
              autocomplete="current-password"
              required
              autofocus
            />
          </label>
          <p class="muted small">
            The dashboard's token (<code>http.uiToken</code>), your named token (
            <code>http.tokens</code>) or the gateway's bearer token (<code>--token</code>,{' '}
            <code>HINTGATE_TOKEN</code>).
          </p>
          <button type="submit">Sign in</button>
        </form>
      </main>
    </body>
  </html>
);
