-- Media files of assessment content (pictures, sound, video), named by the sha256 of their bytes:
-- a file is stored once however many versions use it, and never changed (a new file is a new
-- name), so that a published version shows the same media for as long as it exists.
-- assessment_version_media says which files each version uses, by the name its author gave.
CREATE TABLE assessment_media (
  sha256       text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content_type text NOT NULL,
  size         integer NOT NULL CHECK (size > 0 AND size <= 26214400),
  width        integer,
  height       integer,
  bytes        bytea NOT NULL,
  created_at   timestamptz NOT NULL
);

CREATE TABLE assessment_version_media (
  assessment_id uuid NOT NULL,
  version       integer NOT NULL,
  sha256        text NOT NULL REFERENCES assessment_media (sha256),
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  PRIMARY KEY (assessment_id, version, sha256),
  FOREIGN KEY (assessment_id, version) REFERENCES assessment_versions (assessment_id, version) ON DELETE CASCADE
);
