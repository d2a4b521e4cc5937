-- Saving an answer in one round trip: the candidate's save is the portal's most frequent write (a
-- hiring campaign has thousands of candidates saving every few seconds). It was six (BEGIN, the
-- attempt's position, the answer, the count, the invitation's completion, COMMIT), each holding a
-- pooled connection. One call of a function is one atomic statement; each statement inside sees
-- what committed before it (a fresh snapshot in READ COMMITTED), so two saves of one attempt at
-- once still count each other's answers: the second waits for the attempt's row, then counts.
-- Returns false, changing nothing, when the attempt is finished or its time has run out.
CREATE FUNCTION save_answer(p_attempt uuid, p_position integer, p_question text, p_value jsonb, p_items integer, p_invitation bigint)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  done integer;
BEGIN
  UPDATE attempts SET position = p_position WHERE id = p_attempt AND finished_at IS NULL AND deadline_at > now();
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
