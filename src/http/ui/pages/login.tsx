import type { FC } from 'hono/jsx';
import { Notice, UI } from '../layout.js';

/** The login page: the gateway's bearer token, exchanged for a session cookie. */
export const LoginPageView: FC<{ error?: string | undefined; next: string }> = ({
  error,
  next,
}) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>Sign in · hintgate</title>
      <link rel="stylesheet" href={`${UI}/assets/dashboard.css`} />
      <link rel="icon" href={`${UI}/assets/favicon.svg`} type="image/svg+xml" />
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
          <label>
            Gateway token
            <input
              type="password"
              name="token"
              autocomplete="current-password"
              required
              autofocus
            />
          </label>
          <p class="muted small">
            The bearer token the gateway was started with (<code>--token</code> or{' '}
            <code>HINTGATE_TOKEN</code>).
          </p>
          <button type="submit">Sign in</button>
        </form>
      </main>
    </body>
  </html>
);
