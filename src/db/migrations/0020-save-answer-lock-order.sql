-- Saving an answer locks the attempt's invitation before the attempt. Every transaction that
-- changes an invitation and its attempt takes the two locks in that order (the invitation first),
-- so a save racing a cancel, a submission or a retake of the same invitation waits for it instead
-- of deadlocking with it. Otherwise as before: one round trip, false when the attempt is finished
-- or its time has run out (a cancel that won closes the attempt, so the save after it is refused).
--
-- Why this is SQL and not a command in TypeScript: the save is the portal's most frequent write,
-- and one call of a function is one round trip holding a pooled connection, where a transaction
-- of the same statements is six. It writes `answers` and `attempts` (the attempts module's) and the
-- invitation's `completion` (the invitations module's record); the attempts module is its only
-- caller (saveAnswer), and the architecture test lists it as the one function that writes another
-- module's table.
CREATE OR REPLACE FUNCTION save_answer(p_attempt uuid, p_position integer, p_question text, p_value jsonb, p_items integer, p_invitation bigint)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  done integer;
BEGIN
  PERFORM 1 FROM invitations WHERE id = p_invitation FOR UPDATE;
  UPDATE attempts SET position = p_position WHERE id = p_attempt AND invitation_id = p_invitation AND finished_at IS NULL AND deadline_at > now();
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF p_value IS NULL THEN
    DELETE FROM answers WHERE attempt_id = p_attempt AND question_id = p_question;
  ELSE
    INSERT INTO answers (attempt_id, question_id, value) VALUES (p_attempt, p_question, p_value)
    ON CONFLICT (attempt_id, question_id) DO UPDATE SET value = EXCLUDED.value, answered_at = now(),
      review_score = NULL, reviewed_at = NULL, reviewed_by = NULL, review_comment = NULL, review_value_hash = NULL;
  END IF;
  SELECT (SELECT count(*) FROM answers WHERE attempt_id = p_attempt)
       + (SELECT count(*) FROM attempts WHERE id = p_attempt AND typing_wpm IS NOT NULL)
    INTO done;
  UPDATE invitations SET completion = round(10000.0 * done / p_items) / 100 WHERE id = p_invitation;
  RETURN true;
END $$;
