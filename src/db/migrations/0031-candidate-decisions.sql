-- A hiring decision per candidate (advance, hold, reject) with a note, and tags: the recruiter's
-- own marks, never shown to the candidate. One decision per candidate (the latest stands; the
-- audit log keeps each change); tags are short words of the instance's own choosing. Both go
-- with the candidate's erasure (the note and the tags may say things about the person).
CREATE TABLE candidate_decisions (
  candidate_id uuid PRIMARY KEY REFERENCES candidates (id) ON DELETE CASCADE,
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  decision text NOT NULL CHECK (decision IN ('advance', 'hold', 'reject')),
  note text CHECK (note IS NULL OR length(note) <= 2000),
  decided_by text NOT NULL,
  decided_at timestamptz NOT NULL
);
-- The console's filter by decision, in candidate order (its keyset).
CREATE INDEX candidate_decisions_instance ON candidate_decisions (instance_id, decision, candidate_id);

CREATE TABLE candidate_tags (
  candidate_id uuid NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  tag text NOT NULL CHECK (tag ~ '^[a-z0-9][a-z0-9_-]{0,31}$'),
  PRIMARY KEY (candidate_id, tag)
);
CREATE INDEX candidate_tags_instance ON candidate_tags (instance_id, tag, candidate_id);
