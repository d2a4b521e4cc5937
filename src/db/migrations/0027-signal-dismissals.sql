-- A reviewer may dismiss a proctoring signal (one stored signal, or every signal of a kind of an
-- attempt) with a reason: the signal stays, with who dismissed it, when and why; the red flag is
-- judged on what is not dismissed.
ALTER TABLE proctor_signals
  ADD COLUMN dismissed_at timestamptz,
  ADD COLUMN dismissed_by text,
  ADD COLUMN dismissed_reason text;
-- Kinds dismissed as a whole, with who, when and why: {"focus-lost": {"by": …, "at": …, "reason": …}}.
ALTER TABLE attempts ADD COLUMN dismissed_kinds jsonb NOT NULL DEFAULT '{}';
