-- An answer saved again costs what it must. Nearly every save in a campaign changes an answer the
-- candidate already gave (a text growing, a choice changed); such a save moves no completion and
-- no score record, so it need not lock the invitation, count the answers or rewrite the
-- invitation's row (and clear its ready score record) as save_answer does. save_answer_again:
--
--   1. the candidate's session still holds (not ended, its link not revoked), when one is given;
--   2. the attempt is open and within its time, by the command's clock, and stays so until this
--      statement ends: its row is locked in share mode, so that a submit, a cancel or the deadline
--      sweep (each locks the attempt's row to finish it) waits for this save and then scores it,
--      or this save waits for them and finds the attempt finished;
--   3. the answer's row is updated in place (a HOT update: no indexed column changes).
--
-- It answers 'saved', 'new' (no answer to this question yet: the caller saves it with
-- save_answer, in a statement of its own, whose lock order, invitation then attempt, is the one a
-- submit and a cancel take), 'closed' or 'session'. It takes no lock on the invitation: a save
-- that held the attempt and then asked for the invitation could deadlock with a submit.
--
-- save_answer gains the same session condition, and answers the same words.
-- The portal session whose cookie hashes to p_session has not ended (nor its sign-in link been
-- revoked) at p_now: the invitations module's rule of findSession (portal-sessions.ts), for the saves.
CREATE FUNCTION portal_session_holds(p_session bytea, p_now timestamptz) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM portal_sessions s JOIN invite_links l ON l.id = s.invite_link_id
                  WHERE s.token_hash = p_session AND s.expires_at > p_now AND l.revoked_at IS NULL)
$$;

DROP FUNCTION IF EXISTS save_answer(uuid, integer, text, jsonb, integer, bigint, timestamptz);
CREATE FUNCTION save_answer(p_attempt uuid, p_position integer, p_question text, p_value jsonb, p_items integer, p_invitation bigint, p_now timestamptz, p_session bytea)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  done integer;
BEGIN
  IF p_session IS NOT NULL AND NOT portal_session_holds(p_session, p_now) THEN
    RETURN 'session';
  END IF;
  PERFORM 1 FROM invitations WHERE id = p_invitation FOR UPDATE;
  UPDATE attempts SET position = coalesce(p_position, position)
   WHERE id = p_attempt AND invitation_id = p_invitation AND finished_at IS NULL AND deadline_at > p_now;
  IF NOT FOUND THEN
    RETURN 'closed';
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
  UPDATE invitations SET completion = round(10000.0 * done / p_items) / 100
   WHERE id = p_invitation AND completion IS DISTINCT FROM round(10000.0 * done / p_items) / 100;
  RETURN 'saved';
END $$;

CREATE FUNCTION save_answer_again(p_attempt uuid, p_question text, p_value jsonb, p_invitation bigint, p_now timestamptz, p_session bytea)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF p_session IS NOT NULL AND NOT portal_session_holds(p_session, p_now) THEN
    RETURN 'session';
  END IF;
  PERFORM 1 FROM attempts
    WHERE id = p_attempt AND invitation_id = p_invitation AND finished_at IS NULL AND deadline_at > p_now FOR SHARE;
  IF NOT FOUND THEN
    RETURN 'closed';
  END IF;
  UPDATE answers SET value = p_value, answered_at = p_now,
         review_score = NULL, reviewed_at = NULL, reviewed_by = NULL, review_comment = NULL, review_value_hash = NULL
   WHERE attempt_id = p_attempt AND question_id = p_question;
  IF NOT FOUND THEN
    RETURN 'new';
  END IF;
  RETURN 'saved';
END $$;
