-- Saving an answer decides by the app's clock, as every other change of an attempt does: the
-- deadline is compared with p_now and the answer stamped with it, instead of the database's now().
-- One clock for starting, saving, completing and sweeping, which tests move rather than wait for.
--
-- Why this is SQL and not a command in TypeScript: the save is the portal's most frequent write,
-- and one call of a function is one round trip holding a pooled connection, where a transaction
-- of the same statements is six. It writes `answers` and `attempts` (the attempts module's) and the
-- invitation's `completion` (the invitations module's record); the attempts module is its only
-- caller (saveAnswer), and the architecture test lists it as the one function that writes another
-- module's table.
DROP FUNCTION IF EXISTS save_answer(uuid, integer, text, jsonb, integer, bigint);
CREATE FUNCTION save_answer(p_attempt uuid, p_position integer, p_question text, p_value jsonb, p_items integer, p_invitation bigint, p_now timestamptz)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  done integer;
BEGIN
  PERFORM 1 FROM invitations WHERE id = p_invitation FOR UPDATE;
  UPDATE attempts SET position = p_position WHERE id = p_attempt AND invitation_id = p_invitation AND finished_at IS NULL AND deadline_at > p_now;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF p_value IS NULL THEN
    DELETE FROM answers WHERE attempt_id = p_attempt AND question_id = p_question;
  ELSE
    INSERT INTO answers (attempt_id, question_id, value, answered_at) VALUES (p_attempt, p_question, p_value, p_now)
    ON CONFLICT (attempt_id, question_id) DO UPDATE SET value = EXCLUDED.value, answered_at = p_now,
      review_score = NULL, reviewed_at = NULL, reviewed_by = NULL, review_comment = NULL, review_value_hash = NULL;
  END IF;
  SELECT (SELECT count(*) FROM answers WHERE attempt_id = p_attempt)
       + (SELECT count(*) FROM attempts WHERE id = p_attempt AND typing_wpm IS NOT NULL)
    INTO done;
  UPDATE invitations SET completion = round(10000.0 * done / p_items) / 100 WHERE id = p_invitation;
  RETURN true;
END $$;
