/**
 * The SQL migrations, embedded so that they ship in `dist/` (the build copies only .ts files).
 * Generated: the `NNN-name.sql` files beside this one are the source of truth, and
 * test/store/migration-files.test.ts fails when this file differs from them. To regenerate it:
 * `HINTGATE_UPDATE_MIGRATIONS=1 npx vitest run test/store/migration-files.test.ts`.
 */

/** One migration: its version (the file's number), its name and its SQL. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Every migration, in version order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'toolsets',
    sql: `-- Toolsets: named selections of tools, with per-tool notes and annotation overrides.
-- A tool is referred to by its namespaced name, its refId, or both; '' stands for "not
-- given" so that unique indexes treat a missing part as a value.

CREATE TABLE toolsets (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  revision integer NOT NULL DEFAULT 1
);

CREATE TABLE toolset_members (
  toolset_id integer NOT NULL REFERENCES toolsets (id) ON DELETE CASCADE,
  position integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('tool', 'ref', 'server')),
  value text NOT NULL,
  PRIMARY KEY (toolset_id, kind, value)
);

CREATE INDEX toolset_members_in_order ON toolset_members (toolset_id, position);

CREATE TABLE tool_notes (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  toolset_id integer NOT NULL REFERENCES toolsets (id) ON DELETE CASCADE,
  namespaced_name text NOT NULL DEFAULT '',
  ref_id text NOT NULL DEFAULT '',
  name text NOT NULL,
  note text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (namespaced_name <> '' OR ref_id <> '')
);

-- A note applies to a tool matching either reference, so a name is unique per reference.
CREATE UNIQUE INDEX tool_notes_name_by_tool ON tool_notes (toolset_id, namespaced_name, name)
  WHERE namespaced_name <> '';
CREATE UNIQUE INDEX tool_notes_name_by_ref ON tool_notes (toolset_id, ref_id, name)
  WHERE ref_id <> '';
CREATE INDEX tool_notes_in_order ON tool_notes (toolset_id, id);

CREATE TABLE annotation_overrides (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- NULL: a global override.
  toolset_id integer REFERENCES toolsets (id) ON DELETE CASCADE,
  namespaced_name text NOT NULL DEFAULT '',
  ref_id text NOT NULL DEFAULT '',
  annotations jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (namespaced_name <> '' OR ref_id <> ''),
  CHECK (jsonb_typeof(annotations) = 'object')
);

CREATE UNIQUE INDEX annotation_overrides_in_toolset
  ON annotation_overrides (toolset_id, namespaced_name, ref_id) WHERE toolset_id IS NOT NULL;
CREATE UNIQUE INDEX annotation_overrides_global
  ON annotation_overrides (namespaced_name, ref_id) WHERE toolset_id IS NULL;
`,
  },
  {
    version: 2,
    name: 'approvals',
    sql: `-- The approval queue: calls waiting for a person, decided once, or expired.

CREATE TABLE approvals (
  id text PRIMARY KEY,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  session_id text,
  client text,
  server text NOT NULL,
  tool text NOT NULL,
  arguments jsonb,
  annotations jsonb NOT NULL DEFAULT '{}',
  reason text NOT NULL DEFAULT '',
  decided_by text,
  decided_at timestamptz,
  note text,
  CHECK ((status = 'pending') = (decided_at IS NULL))
);

CREATE INDEX approvals_pending_by_expiry ON approvals (expires_at) WHERE status = 'pending';
CREATE INDEX approvals_by_status ON approvals (status, created_at DESC);
CREATE INDEX approvals_by_time ON approvals (created_at DESC);
`,
  },
  {
    version: 3,
    name: 'audit',
    sql: `-- The audit log: one row per tools/call, appended in batches, read newest first.

CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  session_id text,
  client text,
  tool text NOT NULL,
  namespaced_name text,
  server text,
  replica text,
  annotations jsonb,
  sources jsonb,
  dynamic boolean NOT NULL DEFAULT false,
  decision text NOT NULL,
  approver text,
  duration_ms integer,
  outcome text NOT NULL,
  error text,
  retries integer NOT NULL DEFAULT 0,
  cache_hit boolean NOT NULL DEFAULT false,
  arguments jsonb
);

CREATE INDEX audit_log_by_time ON audit_log (occurred_at DESC, id DESC);
CREATE INDEX audit_log_by_tool ON audit_log (tool, occurred_at DESC);
CREATE INDEX audit_log_by_namespaced_name ON audit_log (namespaced_name, occurred_at DESC);
CREATE INDEX audit_log_by_server ON audit_log (server, occurred_at DESC);
CREATE INDEX audit_log_by_session ON audit_log (session_id, occurred_at DESC);
CREATE INDEX audit_log_by_decision ON audit_log (decision, occurred_at DESC);
CREATE INDEX audit_log_by_outcome ON audit_log (outcome, occurred_at DESC);
`,
  },
  {
    version: 4,
    name: 'toolset-rules',
    sql: `-- Dynamic-annotation rules of a toolset: a JSON array of rules as written
-- ({ name?, tool?, match: [{ pointer, equals?, oneOf?, regex?, flags? }], set: { ... } }),
-- checked by hintgate before it is stored, applied in order to the toolset's tools.

ALTER TABLE toolsets
  ADD COLUMN rules jsonb NOT NULL DEFAULT '[]'::jsonb
  CHECK (jsonb_typeof(rules) = 'array');
`,
  },
  {
    version: 5,
    name: 'used-nonces',
    sql: `-- One-time values already used: the nonces of the signed \`requestState\` of confirmation
-- rounds, kept until the state carrying each would expire, so that a state is accepted once
-- by every gateway sharing the store (a replay to another gateway is refused too).

CREATE TABLE used_nonces (
  nonce text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);

CREATE INDEX used_nonces_by_expiry ON used_nonces (expires_at);
`,
  },
  {
    version: 6,
    name: 'tool-pins',
    sql: `-- Tool pins: each server's tools as hintgate last accepted them (the definition a person, or
-- trust on first use, approved) with its canonical hash, and the drifted definition waiting
-- for a person (pending or rejected) with its graded drift.

CREATE TABLE tool_pins (
  server text NOT NULL,
  tool text NOT NULL,
  status text NOT NULL CHECK (status IN ('pinned', 'pending', 'rejected', 'removed')),
  hash text,
  definition jsonb,
  pending_hash text,
  pending jsonb,
  drift jsonb,
  first_seen timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  decided_by text,
  decided_at timestamptz,
  note text,
  PRIMARY KEY (server, tool),
  CHECK ((hash IS NULL) = (definition IS NULL)),
  CHECK ((pending_hash IS NULL) = (pending IS NULL))
);

CREATE INDEX tool_pins_waiting ON tool_pins (server) WHERE status IN ('pending', 'rejected');
`,
  },
  {
    version: 7,
    name: 'identity',
    sql: `-- Who made each call: the principal (a named bearer token, an OAuth subject) recorded in the
-- audit log and on each approval ("asked by"), so that an approval is never decided by the
-- principal that asked for it.

ALTER TABLE audit_log ADD COLUMN principal text;
CREATE INDEX audit_log_by_principal ON audit_log (principal, occurred_at DESC);

ALTER TABLE approvals ADD COLUMN requested_by text;
`,
  },
  {
    version: 8,
    name: 'approvals-withdrawn',
    sql: `-- An approval whose call the client gave up on (it cancelled the call, timed out or went
-- away) is withdrawn: nobody denied it, and nobody can approve a call that is gone.

ALTER TABLE approvals DROP CONSTRAINT approvals_status_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_status_check
  CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'withdrawn'));
`,
  },
  {
    version: 9,
    name: 'settings',
    sql: `-- Gateway settings changed at run time (the CLI, the dashboard) and kept across restarts,
-- one row per key with its value as JSON. \`default-toolset\`: the toolset sessions without a
-- choice of their own see, {"name": "..."} or {"none": true}; without a row the config's
-- \`toolsets.default\` holds.

CREATE TABLE gateway_settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by text
);
`,
  },
  {
    version: 10,
    name: 'oauth-credentials',
    sql: `-- OAuth credentials hintgate holds as the client of downstream servers: per server, and per
-- principal for a server configured \`auth: per-user\` ('' is the server's shared login).
-- \`sealed\` is the credential document (tokens, refresh token, client registration, discovery)
-- encrypted by hintgate with AES-256-GCM before it reaches the store; the other columns say
-- what \`hintgate auth status\` shows and hold no secret.

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
`,
  },
  {
    version: 11,
    name: 'audit-indexes',
    sql: `-- Fewer indexes on the audit log: each one costs every appended record a tenth or so of its
-- insert. Kept: newest first (every query, and since/until), by tool under either name and
-- by session (values with many distinct ones, a few records each). Filters on the server,
-- principal, decision and outcome (a handful of values, many records each) walk the log
-- newest first until the page is full.

DROP INDEX IF EXISTS audit_log_by_server;
DROP INDEX IF EXISTS audit_log_by_principal;
DROP INDEX IF EXISTS audit_log_by_decision;
DROP INDEX IF EXISTS audit_log_by_outcome;
`,
  },
  {
    version: 12,
    name: 'audit-journal',
    sql: `-- How far each segment of the embedded store's audit journal has been copied into the audit
-- log, in bytes. Updated in the transaction that copies its records, so a segment that was
-- copied in part (the process ended, the copy failed) goes on where it stopped instead of
-- copying records twice. A row is removed once its segment file is.

CREATE TABLE audit_journal (
  segment text PRIMARY KEY,
  ingested_bytes bigint NOT NULL
);
`,
  },
];
