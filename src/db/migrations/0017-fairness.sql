-- Fair to every candidate, hard to copy: each attempt's layout (the questions drawn from the
-- pools, their order, the order of each choice question's options) is made at start from a random
-- seed and kept with it, so that a reload shows the same page; a retake is a new attempt with a
-- seed of its own. Attempts made before this have neither: they show the authored order.
ALTER TABLE attempts ADD COLUMN seed integer, ADD COLUMN layout jsonb;

-- The candidate's feedback after submitting: one per attempt, a rating of 1 to 5 and an optional
-- comment. Erased with the candidate (src/modules/privacy), exported with their data.
CREATE TABLE attempt_feedback (
  attempt_id uuid PRIMARY KEY REFERENCES attempts (id) ON DELETE CASCADE,
  rating     smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
  comment    text CHECK (comment IS NULL OR length(comment) BETWEEN 1 AND 1000),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attempt_feedback_created ON attempt_feedback (created_at);
