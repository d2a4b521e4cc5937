-- Answers saved again that reach a node together are written by one statement: one round trip,
-- one transaction and one commit for all of them instead of one each. Each save is still
-- save_answer_again (0042-save-answer-again.sql), with its own attempt, session and clock, and
-- answers its own outcome (outcomes[i] for save i): what one save is told does not depend on what
-- it was written with. The statement commits before any of them is answered, so a save answered
-- 'saved' is as durable as alone.
--
-- The saves are taken in the order of (attempt, question, arrival), so that two such statements
-- lock rows in the same order, and two saves of one answer in a statement are written in the
-- order they came (the later one stays).
CREATE FUNCTION save_answers_again(p_attempts uuid[], p_questions text[], p_values text[], p_invitations bigint[], p_nows timestamptz[], p_sessions text[])
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  outcomes text[] := array_fill(NULL::text, ARRAY[cardinality(p_attempts)]);
  i bigint;
BEGIN
  FOR i IN SELECT s.n FROM unnest(p_attempts, p_questions) WITH ORDINALITY AS s(attempt, question, n) ORDER BY s.attempt, s.question, s.n LOOP
    outcomes[i] := save_answer_again(p_attempts[i], p_questions[i], p_values[i]::jsonb, p_invitations[i], p_nows[i], decode(p_sessions[i], 'hex'));
  END LOOP;
  RETURN outcomes;
END $$;
