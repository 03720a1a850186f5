-- The approval queue: calls waiting for a person, decided once, or expired.

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
