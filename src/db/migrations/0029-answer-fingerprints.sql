-- Winnowed fingerprints of the coding and free-text answers of completed attempts (the integrity
-- module, docs/integrity.md): one row per fingerprint, with where its k-gram stands in the answer,
-- so that a reviewer sees the parts two answers share. Looking an answer's fingerprints up among
-- the other answers of the same question of the same instance is an index search, not a scan.
CREATE TABLE answer_fingerprints (
  instance_id   uuid NOT NULL,
  assessment_id uuid NOT NULL,
  question_id   text NOT NULL,
  hash          integer NOT NULL,
  attempt_id    uuid NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
  start_at      integer NOT NULL,
  end_at        integer NOT NULL
);
CREATE INDEX answer_fingerprints_lookup ON answer_fingerprints (instance_id, assessment_id, question_id, hash);
CREATE INDEX answer_fingerprints_attempt ON answer_fingerprints (attempt_id, question_id);
-- Each fingerprinted answer and how many distinct fingerprints it has (the denominator of the score).
CREATE TABLE fingerprinted_answers (
  attempt_id    uuid NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
  question_id   text NOT NULL,
  language      text NOT NULL,
  distinct_hashes integer NOT NULL,
  PRIMARY KEY (attempt_id, question_id)
);
