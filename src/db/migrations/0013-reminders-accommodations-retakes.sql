-- Automatic reminders: per instance, this many days before an invitation expires (null: off),
-- at most once per invitation.
ALTER TABLE instances ADD COLUMN reminder_days integer DEFAULT 2 CHECK (reminder_days BETWEEN 1 AND 60);
ALTER TABLE invitations ADD COLUMN reminded_at timestamptz;
-- The reminder job looks only at invitations not started, not withdrawn, not expired, not reminded.
CREATE INDEX invitations_reminder_due ON invitations (expires_at)
  WHERE assessment_status = 'INVITED' AND cancelled_at IS NULL AND expired_at IS NULL AND reminded_at IS NULL;

-- Accommodations and language, as the invite gave them: extra time (percent of the time limit)
-- and the candidate's language (a BCP 47 tag).
ALTER TABLE invitations
  ADD COLUMN extra_time_percent integer NOT NULL DEFAULT 0 CHECK (extra_time_percent BETWEEN 0 AND 200),
  ADD COLUMN language text CHECK (language IS NULL OR length(language) BETWEEN 2 AND 35);

-- Retakes: an invitation may have had earlier attempts, kept as history; one is current.
ALTER TABLE attempts ADD COLUMN superseded_at timestamptz;
ALTER TABLE attempts DROP CONSTRAINT attempts_invitation_id_key;
CREATE UNIQUE INDEX attempts_current ON attempts (invitation_id) WHERE superseded_at IS NULL;
CREATE INDEX attempts_invitation ON attempts (invitation_id);
-- The score record as it stood when the retake replaced the attempt.
ALTER TABLE attempts ADD COLUMN result jsonb;
