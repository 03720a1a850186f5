-- One-time values already used: the nonces of the signed `requestState` of confirmation
-- rounds, kept until the state carrying each would expire, so that a state is accepted once
-- by every gateway sharing the store (a replay to another gateway is refused too).

CREATE TABLE used_nonces (
  nonce text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);

CREATE INDEX used_nonces_by_expiry ON used_nonces (expires_at);
