-- Inviting in bulk from a CSV file (modules/bulk-invites): the file as uploaded (its header and
-- rows, as text), how its columns map to the fields of an invite, the preview of every row, and
-- the background work of inviting them one row at a time.

CREATE TABLE bulk_invites (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  instance_id   uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  file_name     text NOT NULL CHECK (char_length(file_name) BETWEEN 1 AND 255),
  -- The file's header row, as given (trimmed).
  headers       jsonb NOT NULL,
  -- Field of an invite (email, firstName, ...) to the index of its column; NULL before mapping.
  mapping       jsonb,
  assessments   text[] NOT NULL DEFAULT '{}',
  send_invite   boolean NOT NULL DEFAULT true,
  -- draft: uploaded, not yet mapped; ready: previewed; running: rows are being invited;
  -- done: every row was tried; cancelled: rows not yet tried are left.
  status        text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'ready', 'running', 'done', 'cancelled')),
  row_count     integer NOT NULL CHECK (row_count BETWEEN 1 AND 10000),
  -- Who uploaded it (an audit actor name) and who started it, whose invites the rows' are.
  created_by    text NOT NULL,
  started_by    jsonb,
  created_at    timestamptz NOT NULL,
  started_at    timestamptz,
  finished_at   timestamptz
);
CREATE INDEX bulk_invites_instance ON bulk_invites (instance_id, id DESC);
CREATE INDEX bulk_invites_running ON bulk_invites (id) WHERE status = 'running';

-- One data row of a file. `line` is its line in the file (the header is line 1) and, with the
-- file's id, the row's idempotency key: a row is invited in the same transaction that marks it
-- invited, so a retried row never invites twice.
CREATE TABLE bulk_invite_rows (
  bulk_invite_id bigint NOT NULL REFERENCES bulk_invites (id) ON DELETE CASCADE,
  line          integer NOT NULL CHECK (line > 1),
  cells         jsonb NOT NULL,
  email         text,
  -- invalid: a cell breaks a rule of the invite (errors); duplicate: the e-mail of an earlier row;
  -- pending: to be invited; invited; failed: the invite refused it (detail); skipped: cancelled.
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'invalid', 'duplicate', 'invited', 'failed', 'skipped')),
  -- [{column, detail}] for an invalid row; notes for the preview (an existing candidate, a live invitation).
  errors        jsonb NOT NULL DEFAULT '[]',
  notes         jsonb NOT NULL DEFAULT '[]',
  duplicate_of  integer,
  candidate_id  uuid,
  mail_status   text CHECK (mail_status IN ('SENT', 'FAILED')),
  detail        text,
  processed_at  timestamptz,
  PRIMARY KEY (bulk_invite_id, line)
);
CREATE INDEX bulk_invite_rows_pending ON bulk_invite_rows (bulk_invite_id, line) WHERE status = 'pending';
