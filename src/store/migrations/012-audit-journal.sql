-- How far each segment of the embedded store's audit journal has been copied into the audit
-- log, in bytes. Updated in the transaction that copies its records, so a segment that was
-- copied in part (the process ended, the copy failed) goes on where it stopped instead of
-- copying records twice. A row is removed once its segment file is.

CREATE TABLE audit_journal (
  segment text PRIMARY KEY,
  ingested_bytes bigint NOT NULL
);
