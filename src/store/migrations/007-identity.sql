-- Who made each call: the principal (a named bearer token, an OAuth subject) recorded in the
-- audit log and on each approval ("asked by"), so that an approval is never decided by the
-- principal that asked for it.

ALTER TABLE audit_log ADD COLUMN principal text;
CREATE INDEX audit_log_by_principal ON audit_log (principal, occurred_at DESC);

ALTER TABLE approvals ADD COLUMN requested_by text;
