-- OAuth credentials hintgate holds as the client of downstream servers: per server, and per
-- principal for a server configured `auth: per-user` ('' is the server's shared login).
-- `sealed` is the credential document (tokens, refresh token, client registration, discovery)
-- encrypted by hintgate with AES-256-GCM before it reaches the store; the other columns say
-- what `hintgate auth status` shows and hold no secret.

CREATE TABLE oauth_credentials (
  server text NOT NULL,
  principal text NOT NULL DEFAULT '',
  sealed text NOT NULL,
  expires_at timestamptz,
  scope text,
  refreshable boolean NOT NULL DEFAULT false,
  logged_in_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (server, principal)
);
