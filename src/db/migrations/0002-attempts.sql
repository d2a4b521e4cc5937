-- Taking assessments: portal sessions opened from invite links, attempts pinned to the version
-- they started on, answers saved as they are given, and proctoring signals with their times.

CREATE TABLE portal_sessions (
  -- sha256 of the cookie value; the value itself is only in the candidate's browser.
  token_hash     bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  invite_link_id bigint NOT NULL REFERENCES invite_links (id) ON DELETE CASCADE,
  candidate_id   uuid NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
  csrf_token     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX portal_sessions_expiry ON portal_sessions (expires_at);

CREATE TABLE attempts (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  invitation_id   bigint NOT NULL UNIQUE REFERENCES invitations (id) ON DELETE CASCADE,
  assessment_id   uuid NOT NULL,
  version         integer NOT NULL,
  started_at      timestamptz NOT NULL DEFAULT now(),
  deadline_at     timestamptz NOT NULL,
  finished_at     timestamptz,
  end_reason      text CHECK (end_reason IN ('submitted', 'time-limit')),
  -- The question the candidate was last on (1-based; questions + 1 is the typing test).
  position        integer NOT NULL DEFAULT 1 CHECK (position >= 1),
  first_address   text,
  first_agent     text,
  typing_started_at timestamptz,
  typing_text     text,
  typing_ms       integer CHECK (typing_ms >= 0),
  typing_wpm      numeric(6, 2),
  typing_accuracy numeric(5, 2),
  FOREIGN KEY (assessment_id, version) REFERENCES assessment_versions (assessment_id, version),
  CHECK ((finished_at IS NULL) = (end_reason IS NULL))
);
-- The time-limit sweep looks only at open attempts, oldest deadline first.
CREATE INDEX attempts_open_deadline ON attempts (deadline_at) WHERE finished_at IS NULL;

CREATE TABLE answers (
  attempt_id   uuid NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
  question_id  text NOT NULL,
  value        jsonb NOT NULL,
  answered_at  timestamptz NOT NULL DEFAULT now(),
  -- Operator's score (percent) of a free-text answer.
  review_score numeric(5, 2) CHECK (review_score BETWEEN 0 AND 100),
  reviewed_at  timestamptz,
  PRIMARY KEY (attempt_id, question_id)
);

CREATE TABLE proctor_signals (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  attempt_id uuid NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
  at         timestamptz NOT NULL DEFAULT now(),
  kind       text NOT NULL,
  detail     text NOT NULL DEFAULT '',
  source     text NOT NULL CHECK (source IN ('browser', 'server'))
);
CREATE INDEX proctor_signals_attempt ON proctor_signals (attempt_id, id);
