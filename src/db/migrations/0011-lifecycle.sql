-- The invitation's own life: until when it may be started, whether it was withdrawn, and when its
-- expiry was announced. An attempt can end by a withdrawal too.

ALTER TABLE invitations
  ADD COLUMN expires_at   timestamptz,
  ADD COLUMN cancelled_at timestamptz,
  ADD COLUMN expired_at   timestamptz;
UPDATE invitations i SET expires_at = COALESCE(
  (SELECT max(l.expires_at) FROM invite_links l WHERE l.candidate_id = i.candidate_id AND i.assessment_id = ANY(l.assessment_ids)),
  i.created_at + interval '14 days');
ALTER TABLE invitations ALTER COLUMN expires_at SET NOT NULL;
-- The expiry job looks only at invitations not started, not withdrawn and not yet announced.
CREATE INDEX invitations_expiring ON invitations (expires_at) WHERE assessment_status = 'INVITED' AND cancelled_at IS NULL AND expired_at IS NULL;

ALTER TABLE attempts DROP CONSTRAINT attempts_end_reason_check;
ALTER TABLE attempts ADD CONSTRAINT attempts_end_reason_check CHECK (end_reason IN ('submitted', 'time-limit', 'cancelled'));
-- Rows made without it (bulk loads, older code) get the default lifetime.
ALTER TABLE invitations ALTER COLUMN expires_at SET DEFAULT now() + interval '14 days';
