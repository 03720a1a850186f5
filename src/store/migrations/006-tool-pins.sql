-- Tool pins: each server's tools as hintgate last accepted them (the definition a person, or
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
