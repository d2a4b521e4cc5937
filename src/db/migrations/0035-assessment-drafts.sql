-- Drafts of assessment content written in the console's editor: the YAML text as last saved, by
-- whom and when. One draft per assessment, and one per console user and instance for an assessment
-- not yet published. A draft is never shown to candidates: publishing it makes a new version
-- (assessment_versions) through the same path as an import, and removes the draft.
CREATE TABLE assessment_drafts (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  instance_id   uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  -- The assessment the draft changes; NULL for a new assessment, then `new_for` is its author.
  assessment_id uuid REFERENCES assessments (id) ON DELETE CASCADE,
  new_for       text,
  -- The version the draft started from (NULL for a new assessment).
  based_on      integer,
  source        text NOT NULL CHECK (octet_length(source) <= 524288),
  saved_by      text NOT NULL,
  saved_at      timestamptz NOT NULL,
  CHECK ((assessment_id IS NULL) <> (new_for IS NULL))
);
CREATE UNIQUE INDEX assessment_drafts_assessment ON assessment_drafts (assessment_id) WHERE assessment_id IS NOT NULL;
CREATE UNIQUE INDEX assessment_drafts_new ON assessment_drafts (instance_id, new_for) WHERE assessment_id IS NULL;
