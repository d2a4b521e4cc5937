-- Candidates' data rights. Erasure keeps the candidate's row with its id and nothing else about
-- the person (e-mail and names become NULL, erased_at says when), so that the score records an
-- ATS holds keep their anonymous id and numbers; everything else personal is deleted or cleared
-- by src/modules/privacy/. Retention: per instance, the days after which a candidate whose
-- invitations are all completed is erased by the periodic sweep; NULL is off.

ALTER TABLE instances
  ADD COLUMN retention_days integer CHECK (retention_days BETWEEN 1 AND 3650);

ALTER TABLE candidates
  ADD COLUMN erased_at timestamptz,
  ALTER COLUMN email DROP NOT NULL,
  ALTER COLUMN first_name DROP NOT NULL,
  ALTER COLUMN last_name DROP NOT NULL,
  ADD CONSTRAINT candidates_erased CHECK (
    CASE WHEN erased_at IS NULL THEN email IS NOT NULL AND first_name IS NOT NULL AND last_name IS NOT NULL
         ELSE email IS NULL AND first_name IS NULL AND last_name IS NULL END
  );

-- The retention sweep looks at candidates not yet erased, of instances that have a period.
CREATE INDEX candidates_not_erased ON candidates (instance_id) WHERE erased_at IS NULL;
CREATE INDEX invitations_candidate ON invitations (candidate_id);
