-- When a media file was last given to the service (uploaded in the editor, or published with
-- content): a file no version uses and no draft names is deleted some days after this, not after
-- it was first stored, so that uploading a file again keeps it as long as uploading it first did.
ALTER TABLE assessment_media ADD COLUMN given_at timestamptz;
UPDATE assessment_media SET given_at = created_at;
ALTER TABLE assessment_media ALTER COLUMN given_at SET NOT NULL;
