-- Voluntary self-identification (sex, race/ethnicity, age band, or an instance's own questions)
-- offered to candidates after they submit an assessment, for adverse-impact evidence (the
-- four-fifths rule). Kept apart from answers and scores: its own tables, keyed by the
-- invitation, read only by the adverse-impact report's counts (owners and managers), the
-- candidate's data export, and deleted by the candidate's erasure and the retention sweep.

-- Per instance: whether the form is offered, and its questions (null: the default set, the US
-- EEO categories, in every language of the portal). "Prefer not to say" is never stored here:
-- it is added to every question when shown.
CREATE TABLE self_id_settings (
  instance_id uuid PRIMARY KEY REFERENCES instances (id) ON DELETE CASCADE,
  enabled boolean NOT NULL,
  questions jsonb CHECK (questions IS NULL OR jsonb_typeof(questions) = 'array'),
  updated_at timestamptz NOT NULL,
  updated_by text NOT NULL
);

-- One per invitation (a candidate and an assessment): question id to option id, with
-- "prefer-not-to-say" for that choice; a question left out was not answered. A second
-- submission replaces the first.
CREATE TABLE self_identifications (
  invitation_id bigint PRIMARY KEY REFERENCES invitations (id) ON DELETE CASCADE,
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  answers jsonb NOT NULL CHECK (jsonb_typeof(answers) = 'object'),
  recorded_at timestamptz NOT NULL
);
CREATE INDEX self_identifications_instance ON self_identifications (instance_id);
