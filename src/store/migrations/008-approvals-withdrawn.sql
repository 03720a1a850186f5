-- An approval whose call the client gave up on (it cancelled the call, timed out or went
-- away) is withdrawn: nobody denied it, and nobody can approve a call that is gone.

ALTER TABLE approvals DROP CONSTRAINT approvals_status_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_status_check
  CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'withdrawn'));
