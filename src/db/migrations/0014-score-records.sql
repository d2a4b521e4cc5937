-- The read model of GET /v1/score: each invitation's score record kept ready as the JSON text the
-- API answers with, so that a read is one indexed lookup and a concatenation. The text is made by
-- the service's own formatter (a background job fills records that are missing); here the
-- database guarantees that it never disagrees with the row: any change to what the record is made
-- of clears it in the same statement, and a read finds a cleared record and formats it afresh.
ALTER TABLE invitations ADD COLUMN record text;
CREATE INDEX invitations_record_missing ON invitations (id) WHERE record IS NULL;

CREATE FUNCTION invitations_record_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.assessment_status IS DISTINCT FROM OLD.assessment_status OR NEW.score_status IS DISTINCT FROM OLD.score_status
     OR NEW.completion IS DISTINCT FROM OLD.completion OR NEW.total_score IS DISTINCT FROM OLD.total_score
     OR NEW.typing_wpm IS DISTINCT FROM OLD.typing_wpm OR NEW.category_scores IS DISTINCT FROM OLD.category_scores
     OR NEW.red_flag IS DISTINCT FROM OLD.red_flag OR NEW.started_at IS DISTINCT FROM OLD.started_at
     OR NEW.finished_at IS DISTINCT FROM OLD.finished_at OR NEW.candidate_id IS DISTINCT FROM OLD.candidate_id
     OR NEW.assessment_id IS DISTINCT FROM OLD.assessment_id THEN
    NEW.record := NULL;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER invitations_record_stale BEFORE UPDATE ON invitations FOR EACH ROW EXECUTE FUNCTION invitations_record_stale();

-- The record names its assessment: renaming one clears the records of its invitations.
CREATE FUNCTION assessments_record_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.name IS DISTINCT FROM OLD.name OR NEW.slug IS DISTINCT FROM OLD.slug THEN
    UPDATE invitations SET record = NULL WHERE assessment_id = NEW.id AND record IS NOT NULL;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER assessments_record_stale AFTER UPDATE ON assessments FOR EACH ROW EXECUTE FUNCTION assessments_record_stale();
