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

-- Idempotency-Key rows no longer hold a usable secret: idempotency_key is the SHA-256 (hex) of
-- the client's key, and response is the answer sealed with AES-256-GCM under a key derived from
-- the client's API key and Idempotency-Key (see src/modules/invitations/idempotency.ts), as
-- {"v":1,"alg":"A256GCM","iv","tag","data"}. Rows written before hold sign-in links in plain
-- text and cannot be sealed here (the keys are not stored): they are deleted. A retry of such a
-- request within its 24 hours runs again and returns a fresh link (the invitation is kept).
DELETE FROM idempotency_keys;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_idempotency_key_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_key_hash CHECK (idempotency_key ~ '^[0-9a-f]{64}$');
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_response_sealed
  CHECK (response IS NULL OR (jsonb_typeof(response) = 'object' AND response ? 'data' AND response ? 'iv' AND response ? 'tag'));
