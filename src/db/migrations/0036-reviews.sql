-- Reviewing together: several reviewers score a free-text answer (criterion by criterion when the
-- question has a rubric), the final score is their mean or, when they disagree beyond the
-- instance's distance, a lead's; owners and managers assign answers to reviewers, who are
-- reminded once when a review is overdue. The final score stays in answers (review_score), which
-- the attempt's scoring reads as before.

-- The instance's way of reviewing (the tenants module's settings).
ALTER TABLE instances
  ADD COLUMN reviewers_per_answer integer NOT NULL DEFAULT 1 CHECK (reviewers_per_answer BETWEEN 1 AND 5),
  ADD COLUMN blind_review boolean NOT NULL DEFAULT false,
  ADD COLUMN review_agreement text NOT NULL DEFAULT 'mean' CHECK (review_agreement IN ('mean', 'agree-within')),
  ADD COLUMN review_agreement_points integer NOT NULL DEFAULT 20 CHECK (review_agreement_points BETWEEN 0 AND 100),
  ADD COLUMN review_due_hours integer CHECK (review_due_hours BETWEEN 1 AND 720),
  ADD COLUMN review_unassigned boolean NOT NULL DEFAULT true;

-- One reviewer's review of one answer: the score (0-100), the level chosen per rubric criterion
-- ({"criterion id": "level label"}), a comment. One per reviewer and answer (a new one replaces it).
CREATE TABLE answer_reviews (
  id          bigserial PRIMARY KEY,
  attempt_id  uuid NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
  question_id text NOT NULL,
  reviewer    text NOT NULL CHECK (length(reviewer) BETWEEN 1 AND 300),
  score       numeric(5, 2) NOT NULL CHECK (score BETWEEN 0 AND 100),
  criteria    jsonb,
  comment     text CHECK (length(comment) <= 2000),
  reviewed_at timestamptz NOT NULL,
  UNIQUE (attempt_id, question_id, reviewer)
);

-- A lead's final score of an answer whose reviews disagreed.
CREATE TABLE review_settlements (
  attempt_id  uuid NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
  question_id text NOT NULL,
  score       numeric(5, 2) NOT NULL CHECK (score BETWEEN 0 AND 100),
  comment     text CHECK (length(comment) <= 2000),
  settled_by  text NOT NULL,
  settled_at  timestamptz NOT NULL,
  PRIMARY KEY (attempt_id, question_id)
);

-- Who is to review an answer; reminded_at: when the overdue reminder went (once).
CREATE TABLE review_assignments (
  attempt_id  uuid NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
  question_id text NOT NULL,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  assigned_by text NOT NULL,
  assigned_at timestamptz NOT NULL,
  reminded_at timestamptz,
  PRIMARY KEY (attempt_id, question_id, user_id)
);
CREATE INDEX review_assignments_user ON review_assignments (user_id);
CREATE INDEX review_assignments_unreminded ON review_assignments (assigned_at) WHERE reminded_at IS NULL;

-- Users an owner or manager marked lead of an instance: they settle disagreements (owners and
-- managers may anyway).
CREATE TABLE review_leads (
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  marked_by   text NOT NULL,
  marked_at   timestamptz NOT NULL,
  PRIMARY KEY (instance_id, user_id)
);
