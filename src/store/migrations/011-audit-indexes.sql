-- Fewer indexes on the audit log: each one costs every appended record a tenth or so of its
-- insert. Kept: newest first (every query, and since/until), by tool under either name and
-- by session (values with many distinct ones, a few records each). Filters on the server,
-- principal, decision and outcome (a handful of values, many records each) walk the log
-- newest first until the page is full.

DROP INDEX IF EXISTS audit_log_by_server;
DROP INDEX IF EXISTS audit_log_by_principal;
DROP INDEX IF EXISTS audit_log_by_decision;
DROP INDEX IF EXISTS audit_log_by_outcome;
