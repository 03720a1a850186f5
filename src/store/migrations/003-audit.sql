-- The audit log: one row per tools/call, appended in batches, read newest first.

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
