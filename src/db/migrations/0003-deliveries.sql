-- Invitation e-mail: a sender per instance, and every delivery attempt with its outcome, so that
-- an operator can see what the relay said and send again.

ALTER TABLE instances
  ADD COLUMN mail_from_name    text CHECK (mail_from_name !~ '[\r\n]'),
  ADD COLUMN mail_from_address text CHECK (mail_from_address ~ '^[^\s@<>]+@[^\s@<>]+$');

CREATE TABLE deliveries (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  instance_id    uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  candidate_id   uuid NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
  invite_link_id bigint NOT NULL REFERENCES invite_links (id) ON DELETE CASCADE,
  recipient      text NOT NULL,
  status         text NOT NULL CHECK (status IN ('SENT', 'FAILED')),
  message_id     text,
  -- What the relay answered, or why nothing was delivered.
  response       text NOT NULL,
  duration_ms    integer NOT NULL CHECK (duration_ms >= 0),
  attempted_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_instance ON deliveries (instance_id, id DESC);
