-- Fixes of the portal's security findings (issue 14) that need the schema.
--
-- A review score is bound to the answer it scored: review_value_hash is the sha256 of the
-- answer's value (its jsonb text) when it was scored, and the score counts only while the
-- answer still has that value. Reviews given before this migration keep counting when the answer
-- did not change after them; those of an answer changed since no longer count: they are dropped,
-- and the record they scored waits for review again.
ALTER TABLE answers ADD COLUMN review_value_hash bytea CHECK (length(review_value_hash) = 32);
UPDATE answers SET review_value_hash = sha256(convert_to(value::text, 'UTF8'))
 WHERE review_score IS NOT NULL AND answered_at <= reviewed_at;
UPDATE invitations SET score_status = 'PENDING'
 WHERE id IN (SELECT t.invitation_id FROM answers a JOIN attempts t ON t.id = a.attempt_id
               WHERE a.review_score IS NOT NULL AND a.review_value_hash IS NULL);
UPDATE answers SET review_score = NULL, reviewed_at = NULL WHERE review_value_hash IS NULL;
ALTER TABLE answers ADD CONSTRAINT answers_review_bound CHECK ((review_score IS NULL) = (review_value_hash IS NULL));
