-- Webcam snapshots (off by default; an assessment's content turns them on): the candidate's
-- choice before starting, recorded with the attempt, and the still images taken after they
-- agreed. Images are kept in the database with the attempt and the time they were taken, seen
-- only by the company's reviewers in the console, and deleted with the candidate's erasure or by
-- the instance's retention period. No face recognition: the service only stores and shows them.
CREATE TABLE webcam_consents (
  attempt_id uuid PRIMARY KEY REFERENCES attempts (id) ON DELETE CASCADE,
  choice text NOT NULL CHECK (choice IN ('agreed', 'declined')),
  -- The interval the candidate was told (seconds): the content's, fixed for the attempt.
  interval_seconds integer NOT NULL CHECK (interval_seconds BETWEEN 30 AND 600),
  chosen_at timestamptz NOT NULL,
  -- Where the choice came from (cleared by erasure, like the attempt's first address).
  client_address text,
  client_agent text,
  -- The page reported once that the camera was refused or missing (after agreeing).
  camera_unavailable_at timestamptz,
  camera_detail text CHECK (camera_detail IS NULL OR length(camera_detail) <= 200)
);

CREATE TABLE webcam_snapshots (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  attempt_id uuid NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
  taken_at timestamptz NOT NULL,
  -- A JPEG re-encoded by the service (metadata stripped, at most 640 × 480).
  image bytea NOT NULL CHECK (octet_length(image) <= 204800),
  width integer NOT NULL,
  height integer NOT NULL
);
CREATE INDEX webcam_snapshots_attempt ON webcam_snapshots (attempt_id, taken_at);
